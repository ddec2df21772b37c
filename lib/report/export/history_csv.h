/*
 * `ksft-metric history`'s CSV (history_csv.c), rendered from the
 * document store/history_query.c reads.
 */
#ifndef KSFTM_HISTORY_CSV_H
#define KSFTM_HISTORY_CSV_H

struct json_t;
struct strbuf;

/* The history document @doc as CSV: one row per point. 0 or -ENOMEM. */
int history_csv_render(struct json_t *doc, struct strbuf *sb);

#endif
