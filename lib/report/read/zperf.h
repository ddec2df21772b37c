/* zperf and twister input (zperf.c). */
#ifndef KSFTM_ZPERF_H
#define KSFTM_ZPERF_H

#include <stddef.h>

struct rp_input;

int zperf_input_document(struct rp_input *in, const char *buf, size_t len);

void zperf_line(struct rp_input *in, const char *p, const char *end);

#endif
