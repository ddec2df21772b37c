/* SPDX-License-Identifier: GPL-2.0 */
/* NIC drop counters of one interface: netlink (live) or sysfs (fixture). */
#ifndef SM_NIC_STATS_H
#define SM_NIC_STATS_H

#include <stdint.h>

/* The counters, in the reference's order. */
enum nic_counter { NIC_RX_DROPPED, NIC_RX_MISSED_ERRORS, NIC_TX_DROPPED, NIC_NCOUNTERS };

extern const char *const nic_counter_names[NIC_NCOUNTERS];	/* sysfs names */

struct nic_reader;

/*
 * nic_reader_open() - read @ifname's counters
 * @root: NULL for netlink (64-bit link stats, one socket kept open), else a
 *        fixture root whose <root>/sys/class/net/IF/statistics/ files are read
 *
 * @return 0 or -errno with a message (-EINVAL for an unusable name).
 */
int nic_reader_open(struct nic_reader **out, const char *ifname, const char *root);

/* nic_reader_read() - @return 0 or -errno with a message naming the interface. */
int nic_reader_read(struct nic_reader *r, uint64_t out[NIC_NCOUNTERS]);

void nic_reader_close(struct nic_reader *r);

/* nic_ifname_check() - @return 0, or -EINVAL (message) if @name cannot be an interface name. */
int nic_ifname_check(const char *name, const char *what);

#endif
