/*
 * What every stage of lib/report shares (never installed): the
 * limits of a report and the codes of operations, transforms,
 * sources and statuses. Each file's internals are declared in a
 * header of its own name beside it (doc/hacking.rst).
 */
#ifndef KSFTM_RP_H
#define KSFTM_RP_H

#define RP_MAX_DEPTH 32
#define RP_DEFAULT_MAX_LINE (16u << 20)
#define RP_DEFAULT_MAX_WARNINGS 1000
#define RP_MAX_DOCUMENT (512u << 20)	/* whole-file JSON inputs */

/* Summary / compare operations. */
enum {
	RP_OP_NONE = 0,
	RP_OP_LAST,
	RP_OP_TOTAL,
	RP_OP_MAX,
	RP_OP_P50,
	RP_OP_P90,
	RP_OP_P99,
	RP_OP_DISTRIBUTION,
};

enum { RP_TR_NONE = 0, RP_TR_RATE };
enum { RP_AGG_NONE = 0, RP_AGG_BCE };
enum { RP_SRC_KTAP = 0, RP_SRC_ZPERF, RP_SRC_TWISTER };

enum {
	RP_ST_NONE = 0,
	RP_ST_PASS,
	RP_ST_FAIL,
	RP_ST_SKIP,
	RP_ST_XFAIL,
	RP_ST_XPASS,
	RP_ST_TODO,
	RP_ST_TIMEOUT,
	RP_ST_ERROR,
	RP_ST_INCOMPLETE,
};

#endif
