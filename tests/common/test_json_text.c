/*
 * utf8_valid()/json_add_string() unit tests. Expected texts are what
 * Python 3's json.dumps() prints for the same strings.
 */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "json_text.h"

/* Encode @s (n bytes) and compare with @want; also checks that appending
 * keeps what was in the buffer. */
static void check_json(const char *s, size_t n, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	ck_assert(utf8_valid(s, n));
	strbuf_adds(&sb, "x=");
	json_add_string(&sb, s, n);
	ck_assert(!sb.oom);
	ck_assert_msg(sb.len == strlen(want) + 2 && memcmp(sb.data, "x=", 2) == 0 &&
		      strcmp(sb.data + 2, want) == 0, "got %s, want %s", sb.data, want);
	strbuf_free(&sb);
}

#define CHECK_JSON(lit, want) check_json(lit, sizeof(lit) - 1, want)

START_TEST(test_short_escapes)
{
	CHECK_JSON("", "\"\"");
	CHECK_JSON("plain text", "\"plain text\"");
	/* '/' stays as is, unlike some encoders. */
	CHECK_JSON("\"\\/\b\f\n\r\t", "\"\\\"\\\\/\\b\\f\\n\\r\\t\"");
}
END_TEST

START_TEST(test_all_ascii)
{
	char in[128];
	int i;

	for (i = 0; i < 128; i++)
		in[i] = (char)i;
	/* json.dumps("".join(map(chr, range(128)))) */
	check_json(in, sizeof(in),
		   "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n"
		   "\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015"
		   "\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"
		   " !\\\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\\u007f\"");
}
END_TEST

START_TEST(test_embedded_nul)
{
	CHECK_JSON("a\0b", "\"a\\u0000b\"");
}
END_TEST

START_TEST(test_multibyte)
{
	CHECK_JSON("\xc3\xa9", "\"\\u00e9\"");			/* U+00E9, 2 bytes */
	CHECK_JSON("\xc2\x80\xdf\xbf\xe0\xa0\x80",		/* U+0080 U+07FF U+0800 */
		   "\"\\u0080\\u07ff\\u0800\"");
	CHECK_JSON("\xe2\x82\xac", "\"\\u20ac\"");		/* euro sign, 3 bytes */
	CHECK_JSON("\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\"");
	CHECK_JSON("\xef\xbf\xbf", "\"\\uffff\"");
	CHECK_JSON("caf\xc3\xa9!", "\"caf\\u00e9!\"");
}
END_TEST

START_TEST(test_astral)
{
	/* 4-byte sequences become UTF-16 surrogate pairs. */
	CHECK_JSON("\xf0\x9f\x98\x80", "\"\\ud83d\\ude00\"");	/* U+1F600 */
	CHECK_JSON("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",		/* U+10000 U+10FFFF */
		   "\"\\ud800\\udc00\\udbff\\udfff\"");
}
END_TEST

START_TEST(test_worst_case_growth)
{
	/* Many control bytes: 6 output bytes each, past the initial capacity. */
	struct strbuf sb = STRBUF_INIT;
	char in[1000];
	size_t i;

	memset(in, 1, sizeof(in));
	json_add_string(&sb, in, sizeof(in));
	ck_assert_uint_eq(sb.len, 6 * sizeof(in) + 2);
	for (i = 0; i < sizeof(in); i++)
		ck_assert(memcmp(sb.data + 1 + 6 * i, "\\u0001", 6) == 0);
	ck_assert(sb.data[sb.len] == '\0');
	strbuf_free(&sb);
}
END_TEST

#define VALID(lit) utf8_valid(lit, sizeof(lit) - 1)

START_TEST(test_utf8_valid_ok)
{
	ck_assert(VALID(""));
	ck_assert(VALID("ascii \x7f"));
	ck_assert(VALID("\xc2\x80\xdf\xbf"));
	ck_assert(VALID("\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"));
	ck_assert(VALID("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"));
	ck_assert(utf8_valid("a\0b", 3));	/* NUL is a character */
}
END_TEST

START_TEST(test_utf8_overlong)
{
	ck_assert(!VALID("\xc0\x80"));		/* overlong NUL */
	ck_assert(!VALID("\xc1\xbf"));
	ck_assert(!VALID("\xe0\x80\x80"));
	ck_assert(!VALID("\xe0\x9f\xbf"));
	ck_assert(!VALID("\xf0\x80\x80\x80"));
	ck_assert(!VALID("\xf0\x8f\xbf\xbf"));
}
END_TEST

START_TEST(test_utf8_surrogates)
{
	ck_assert(!VALID("\xed\xa0\x80"));	/* U+D800 */
	ck_assert(!VALID("\xed\xbf\xbf"));	/* U+DFFF */
	ck_assert(!VALID("\xed\xa0\xbd\xed\xb8\x80"));	/* CESU-8 pair */
}
END_TEST

START_TEST(test_utf8_too_large)
{
	ck_assert(!VALID("\xf4\x90\x80\x80"));	/* U+110000 */
	ck_assert(!VALID("\xf5\x80\x80\x80"));
	ck_assert(!VALID("\xf8\x88\x80\x80\x80"));
	ck_assert(!VALID("\xff"));
	ck_assert(!VALID("\xfe"));
}
END_TEST

START_TEST(test_utf8_truncated)
{
	ck_assert(!VALID("\xc3"));
	ck_assert(!VALID("\xe2\x82"));
	ck_assert(!VALID("\xf0\x9f\x98"));
	ck_assert(!VALID("a\xe2\x82z"));	/* cut short in the middle */
	ck_assert(!VALID("\xf0\x9f\x98" "a"));
	/* The length bounds the check, not a NUL: a valid prefix is valid. */
	ck_assert(utf8_valid("\xe2\x82\xac", 3));
	ck_assert(!utf8_valid("\xe2\x82\xac", 2));
}
END_TEST

START_TEST(test_utf8_stray_continuation)
{
	ck_assert(!VALID("\x80"));
	ck_assert(!VALID("a\xbf"));
	ck_assert(!VALID("\xc3\xa9\xa9"));
	ck_assert(!VALID("\xe2\x82\xac\x80"));
}
END_TEST

Suite *make_suite(void)
{
	struct ck_case tc[] = {
		{ "short_escapes", test_short_escapes },
		{ "all_ascii", test_all_ascii },
		{ "embedded_nul", test_embedded_nul },
		{ "multibyte", test_multibyte },
		{ "astral", test_astral },
		{ "worst_case_growth", test_worst_case_growth },
		{ "utf8_valid_ok", test_utf8_valid_ok },
		{ "utf8_overlong", test_utf8_overlong },
		{ "utf8_surrogates", test_utf8_surrogates },
		{ "utf8_too_large", test_utf8_too_large },
		{ "utf8_truncated", test_utf8_truncated },
		{ "utf8_stray_continuation", test_utf8_stray_continuation },
	};

	return ck_suite_of("json_text", tc, sizeof(tc) / sizeof(tc[0]));
}
