/*
 * The history's rows as typed values (lib/report/store/db.h, issue 45):
 * numbers bound as numbers come back as the same numbers, a REAL bit for
 * bit through db_rows_double() (SQLite: no text between the file and the
 * gate; PostgreSQL: its round-trip text parsed), and the text interface
 * gives what it always gave (a REAL's shortest round-trip text, an
 * INTEGER in decimal); a trusted write checks no foreign key on SQLite,
 * and only inside it. Against SQLite, and PostgreSQL via
 * $KSFTM_HISTORY_URL (history_pg.sh).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "history_fixture.h"
#include "report/store/db.h"

static const double reals[] = { 0.1 + 0.2, 1e300, -2.2250738585072014e-308, 7.9927,
				8.377740000000001, 100.0 };
static const char *const real_texts[] = { "0.30000000000000004", "1e+300",
					  "-2.2250738585072014e-308", "7.9927",
					  "8.377740000000001", "100.0" };
#define N_REALS (sizeof(reals) / sizeof(reals[0]))

static struct db *filled(void)
{
	struct db *db;
	size_t k;

	ck_assert_int_eq(db_open(hist_url, &db), 0);
	ck_assert_int_eq(db_exec(db, "DROP TABLE IF EXISTS typed; CREATE TABLE typed"
				 " (k INTEGER, i BIGINT, r DOUBLE PRECISION, s TEXT)"), 0);
	for (k = 0; k < N_REALS; k++) {
		struct db_value v[4] = { db_int((long long)k), db_int(-9007199254740993LL),
					 db_real(reals[k]), db_text(k % 2 ? NULL : "text") };

		ck_assert_int_eq(db_query_values(db, "INSERT INTO typed (k, i, r, s)"
						 " VALUES ($1, $2, $3, $4)", v, 4, NULL), 0);
	}
	return db;
}

START_TEST(test_numbers_as_numbers)
{
	struct db *db = filled();
	struct db_rows *rows;
	size_t k;

	ck_assert_int_eq(db_query(db, "SELECT k, i, r, s FROM typed ORDER BY k", NULL, 0,
				  &rows), 0);
	ck_assert_uint_eq(db_rows_count(rows), N_REALS);
	for (k = 0; k < N_REALS; k++) {
		long long i = 0;
		double r = NAN;

		ck_assert_int_eq(db_rows_double(rows, k, 2, &r), 1);
		ck_assert_msg(!memcmp(&r, &reals[k], sizeof(r)), "row %zu: %.17g, not %.17g",
			      k, r, reals[k]);
		ck_assert_int_eq(db_rows_int64(rows, k, 1, &i), 1);
		ck_assert(i == -9007199254740993LL);
		ck_assert_int_eq(db_rows_int64(rows, k, 0, &i), 1);
		ck_assert(i == (long long)k);
		/* NULL is no number, and leaves the value alone. */
		r = 42.0;
		ck_assert_int_eq(db_rows_double(rows, k, 3, &r), k % 2 ? 0 : 1);
		if (k % 2) {
			ck_assert(r == 42.0);
			ck_assert_ptr_null(db_rows_get(rows, k, 3));
			ck_assert_int_eq(db_rows_type(rows, k, 3), DB_NULL);
		} else {
			ck_assert_str_eq(db_rows_get(rows, k, 3), "text");
			ck_assert_int_eq(db_rows_type(rows, k, 3), DB_TEXT);
		}
	}
	/* SQLite hands numbers over as numbers; PostgreSQL as their text. */
	ck_assert_int_eq(db_rows_type(rows, 0, 1),
			 db_dialect(db) == DB_SQLITE ? DB_INTEGER : DB_TEXT);
	ck_assert_int_eq(db_rows_type(rows, 0, 2),
			 db_dialect(db) == DB_SQLITE ? DB_REAL : DB_TEXT);
	ck_assert_int_eq(db_rows_type(rows, N_REALS, 0), DB_NULL);	/* outside */
	db_rows_free(rows);
	db_close(db);
}
END_TEST

START_TEST(test_text_as_ever)
{
	struct db *db = filled();
	struct db_rows *rows;
	size_t k;

	ck_assert_int_eq(db_query(db, "SELECT r, i FROM typed ORDER BY k", NULL, 0, &rows), 0);
	for (k = 0; k < N_REALS; k++) {
		/* PostgreSQL sends "100" for 100.0: its text as it was;
		 * SQLite's REAL as float_repr() makes it. */
		const char *want = real_texts[k];

		if (db_dialect(db) == DB_POSTGRESQL && !strcmp(want, "100.0"))
			want = "100";
		ck_assert_str_eq(db_rows_get(rows, k, 0), want);
		/* Asked twice: the same text, made once. */
		ck_assert_ptr_eq(db_rows_get(rows, k, 0), db_rows_get(rows, k, 0));
		ck_assert_str_eq(db_rows_get(rows, k, 1), "-9007199254740993");
		/* A number read after its text: the same number. */
		{
			double r = NAN;

			ck_assert_int_eq(db_rows_double(rows, k, 0, &r), 1);
			ck_assert(!memcmp(&r, &reals[k], sizeof(r)));
		}
	}
	db_rows_free(rows);
	db_close(db);
}
END_TEST

/* Is a row referencing no parent refused (foreign keys checked)? */
static int refused(struct db *db)
{
	struct db_value v[1] = { db_int(999) };
	int ret = db_query_values(db, "INSERT INTO child (parent) VALUES ($1)", v, 1, NULL);

	if (!ret)
		ck_assert_int_eq(db_exec(db, "DELETE FROM child WHERE parent = 999"), 0);
	return ret != 0;
}

/*
 * db_begin_write_trusted(): SQLite checks no foreign key inside it (an
 * ingest's results reference the run and series it has just written),
 * and checks them again after its commit or rollback; PostgreSQL always.
 */
START_TEST(test_trusted_write)
{
	int lite;
	struct db *db;

	ck_assert_int_eq(db_open(hist_url, &db), 0);
	lite = db_dialect(db) == DB_SQLITE;
	ck_assert_int_eq(db_exec(db, "DROP TABLE IF EXISTS child; DROP TABLE IF EXISTS parent;"
				 " CREATE TABLE parent (id BIGINT PRIMARY KEY);"
				 " CREATE TABLE child (parent BIGINT REFERENCES parent(id))"), 0);
	ck_assert(refused(db));
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert(refused(db));
	db_rollback(db);
	ck_assert_int_eq(db_begin_write_trusted(db), 0);
	ck_assert_int_eq(refused(db), !lite);
	ck_assert_int_eq(db_commit(db), 0);
	ck_assert(refused(db));
	ck_assert_int_eq(db_begin_write_trusted(db), 0);
	ck_assert_int_eq(refused(db), !lite);
	db_rollback(db);
	ck_assert(refused(db));
	db_close(db);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("history_db_rows");

	suite_add_tcase(s, hist_tcase("numbers_as_numbers", test_numbers_as_numbers));
	suite_add_tcase(s, hist_tcase("text_as_ever", test_text_as_ever));
	suite_add_tcase(s, hist_tcase("trusted_write", test_trusted_write));
	return s;
}
