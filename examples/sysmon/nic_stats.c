// SPDX-License-Identifier: GPL-2.0
/*
 * NIC drop counters over netlink with libnl (one RTM_GETLINK per sample,
 * 64-bit IFLA_STATS64), or from a fixture's sysfs files. libnl's -NLE_*
 * codes stop here: callers see a negative errno and a message.
 *
 * The request is libnl-route's rtnl_link_build_get_request(); the reply is
 * parsed with libnl's nlmsg_parse() for IFLA_STATS64 alone instead of
 * rtnl_link_get_kernel()'s full rtnl_link object (AF_SPEC, inet6 stats,
 * link info...), which costs a third of the round trip and is not needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include "nic_stats.h"
#include "sm_error.h"

#define IFNAME_MAX 15	/* IFNAMSIZ - 1 */
#define NL_BUF_SIZE 32768

const char *const nic_counter_names[NIC_NCOUNTERS] = {
	"rx_dropped", "rx_missed_errors", "tx_dropped"
};

struct nic_reader {
	char *ifname;
	struct nl_sock *sk;		/* netlink mode */
	uint64_t reply[NIC_NCOUNTERS];	/* filled by on_link() */
	int replied;
	char *paths[NIC_NCOUNTERS];	/* fixture mode */
};

static int nl_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_INTR: return -EINTR;
	case NLE_AGAIN: return -EAGAIN;
	case NLE_NOMEM: return -ENOMEM;
	case NLE_EXIST: return -EEXIST;
	case NLE_INVAL: return -EINVAL;
	case NLE_RANGE: return -ERANGE;
	case NLE_MSGSIZE: return -EMSGSIZE;
	case NLE_OPNOTSUPP: return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT: return -EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND: return -ENODEV;	/* RTM_GETLINK's ENODEV */
	case NLE_NODEV: return -ENODEV;
	case NLE_BUSY: return -EBUSY;
	case NLE_NOACCESS: return -EACCES;
	case NLE_PERM: return -EPERM;
	case NLE_BAD_SOCK: return -EBADF;
	default: return -EIO;
	}
}

int nic_ifname_check(const char *name, const char *what)
{
	size_t len = name ? strlen(name) : 0;

	if (!len || len > IFNAME_MAX || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return sm_fail(-EINVAL, "%s interface name '%s' is invalid (1-%d bytes, no '/', not . or ..)",
			       what, name ? name : "(null)", IFNAME_MAX);
	return 0;
}

/* The RTM_NEWLINK answer: pick the counters out of IFLA_STATS64 (or IFLA_STATS). */
static int on_link(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[IFLA_MAX + 1];
	struct nic_reader *r = arg;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlmsg_parse(nlh, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) < 0)
		return NL_SKIP;
	if (tb[IFLA_STATS64]) {
		struct rtnl_link_stats64 st = { 0 };
		size_t n = (size_t)nla_len(tb[IFLA_STATS64]);

		/* Older kernels send a shorter struct; our fields are in all of them. */
		memcpy(&st, nla_data(tb[IFLA_STATS64]), n < sizeof(st) ? n : sizeof(st));
		r->reply[NIC_RX_DROPPED] = st.rx_dropped;
		r->reply[NIC_RX_MISSED_ERRORS] = st.rx_missed_errors;
		r->reply[NIC_TX_DROPPED] = st.tx_dropped;
		r->replied = 1;
	} else if (tb[IFLA_STATS]) {	/* kernels before 2.6.35 */
		struct rtnl_link_stats st = { 0 };
		size_t n = (size_t)nla_len(tb[IFLA_STATS]);

		memcpy(&st, nla_data(tb[IFLA_STATS]), n < sizeof(st) ? n : sizeof(st));
		r->reply[NIC_RX_DROPPED] = st.rx_dropped;
		r->reply[NIC_RX_MISSED_ERRORS] = st.rx_missed_errors;
		r->reply[NIC_TX_DROPPED] = st.tx_dropped;
		r->replied = 1;
	}
	return NL_OK;
}

