/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * TUN/TAP devices and their addresses, for tools/tun-stack, tools/tun-helper
 * and tests/tuntap: open a device, bring it up, add and list its addresses
 * over rtnetlink, and watch for changes.
 */
#ifndef XDPONG_LIB_TUN_H
#define XDPONG_LIB_TUN_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>
#include "packet.h"
#include "userpong.h"

/*
 * Open /dev/net/tun and create, or attach to, the device name (NULL or ""
 * lets the kernel pick) as a TUN (tap false: IFF_TUN) or TAP, IFF_NO_PI.
 * The chosen name goes to actual (IFNAMSIZ bytes) if not NULL. Returns the
 * fd, or -errno.
 */
int tun_open(const char *name, bool tap, char *actual);

/* Set IFF_UP on ifname. 0 or -errno. */
int tun_link_up(const char *ifname);

/* Add addr/len to ifindex (RTM_NEWADDR; IPv6 without DAD). 0 or -errno. */
int tun_addr_add(int ifindex, const struct prefix *p);

/*
 * The destinations a user-space stack behind the TUN ifindex stands for:
 * for each address, its peer prefix (ip addr add A peer B/LEN: B/LEN) or
 * on-link prefix (A/LEN) as XDPONG_ADDR_IFACE, A itself as
 * UP_ADDR_NOT_OURS (packets to A stay in the kernel), a broadcast address
 * as XDPONG_ADDR_BROADCAST. At most cap entries into out. 0 or -errno.
 */
int tun_addrs(int ifindex, struct up_addr *out, size_t *n, size_t cap);

/*
 * A netlink socket subscribed to address changes, non-blocking: poll it,
 * or call tun_addr_changed() to learn whether anything changed since.
 */
int tun_addr_watch_open(void);
/* Drain the watch socket; true if any address change (or overflow) was queued. */
bool tun_addr_changed(int fd);

#endif /* XDPONG_LIB_TUN_H */
