/* A series' values as one block (vals.c). */
#ifndef KSFTM_VALS_H
#define KSFTM_VALS_H

#include <stddef.h>

/* A sequence of points: scalar (off == NULL) or arrays. */
struct rp_vals {
	size_t n;
	double *t;
	double *v;
	size_t *off;		/* arrays: n + 1 offsets into v */
	size_t width;		/* widest point (1 for scalars) */
};

void vals_free(struct rp_vals *pv);
int vals_is_array(const struct rp_vals *pv);
size_t vals_len(const struct rp_vals *pv, size_t i);
double vals_at(const struct rp_vals *pv, size_t i, size_t j);

#endif
