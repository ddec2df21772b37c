/* A series' recent runs without its held ones (gate_held.h). */
#include <math.h>
#include <stdlib.h>

#include "gate.h"
#include "gate_held.h"

size_t gate_held_out(const struct gate_series *s, struct gate_series *sn, double **buf)
{
	size_t m = s->n_recent, mf = m, i, j = 0;
	double *fv, *fw;
	size_t *fr;

	*sn = *s;
	*buf = NULL;
	for (i = 0; s->recent && s->recent_held && i < m &&
		    s->repeats >= GATE_GUARD_ADAPT_REPEATS; i++)
		mf -= s->recent_held[i] != 0;
	if (mf == m || mf < 3 || !(*buf = malloc(m * (2 * sizeof(double) + sizeof(size_t)))))
		return m;
	fv = *buf;
	fw = *buf + m;
	fr = (size_t *)(*buf + 2 * m);
	for (i = 0; i < m; i++) {
		if (s->recent_held[i])
			continue;
		fv[j] = s->recent[i];
		fw[j] = s->recent_within ? s->recent_within[i] : NAN;
		fr[j++] = s->recent_repeats ? s->recent_repeats[i] : 0;
	}
	sn->recent = fv;
	sn->recent_within = s->recent_within ? fw : NULL;
	sn->recent_repeats = s->recent_repeats ? fr : NULL;
	sn->n_recent = mf;
	return mf;
}
