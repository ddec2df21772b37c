/*
 * Output handed to a FILE * as it is made (ksft_metric_report_write(),
 * ksft_metric_report_comparison_write()): a writer builds its text in a
 * strbuf as before and calls export_sink_flush() where the text so far is
 * final, so the buffer holds a chunk, not the whole output (issue 45).
 */
#ifndef KSFTM_SINK_H
#define KSFTM_SINK_H

#include <stdio.h>

#include "strbuf.h"

/* A chunk: large enough that fwrite() is rarely called, small beside any log. */
#define EXPORT_SINK_CHUNK (64 * 1024)

struct export_sink {
	FILE *f;
	int err;	/* errno of the first failed write; later chunks are dropped */
};

/*
 * With a sink (@k not NULL), write what @sb holds once it holds a chunk
 * (anything with @force) and empty it; without one, keep it all. Only
 * where nothing written so far will be looked at again: after a line's
 * end, or between two records of a format that never looks back.
 */
void export_sink_flush(struct export_sink *k, struct strbuf *sb, int force);

/*
 * The rest of @sb written and @k's FILE flushed: 0, -ENOMEM (@sb ran out
 * of memory: nothing more written), or the negative errno of a failed
 * write (message set).
 */
int export_sink_end(struct export_sink *k, struct strbuf *sb);

#endif
