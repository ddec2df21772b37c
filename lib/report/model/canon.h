/*
 * Canonical text (canon.c): the one JSON spelling of identity and
 * numbers, text made safe to print, a series' title, and the name
 * tables of operations, statuses and sources.
 */
#ifndef KSFTM_CANON_H
#define KSFTM_CANON_H

#include <jansson.h>
#include <stddef.h>

struct strbuf;

const char *canon_op_name(int op);
/* "higher" (> 0), "lower" (< 0) or NULL (0): a policy's better. */
const char *canon_better_name(int better);
int canon_op_parse(const char *s, int allow_distribution);
const char *canon_status_name(int st);
/* Did a case of status @st fail (fail, timeout, error, incomplete)? Its
 * series are no measurement: not judged (KSFTM_VERDICT_CASE_FAILED). */
int canon_status_failed(int st);
const char *canon_source_name(int src);
/* RP_SRC_* of a source name ("ktap" for NULL or an unknown one). */
int canon_source_parse(const char *name);

/* Canonical JSON text (sorted keys, shortest doubles, ASCII escapes). */
void canon_json_emit(struct strbuf *sb, json_t *j);
void canon_json_double(struct strbuf *sb, double v);	/* NaN -> null */
void canon_json_str(struct strbuf *sb, const char *s);

/* Copy @n bytes as valid UTF-8 text (invalid bytes and controls -> '?'). */
char *canon_text_dup(const char *s, size_t n);
/*
 * The byte offset in @s[0..n) of the first byte that is not valid UTF-8 or
 * starts a control character (C0, DEL, C1; tab too), -ENOENT when there is
 * none (text a terminal shows as is). @control: 1 for a control character.
 */
long canon_text_bad_at(const char *s, size_t n, int *control);

/* Series title for tables: "path / case name{k=v}[elem]". */
void canon_series_title(struct strbuf *sb, char *const *path, size_t path_len,
			const char *case_name, const char *name,
			const char *labels, long elem);
void canon_labels_text(struct strbuf *sb, const char *labels_json);
void canon_text_number(struct strbuf *sb, double v);

/* A series' identity: "case":..,"path":[..],"name":..,"labels":{..} (no braces). */
void canon_emit_identity(struct strbuf *sb, char *const *path, size_t path_len,
			 const char *case_name, const char *name,
			 const char *labels);

#endif
