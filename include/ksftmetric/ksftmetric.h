/* SPDX-License-Identifier: GPL-2.0 */
/* libksftmetric umbrella header: include this one. */
#ifndef KSFTMETRIC_H
#define KSFTMETRIC_H

#include <ksftmetric/metric.h>
#include <ksftmetric/report.h>

#endif
