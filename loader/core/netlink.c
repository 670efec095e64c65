// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink queries: interfaces and their addresses. Never sysfs: under
 * `nsenter --net` /sys still describes the host's interfaces.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <net/if_arp.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "nlsock.h"
#include "core.h"

#ifndef IFLA_TARGET_NETNSID
#define IFLA_TARGET_NETNSID IFLA_IF_NETNSID
#endif

struct nl_req {
	struct nlmsghdr nh;
	union {
		struct ifinfomsg ifi;
		struct ifaddrmsg ifa;
	};
	char attrs[64];
};

/* NLMSG_OK for a signed length (left < 0 after a short last message). */
static bool nl_msg_ok(const struct nlmsghdr *nh, int left)
{
	return left >= (int)sizeof(*nh) && nh->nlmsg_len >= sizeof(*nh) &&
	       (long)nh->nlmsg_len <= left;
}

static int nl_open(void)
{
	return nl_socket(0, 0);
}

static void nl_add_attr(struct nl_req *req, unsigned short type, const void *data,
			unsigned short len)
{
	size_t off = NLMSG_ALIGN(req->nh.nlmsg_len) - offsetof(struct nl_req, attrs);
	struct rtattr *rta;

	if (off + RTA_SPACE(len) > sizeof(req->attrs))
		return; /* cannot happen: requests carry a few small attributes */
	rta = (struct rtattr *)(req->attrs + off);
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	req->nh.nlmsg_len = NLMSG_ALIGN(req->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* Send req and feed every reply message to cb until DONE or the one answer. */
static int nl_talk(struct nlmsghdr *req, int (*cb)(struct nlmsghdr *nh, void *arg), void *arg)
{
	static char buf[32768];
	int fd, ret = 0, done = 0;
	__u32 seq;

	fd = nl_open();
	if (fd < 0)
		return fd;
	seq = req->nlmsg_seq = (__u32)getpid() ^ 0x5a5a;
	if (send(fd, req, req->nlmsg_len, 0) < 0) {
		ret = -errno;
		goto out;
	}
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		/* A signed length: a short last message must end the walk. */
		int left = (int)n;

		for (nh = (void *)buf; nl_msg_ok(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				ret = e->error;
				done = 1;
				break;
			}
			if (!ret)
				ret = cb(nh, arg);
			if (!(nh->nlmsg_flags & NLM_F_MULTI))
				done = 1;
		}
	}
out:
	close(fd);
	return ret;
}

/*
 * Attributes are read by one rule, docs/input-rules.md "Netlink messages"
 * (tests/fuzz-parsers/fuzz_netlink.c checks this file against it). It is
 * the kernel's own liberal validation (lib/nlattr.c, validate_nla for
 * nla_parse_deprecated) and libnl's nla_parse with a policy:
 *  - a fixed-size attribute shorter than its type makes the message
 *    malformed: refused whole (-EBADMSG), nothing of it is used;
 *  - a longer one is read from its leading bytes;
 *  - a string longer than the field that holds it is malformed too
 *    (IFLA_IFNAME: at most IFNAMSIZ - 1 characters, as the kernel says);
 *  - bytes after the last whole attribute, at the top or in a nest, end
 *    the walk and are ignored; of a repeated attribute the last counts.
 * Each reader returns false when the attribute is malformed.
 */
static bool rta_fixed(const struct rtattr *a, void *out, size_t size)
{
	if (RTA_PAYLOAD(a) < size)
		return false;
	memcpy(out, RTA_DATA(a), size);
	return true;
}

static bool rta_u32(const struct rtattr *a, void *out)
{
	return rta_fixed(a, out, sizeof(__u32));
}

/* Up to the first NUL or the payload's end; it must fit in size - 1. */
static bool rta_str(const struct rtattr *a, char *out, size_t size)
{
	size_t n = strnlen(RTA_DATA(a), RTA_PAYLOAD(a));

	if (n >= size)
		return false;
	memcpy(out, RTA_DATA(a), n);
	out[n] = '\0';
	return true;
}

static bool parse_linkinfo(struct rtattr *nest, struct link_info *li)
{
	int len = RTA_PAYLOAD(nest);
	bool ok = true;

	for (struct rtattr *a = RTA_DATA(nest); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_INFO_KIND)
			ok &= rta_str(a, li->kind, sizeof(li->kind));
	}
	return ok;
}

