/* Overflow-checked array growth (grow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

int ksftm_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t cap2 = *cap ? *cap : (first ? first : 1);
	void *q;

	if (need <= *cap)
		return 0;
	while (cap2 < need) {
		if (cap2 > SIZE_MAX / 2)
			return -ENOMEM;
		cap2 *= 2;
	}
	if (elem && cap2 > SIZE_MAX / elem)
		return -ENOMEM;
	q = realloc(*p, cap2 * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = cap2;
	return 0;
}
