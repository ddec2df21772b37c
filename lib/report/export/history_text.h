/*
 * `ksft-metric history`'s text (history_text.c), rendered from the
 * document store/history_query.c reads.
 */
#ifndef KSFTM_HISTORY_TEXT_H
#define KSFTM_HISTORY_TEXT_H

struct json_t;
struct strbuf;

/* The history document @doc as text: @fmt TEXT with its width and
 * verbosity flags. 0 or -ENOMEM. */
int history_text_render(struct json_t *doc, int fmt, struct strbuf *sb);

#endif