static bool parse_xdp(struct rtattr *nest, struct link_info *li)
{
	int len = RTA_PAYLOAD(nest);
	bool ok = true;

	for (struct rtattr *a = RTA_DATA(nest); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_XDP_ATTACHED)
			ok &= rta_fixed(a, &li->xdp_attached, sizeof(li->xdp_attached));
		else if (a->rta_type == IFLA_XDP_PROG_ID)
			ok &= rta_u32(a, &li->xdp_prog_id);
		else if (a->rta_type == IFLA_XDP_DRV_PROG_ID)
			ok &= rta_u32(a, &li->xdp_drv_prog_id);
		else if (a->rta_type == IFLA_XDP_SKB_PROG_ID)
			ok &= rta_u32(a, &li->xdp_skb_prog_id);
		else if (a->rta_type == IFLA_XDP_HW_PROG_ID)
			ok &= rta_u32(a, &li->xdp_hw_prog_id);
	}
	return ok;
}

static int link_cb(struct nlmsghdr *nh, void *arg)
{
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	struct link_info *li = arg;
	int len = IFLA_PAYLOAD(nh);
	bool ok = true;

	if (nh->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return -EBADMSG;
	memset(li, 0, sizeof(*li));
	li->ifindex = ifi->ifi_index;
	li->type = ifi->ifi_type;
	li->flags = ifi->ifi_flags;
	li->link_netnsid = -1;
	for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case IFLA_IFNAME:
			ok &= rta_str(a, li->name, sizeof(li->name));
			break;
		case IFLA_ADDRESS:
			/* Its length is the link's: only an Ethernet MAC is ours. */
			li->has_mac = RTA_PAYLOAD(a) == 6;
			if (li->has_mac)
				memcpy(li->mac, RTA_DATA(a), 6);
			break;
		case IFLA_MTU:
			ok &= rta_u32(a, &li->mtu);
			break;
		case IFLA_LINK:
			ok &= rta_u32(a, &li->link_ifindex);
			break;
		case IFLA_LINK_NETNSID:
			ok &= rta_u32(a, &li->link_netnsid);
			break;
		case IFLA_MASTER:
			ok &= rta_u32(a, &li->master);
			break;
		case IFLA_LINKINFO:
			ok &= parse_linkinfo(a, li);
			break;
		case IFLA_XDP:
			ok &= parse_xdp(a, li);
			break;
		}
	}
	if (!ok) {
		memset(li, 0, sizeof(*li));
		return -EBADMSG;
	}
	/* With one program attached the kernel names its mode, not DRV_PROG_ID. */
	if (li->xdp_attached == XDP_ATTACHED_DRV && !li->xdp_drv_prog_id)
		li->xdp_drv_prog_id = li->xdp_prog_id;
	/* IFLA_LINK of a non-veth points at a lower device, not a peer. */
	if (strcmp(li->kind, "veth"))
		li->link_ifindex = 0;
	return 0;
}

static int link_query(const char *name, int ifindex, int netnsid, struct link_info *out)
{
	struct nl_req req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.nh.nlmsg_type = RTM_GETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.ifi.ifi_family = AF_UNSPEC,
		.ifi.ifi_index = ifindex,
	};
	__u32 filter = RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS;
	int ret;

	if (!ifindex && name)
		nl_add_attr(&req, IFLA_IFNAME, name, strlen(name) + 1);
	if (netnsid >= 0)
		nl_add_attr(&req, IFLA_TARGET_NETNSID, &netnsid, sizeof(netnsid));
	nl_add_attr(&req, IFLA_EXT_MASK, &filter, sizeof(filter));
	memset(out, 0, sizeof(*out));
	ret = nl_talk(&req.nh, link_cb, out);
	if (ret == -ENODEV || (!ret && !out->ifindex))
		return -ENODEV;
	return ret;
}

int link_get(const char *name, int ifindex, struct link_info *out)
{
	return link_query(name, ifindex, -1, out);
}

int link_get_peer(const struct link_info *veth, struct link_info *peer)
{
	if (!veth->link_ifindex)
		return -ENOENT;
	return link_query(NULL, veth->link_ifindex, veth->link_netnsid, peer);
}

struct addr_walk {
	int ifindex;
	bool others;
	int (*cb)(const struct prefix *addr, int ifindex, __u32 ifa_flags, void *arg);
	void *arg;
};

