/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An rtnetlink socket, opened one way for everyone: the loader's requests
 * and event monitor (netlink.c), and the experiment's TUN helpers
 * (tools/tun/tun.c, through lib/). Depends on nothing of xdpong's.
 */
#ifndef XDPONG_NLSOCK_H
#define XDPONG_NLSOCK_H

/*
 * A NETLINK_ROUTE socket bound to the multicast groups (RTMGRP_*, 0 for
 * requests only), close-on-exec, with extended acks (an error names the
 * attribute at fault); flags: more socket() flags, e.g. SOCK_NONBLOCK.
 * The descriptor, or -errno.
 */
int nl_socket(unsigned int groups, int flags);

#endif /* XDPONG_NLSOCK_H */
