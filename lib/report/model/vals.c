/*
 * A series' values as one block: timestamps, values and, for arrays, the
 * offsets of each point's entries (struct rp_vals, vals.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vals.h"

void vals_free(struct rp_vals *pv)
{
	free(pv->t);
	free(pv->v);
	free(pv->off);
	memset(pv, 0, sizeof(*pv));
}

int vals_is_array(const struct rp_vals *pv)
{
	return pv->off != NULL;
}

size_t vals_len(const struct rp_vals *pv, size_t i)
{
	return pv->off ? pv->off[i + 1] - pv->off[i] : 1;
}

double vals_at(const struct rp_vals *pv, size_t i, size_t j)
{
	if (!pv->off)
		return j == 0 ? pv->v[i] : NAN;
	return j < pv->off[i + 1] - pv->off[i] ? pv->v[pv->off[i] + j] : NAN;
}
