/*
 * The hashes of series keys and strings (series.h): below the series,
 * their tables and the string pool, which all use them.
 */
#include <stdint.h>
#include <string.h>

#include "series.h"

uint64_t series_hash(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t series_key_hash_from(uint64_t h, const void *p, size_t n)
{
	const char *key = p;
	uint64_t w;

	for (; n >= 8; key += 8, n -= 8) {
		memcpy(&w, key, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, key, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

uint64_t series_key_hash(const void *p, size_t n)
{
	return series_key_hash_from(0x9e3779b97f4a7c15ull ^ n, p, n);
}
