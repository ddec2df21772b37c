/*
 * A run's place in the history (history.h): the order text as stored (ISO
 * date-times with a zone in UTC), the default order when the CI gives none
 * (the log's own time, else the database's clock, never a client's), and
 * the sort key that makes the order total (ties broken by the run id).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errmsg.h"
#include "history.h"
#include "history_sql.h"

/* Digits s[0..n) as a number, or -EINVAL if any is not a digit. */
static long digits(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/*
 * Parse "YYYY-MM-DD[T ]HH:MM[:SS[.fff]](Z|+HH:MM|-HH:MM|+HHMM|+HH)".
 * 1: a date-time with a zone (@utc set, @usec its microseconds);
 * 0: not such text; -ERANGE: shaped like one but a field is out of range
 * (no message: run_order_normalise() words it).
 */
static int parse_iso(const char *s, time_t *utc, long *usec)
{
	struct tm tm = { 0 };
	long y, mo, d, h, mi, sec = 0, off = 0, frac = 0, scale = 100000;
	const char *p = s + 16;

	if (strlen(s) < 17 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' &&
	    s[10] != ' ') || s[13] != ':')
		return 0;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0)
		return 0;
	if (*p == ':') {
		if ((sec = digits(p + 1, 2)) < 0)
			return 0;
		p += 3;
		if (*p == '.' || *p == ',') {
			if (!isdigit((unsigned char)p[1]))
				return 0;
			for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
				frac += (*p - '0') * scale;	/* digits past microseconds drop */
		}
	}
	if (*p == ' ' && (p[1] == '+' || p[1] == '-'))
		p++;	/* git log --format=%ci: "2026-12-01 10:30:00 +0200" */
	if ((*p == 'Z' || *p == 'z') && !p[1]) {
		off = 0;
	} else if (*p == '+' || *p == '-') {
		long oh = digits(p + 1, 2), om = 0;
		size_t rest = strlen(p + 1);

		if (oh < 0)
			return 0;
		if (rest == 5 && p[3] == ':')
			om = digits(p + 4, 2);
		else if (rest == 4)
			om = digits(p + 3, 2);
		else if (rest != 2)
			return 0;
		if (om < 0)
			return 0;
		if (oh > 23 || om > 59)
			return -ERANGE;
		off = (oh * 60 + om) * 60 * (*p == '-' ? -1 : 1);
	} else {
		return 0;	/* no zone: plain text, compared as text */
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -ERANGE;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	tm.tm_min = (int)mi;
	tm.tm_sec = (int)sec;
	*utc = timegm(&tm) - off;
	*usec = frac;
	{	/* timegm() normalises 31 February: a field out of range */
		struct tm back;

		if (!gmtime_r(&(time_t){ *utc + off }, &back) || back.tm_mday != (int)d ||
		    back.tm_mon != (int)mo - 1)
			return -ERANGE;
	}
	return 1;
}

/* @t as the history's UTC text; -ERANGE (no message) outside years 0-9999. */
static int format_utc(time_t t, long usec, char **out)
{
	struct tm tm;
	char buf[64];

	*out = NULL;
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
		return -ERANGE;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%06ldZ", usec);
	*out = strdup(buf);
	return *out ? 0 : ksftm_oom();
}

int run_order_normalise(const char *what, const char *order, char **out)
{
	time_t t;
	long usec;
	int iso = parse_iso(order, &t, &usec);

	*out = NULL;
	if (iso > 0 && format_utc(t, usec, out) == -ERANGE)
		iso = -ERANGE;
	if (iso < 0)
		return ksftm_fail(EINVAL, "%s \"%s\": a date-time with a field out of range; pass"
				  " ISO 8601 with a zone (2026-12-01T08:30:00Z, git log"
				  " --format=%%cI) or a zero-padded number", what, order);
	if (!iso)
		*out = strdup(order);
	return *out ? 0 : ksftm_oom();
}

/* The database's clock (PostgreSQL: the server's, one clock for every
 * collector; SQLite: the file's only host), in UTC to the microsecond. */
static int db_now(struct db *db, char **out)
{
	struct db_rows *rows;
	struct timespec ts;
	int ret;

	if (db_dialect(db) != DB_POSTGRESQL) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (format_utc(ts.tv_sec, ts.tv_nsec / 1000, out))
			return ksftm_fail(ERANGE, "this host's clock is out of range");
		return 0;
	}
	ret = db_query(db, "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC',"
		       " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')", NULL, 0, &rows);
	if (ret)
		return ret;
	*out = db_rows_count(rows) && db_rows_get(rows, 0, 0) ?
	       strdup(db_rows_get(rows, 0, 0)) : NULL;
	db_rows_free(rows);
	return *out ? 0 : ksftm_oom();
}

/*
 * Never before the newest run of @cmp's machines when it is a time: a
 * clock that stepped back, or a SQLite file two hosts write, must not put
 * a run without an order before the runs stored (@now replaced).
 */
static int after_newest(struct db *db, const char *cmp, char **now)
{
	const char *p[1] = { cmp };
	struct db_rows *rows;
	time_t utc;
	long usec;
	char *newest;
	int ret = db_query(db, HISTORY_NEWEST_ORDER_SQL, p, 1, &rows);

	if (ret)
		return ret;
	newest = db_rows_count(rows) && db_rows_get(rows, 0, 0) ?
		 strndup(db_rows_get(rows, 0, 0), run_order_shown_len(db_rows_get(rows, 0, 0))) :
		 NULL;
	db_rows_free(rows);
	if (newest && strcmp(newest, *now) >= 0 && parse_iso(newest, &utc, &usec) > 0) {
		char *later;

		if (++usec == 1000000) {
			usec = 0;
			utc++;
		}
		if (!format_utc(utc, usec, &later)) {
			free(*now);
			*now = later;
		}
	}
	free(newest);
	return 0;
}

int run_order_default(struct db *db, struct json_t *ctx, const char *cmp, char **out)
{
	const char *t = json_string_value(json_object_get(ctx, HISTORY_CONTEXT_TIME));
	time_t utc;
	long usec;
	int ret;

	*out = NULL;
	/* The run's own time, from the machine that ran it: the runs of one
	 * comparable group come from one machine, so one clock orders them. */
	if (t && parse_iso(t, &utc, &usec) > 0 && !format_utc(utc, usec, out))
		return 0;
	if ((ret = db_now(db, out)) || (ret = after_newest(db, cmp, out))) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

char *run_order_key(const char *order, const char *run_key)
{
	char *key;

	if (asprintf(&key, "%s" HISTORY_ORDER_SEP "%s", order, run_key) < 0)
		return NULL;
	return key;
}

size_t run_order_shown_len(const char *stored)
{
	return strcspn(stored, HISTORY_ORDER_SEP);
}

int history_stored_order(struct db *db, const char *content, const char *cmp, char **out)
{
	struct db_rows *rows = NULL;
	const char *p[2] = { content, cmp };
	int ret = db_query(db, "SELECT run_order FROM ksftm_runs WHERE content_key = $1"
			   " AND comparable = $2 ORDER BY id LIMIT 1", p, 2, &rows);

	*out = NULL;
	if (!ret && db_rows_count(rows) && db_rows_get(rows, 0, 0) &&
	    !(*out = strdup(db_rows_get(rows, 0, 0))))
		ret = ksftm_oom();
	db_rows_free(rows);
	return ret;
}
