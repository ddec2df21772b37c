/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the sysmon suites: fixture roots in a temporary directory,
 * and a test case's metric lines captured and parsed back as JSON.
 */
#ifndef SM_TEST_UTIL_H
#define SM_TEST_UTIL_H

#include <check.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include <ksftmetric/ksftmetric.h>

/* Path of checked-in fixture @name (static buffer, per call). */
const char *sm_fixture(const char *name);

/* A fresh temporary fixture root with proc/ and sys/class/net/ (malloc'd). */
char *sm_root_new(void);
/* Atomically replace <root>/proc/stat with fixture @name. */
void sm_root_stat(const char *root, const char *name);
/* Write <root>/sys/class/net/@ifname/statistics/{rx_dropped,rx_missed_errors,tx_dropped}. */
void sm_root_nic(const char *root, const char *ifname, uint64_t rx_dropped,
		 uint64_t rx_missed, uint64_t tx_dropped);
/* rm -rf @root and free it. */
void sm_root_free(char *root);

/* The lines of one ended case, parsed. */
struct sm_case {
	char *text;		/* all lines */
	json_t **obs;		/* ktap-metric-json objects, in order */
	size_t n_obs;
	json_t **pol;		/* ktap-metric-policy-json objects */
	size_t n_pol;
	char **pol_text;	/* the policy lines' JSON text */
};

/* ksft_metric_case_begin() that must succeed. */
void sm_begin(void);
/* End the open case into @c (asserting success and well-formed lines). */
void sm_end(struct sm_case *c);
void sm_case_free(struct sm_case *c);

/* The @k-th (0-based) observation of @name with label host == @host, or NULL. */
json_t *sm_find(const struct sm_case *c, const char *name, const char *host, size_t k);
/* How many observations of @name for @host. */
size_t sm_count(const struct sm_case *c, const char *name, const char *host);

/*
 * Assert that observation @o has a per-cpu array equal to @want, where
 * NAN in @want means null; compares doubles exactly.
 */
void sm_assert_array_at(const char *file, int line, json_t *o, const double *want, size_t n);
#define sm_assert_array(o, ...) do {						\
	const double sm_w_[] = { __VA_ARGS__ };					\
	sm_assert_array_at(__FILE__, __LINE__, (o), sm_w_, sizeof(sm_w_) / sizeof(sm_w_[0])); \
} while (0)

/* Assert that scalar observation @o has the integer value @want. */
void sm_assert_int_at(const char *file, int line, json_t *o, int64_t want);
#define sm_assert_int(o, want) sm_assert_int_at(__FILE__, __LINE__, (o), (want))

/* The call returned -@err and the sysmon message contains @part. */
#define sm_assert_err(expr, err, part) do {					\
	int sm_r_ = (expr);							\
	ck_assert_msg(sm_r_ == -(err), "%s returned %d (\"%s\"), want %d",	\
		      #expr, sm_r_, ksft_sysmon_errmsg(), -(err));		\
	ck_assert_msg(strstr(ksft_sysmon_errmsg(), (part)),			\
		      "message \"%s\" lacks \"%s\"", ksft_sysmon_errmsg(), (part)); \
} while (0)

#endif
