/* JSON text helpers matching Python's json.dumps(ensure_ascii=True). */
#ifndef KSFTM_JSON_TEXT_H
#define KSFTM_JSON_TEXT_H

#include <stddef.h>

#include "strbuf.h"

/* 1 for a byte JSON spells as it is inside a string (printable ASCII but
 * '"' and '\\'), else 0: a table, for scanners that test every byte. */
extern const unsigned char json_text_plain[256];

/* 1 if @s[0..n) is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF), else 0. */
int utf8_valid(const char *s, size_t n);
/* Length of the well-formed UTF-8 sequence starting @s[0..n), 0 if none. */
size_t utf8_seq_len(const char *s, size_t n);

/*
 * Append @s[0..n) (valid UTF-8) as a quoted JSON string the way Python's
 * json.dumps does with ensure_ascii=True: \" \\ \n \r \t \b \f escaped
 * short, other bytes outside 0x20..0x7e as \u00XX (lowercase hex), every
 * non-ASCII code point as \uXXXX, astral ones as a surrogate pair.
 */
void json_add_string(struct strbuf *sb, const char *s, size_t n);

#endif
