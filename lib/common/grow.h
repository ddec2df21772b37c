/* Growing an array by doubling, with the size arithmetic checked. */
#ifndef KSFTM_GROW_H
#define KSFTM_GROW_H

#include <stddef.h>

/*
 * Make room for @need elements of @elem bytes in *@p (capacity *@cap,
 * first allocation @first elements, then doubling). 0, or -ENOMEM if
 * the allocation fails or the size would overflow; *@p and *@cap are then
 * unchanged. Sets no message: the caller knows what it was growing.
 */
int ksftm_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first);

#endif
