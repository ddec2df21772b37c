/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two network namespaces joined by a veth pair, addresses
 * from the benchmarking range 198.18.0.0/15 and a ULA prefix, living only
 * inside those namespaces. The test binary re-runs itself inside the first
 * one ("local"); the second is reached with "ip netns exec" ("remote").
 */
#ifndef KSFTM_EXAMPLE_NETNS_H
#define KSFTM_EXAMPLE_NETNS_H

#define NETNS_ADDR_A	"198.18.0.1"	/* local, the server */
#define NETNS_ADDR_A2	"198.18.0.3"	/* local too; nothing listens there */
#define NETNS_ADDR_B	"198.18.0.2"	/* remote */
#define NETNS_ADDR6_A	"fd00:5eed:f00d::1"
#define NETNS_ADDR6_B	"fd00:5eed:f00d::2"

/** Namespaces this program created: one file per name, "PID STARTTIME PIDNS". */
#define NETNS_REGISTRY "/run/ksftm-netns"

/** Set in the environment of the re-run: the remote namespace's name. */
#define NETNS_ENV_REMOTE "KSFTM_NETNS_REMOTE"
/** ... and the veth ends: the local one (in the re-run's namespace) and the remote one. */
#define NETNS_ENV_LOCAL_IF "KSFTM_NETNS_LOCAL_IF"
#define NETNS_ENV_REMOTE_IF "KSFTM_NETNS_REMOTE_IF"

/**
 * netns_main() - run @argv[0] again inside a fresh local namespace
 *
 * When NETNS_ENV_REMOTE is set we already are inside: returns -1 and the
 * caller runs its tests. Otherwise: returns 77 (skip) when not root or when
 * ip(8) or one of @needed programs is missing; else creates the namespaces,
 * runs "ip netns exec A argv...", deletes the namespaces on every exit path
 * (signals included) and returns the child's exit code. Names carry the pid
 * and a random token; each is registered in NETNS_REGISTRY before it is
 * created, and stale ones of killed earlier runs are removed only from
 * there (a namespace with a like name that this program did not create is
 * never touched).
 */
int netns_main(int argc, char **argv, const char *const *needed);

/** netns_remote_prefix() - {"ip", "netns", "exec", REMOTE, NULL} */
const char *const *netns_remote_prefix(void);

#endif