static int open_netlink(struct nic_reader *r)
{
	int err;

	r->sk = nl_socket_alloc();
	if (!r->sk)
		return sm_fail(-ENOMEM, "netlink: cannot allocate a socket");
	err = nl_connect(r->sk, NETLINK_ROUTE);
	if (err < 0)
		return sm_fail(nl_to_errno(err), "netlink: cannot connect a NETLINK_ROUTE socket: %s",
			       nl_geterror(err));
	/*
	 * One sendmsg and one recvmsg per sample, as a hand-written request
	 * would do: no ACK to wait for (errors still come back), and no
	 * MSG_PEEK round to size the buffer. A link message too large for it
	 * (many VFs) turns peeking back on; see nic_reader_read().
	 */
	nl_socket_disable_auto_ack(r->sk);
	nl_socket_disable_msg_peek(r->sk);
	nl_socket_set_msg_buf_size(r->sk, NL_BUF_SIZE);
	err = nl_socket_modify_cb(r->sk, NL_CB_VALID, NL_CB_CUSTOM, on_link, r);
	if (err < 0)
		return sm_fail(nl_to_errno(err), "netlink: %s", nl_geterror(err));
	return 0;
}

/* One RTM_GETLINK round trip. @return 0 or a libnl -NLE_* code. */
static int request_link(struct nic_reader *r)
{
	struct nl_msg *msg;
	int err;

	err = rtnl_link_build_get_request(0, r->ifname, &msg);
	if (err < 0)
		return err;
	err = nl_send_auto(r->sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return err;
	r->replied = 0;
	return nl_recvmsgs_default(r->sk);
}

static int open_fixture(struct nic_reader *r, const char *root)
{
	int i;

	for (i = 0; i < NIC_NCOUNTERS; i++) {
		size_t n = strlen(root) + strlen(r->ifname) + 64;

		r->paths[i] = malloc(n);
		if (!r->paths[i])
			return sm_fail(-ENOMEM, "out of memory");
		snprintf(r->paths[i], n, "%s/sys/class/net/%s/statistics/%s", root, r->ifname,
			 nic_counter_names[i]);
	}
	return 0;
}

int nic_reader_open(struct nic_reader **out, const char *ifname, const char *root)
{
	struct nic_reader *r;
	uint64_t probe[NIC_NCOUNTERS];
	int err;

	*out = NULL;
	err = nic_ifname_check(ifname, "local");
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->ifname = strdup(ifname))) {
		free(r);
		return sm_fail(-ENOMEM, "out of memory");
	}
	err = root ? open_fixture(r, root) : open_netlink(r);
	if (!err)
		err = nic_reader_read(r, probe);	/* fail at start, not later */
	if (err) {
		nic_reader_close(r);
		return err;
	}
	*out = r;
	return 0;
}

static int read_sysfs_counter(const char *path, uint64_t *out)
{
	char buf[64], *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return sm_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		int err = errno;

		close(fd);
		return sm_fail(-err, "cannot read %s: %s", path, strerror(err));
	}
	close(fd);
	buf[n] = '\0';
	errno = 0;
	if (n == 0 || buf[0] < '0' || buf[0] > '9')
		goto bad;
	*out = strtoull(buf, &end, 10);
	if (errno || (*end != '\n' && *end != '\0') || (*end == '\n' && end[1] != '\0'))
		goto bad;
	return 0;
bad:
	return sm_fail(-EBADMSG, "%s: not a 64-bit unsigned counter", path);
}

int nic_reader_read(struct nic_reader *r, uint64_t out[NIC_NCOUNTERS])
{
	int i, err;

	if (!r->sk) {
		for (i = 0; i < NIC_NCOUNTERS; i++) {
			err = read_sysfs_counter(r->paths[i], &out[i]);
			if (err)
				return err;
		}
		return 0;
	}
	err = request_link(r);
	if (err == -NLE_MSG_TRUNC) {	/* larger than NL_BUF_SIZE: size it by peeking */
		nl_socket_enable_msg_peek(r->sk);
		err = request_link(r);
	}
	if (err < 0)
		return sm_fail(nl_to_errno(err), "netlink: interface %s: %s", r->ifname,
			       err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV ? "no such device" :
			       nl_geterror(err));
	if (!r->replied)
		return sm_fail(-EPROTO, "netlink: interface %s: no link statistics in the reply",
			       r->ifname);
	memcpy(out, r->reply, sizeof(r->reply));
	return 0;
}

void nic_reader_close(struct nic_reader *r)
{
	int i;

	if (!r)
		return;
	if (r->sk)
		nl_socket_free(r->sk);	/* closes the socket too */
	for (i = 0; i < NIC_NCOUNTERS; i++)
		free(r->paths[i]);
	free(r->ifname);
	free(r);
}
