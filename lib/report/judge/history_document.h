/*
 * The history document as JSON, text or CSV (history_document.c): see
 * ksft_metric_report_history_format().
 */
#ifndef KSFTM_HISTORY_DOCUMENT_H
#define KSFTM_HISTORY_DOCUMENT_H

#include <stddef.h>

#include "history.h"

int history_document_format(struct history *h, const struct ksft_metric_report_history_opts *o,
			    int fmt, char **out, size_t *len);

#endif