static int addr_cb(struct nlmsghdr *nh, void *arg)
{
	struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	struct addr_walk *w = arg;
	int len = IFA_PAYLOAD(nh);
	/* IFA_LOCAL, IFA_ADDRESS, IFA_BROADCAST: the family's size each. */
	__u8 local[16] = { 0 }, address[16] = { 0 }, brd[4] = { 0 };
	bool has_local = false, has_address = false, has_brd = false, ok = true;
	struct prefix p = { 0 };
	__u32 flags;
	size_t alen;
	int ret;

	if (nh->nlmsg_type != RTM_NEWADDR)
		return 0;
	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return -EBADMSG;
	if ((int)ifa->ifa_index != w->ifindex && (!w->others || ifa->ifa_scope >= RT_SCOPE_LINK))
		return 0;
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return 0;
	alen = ifa->ifa_family == AF_INET ? 4 : 16;
	flags = ifa->ifa_flags;
	for (struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFA_LOCAL)
			ok &= has_local = rta_fixed(a, local, alen);
		else if (a->rta_type == IFA_ADDRESS)
			ok &= has_address = rta_fixed(a, address, alen);
		else if (a->rta_type == IFA_FLAGS)
			ok &= rta_u32(a, &flags);
		/* IPv6 has no broadcast address: not an attribute of its own. */
		else if (a->rta_type == IFA_BROADCAST && ifa->ifa_family == AF_INET)
			ok &= has_brd = rta_fixed(a, brd, 4);
	}
	if (!ok)
		return -EBADMSG;
	/* IFA_LOCAL is ours; on point-to-point links IFA_ADDRESS is the peer's. */
	if (!has_local && !has_address)
		return 0;
	p.family = ifa->ifa_family;
	p.len = alen * 8;
	memcpy(p.addr, has_local ? local : address, alen);
	ret = w->cb(&p, (int)ifa->ifa_index, flags, w->arg);
	if (ret || !has_brd)
		return ret;
	memcpy(p.addr, brd, 4);
	return w->cb(&p, (int)ifa->ifa_index, flags | ADDR_CB_BROADCAST, w->arg);
}

int addr_dump(int ifindex, bool others,
	      int (*cb)(const struct prefix *addr, int ifindex, __u32 ifa_flags, void *arg),
	      void *arg)
{
	struct addr_walk w = { .ifindex = ifindex, .others = others, .cb = cb, .arg = arg };
	struct nl_req req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
		.nh.nlmsg_type = RTM_GETADDR,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.ifa.ifa_family = AF_UNSPEC,
	};

	return nl_talk(&req.nh, addr_cb, &w);
}

int iface_lookup(const char *name, struct link_info *li)
{
	int ret;

	if (!name || !*name)
		return log_error("missing interface name");
	if (strlen(name) >= IF_NAMESIZE)
		return log_error("interface name '%s' is too long (at most %d characters)", name,
				 IF_NAMESIZE - 1);
	ret = link_get(name, 0, li);
	if (ret == -ENODEV)
		return log_error("interface '%s' not found in this network namespace (see 'ip "
				 "link')",
				 name);
	if (ret)
		return log_error("cannot read interface '%s': %s", name, strerror(-ret));
	return 0;
}

__u32 netns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (__u32)st.st_ino;
}

/* ---- following changes: the link and address multicast groups ---- */

int monitor_open(void)
{
	return nl_socket(RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR, SOCK_NONBLOCK);
}

/* Drain the socket; say what concerns ifindex. */
int monitor_read_all(int fd, void (*cb)(int ifindex, int ev, void *arg), void *arg)
{
	static char buf[65536];
	int n_msgs = 0;

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
				cb(0, EV_OVERRUN, arg);
			break;
		}
		/* A signed length: a short last message must end the walk. */
		int left = (int)n;

		for (nh = (void *)buf; nl_msg_ok(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_type == RTM_NEWADDR || nh->nlmsg_type == RTM_DELADDR) {
				struct ifaddrmsg *ifa = NLMSG_DATA(nh);

				if (nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifa)))
					cb((int)ifa->ifa_index, EV_ADDRS, arg);
			} else if (nh->nlmsg_type == RTM_DELLINK || nh->nlmsg_type == RTM_NEWLINK) {
				struct ifinfomsg *ifi = NLMSG_DATA(nh);

				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
					continue;
				cb(ifi->ifi_index,
				   nh->nlmsg_type == RTM_DELLINK ? EV_LINK_GONE : EV_LINK, arg);
			}
			n_msgs++;
		}
	}
	return n_msgs;
}
