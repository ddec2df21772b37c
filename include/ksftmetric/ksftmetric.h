/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libksftmetric umbrella header: the producer API. The consumer engine is a
 * separate library with its own header, <ksftmetric/report.h>
 * (pkg-config ksftmetric-report).
 */
#ifndef KSFTMETRIC_H
#define KSFTMETRIC_H

#include <ksftmetric/metric.h>

#endif
