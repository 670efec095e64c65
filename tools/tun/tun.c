// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TUN/TAP devices and their addresses: see tun.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "tun.h"
#include "nlsock.h" /* the one rtnetlink socket helper (lib/) */

int tun_open(const char *name, bool tap, char *actual)
{
	struct ifreq ifr;
	int fd, e;

	memset(&ifr, 0, sizeof(ifr));
	if (name && strlen(name) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	if (name)
		memcpy(ifr.ifr_name, name, strlen(name));
	/* No packet-info prefix: byte 0 is the IP (TUN) or Ethernet (TAP) header. */
	ifr.ifr_flags = (tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		e = -errno;
		close(fd);
		return e;
	}
	if (actual)
		memcpy(actual, ifr.ifr_name, IFNAMSIZ);
	return fd;
}

int tun_link_up(const char *ifname)
{
	struct ifreq ifr;
	int fd, e = 0;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		e = -errno;
	} else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			e = -errno;
	}
	close(fd);
	return e;
}

/* Append an attribute to the netlink message at msg (room checked by the caller). */
static void rta_add(char *msg, unsigned short type, const void *data, size_t len)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)msg;
	struct rtattr *rta = (struct rtattr *)(msg + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static int nl_open(unsigned int groups)
{
	return nl_socket(groups, 0);
}

int tun_addr_add(int ifindex, const struct prefix *p)
{
	union {
		struct {
			struct nlmsghdr nh;
			struct ifaddrmsg ifa;
		};
		char msg[256];
	} req;
	char buf[4096];
	size_t alen = p->family == AF_INET ? 4 : 16;
	__u32 flags = IFA_F_NODAD;
	struct nlmsghdr *nh;
	int fd, e;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifa));
	req.nh.nlmsg_type = RTM_NEWADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	req.nh.nlmsg_seq = 1;
	req.ifa.ifa_family = (unsigned char)p->family;
	req.ifa.ifa_prefixlen = (unsigned char)p->len;
	req.ifa.ifa_index = (unsigned int)ifindex;
	rta_add(req.msg, IFA_LOCAL, p->addr, alen);
	rta_add(req.msg, IFA_ADDRESS, p->addr, alen);
	if (p->family == AF_INET6) /* a TUN has no neighbours to detect duplicates with */
		rta_add(req.msg, IFA_FLAGS, &flags, sizeof(flags));
	fd = nl_open(0);
	if (fd < 0)
		return fd;
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0) {
		e = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		e = -errno;
		goto out;
	}
	nh = (struct nlmsghdr *)buf;
	e = -EPROTO;
	if (NLMSG_OK(nh, (size_t)n) && nh->nlmsg_type == NLMSG_ERROR)
		e = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
out:
	close(fd);
	return e;
}

static void addr_put(struct up_addr *out, size_t *n, size_t cap, int family, const void *addr,
		     unsigned int len, uint32_t origin)
{
	struct up_addr *a;

	if (*n >= cap)
		return;
	a = &out[(*n)++];
	memset(a, 0, sizeof(*a));
	a->prefix.family = family == 4 ? AF_INET : AF_INET6;
	memcpy(a->prefix.addr, addr, family == 4 ? 4 : 16);
	a->prefix.len = len;
	a->origin = origin;
}

int tun_addrs(int ifindex, struct up_addr *out, size_t *n, size_t cap)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
	} req;
	static char buf[32768];
	int fd, e = 0;
	bool done = false;

	*n = 0;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_GETADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = 1;
	req.ifa.ifa_family = AF_UNSPEC;
	fd = nl_open(0);
	if (fd < 0)
		return fd;
	if (send(fd, &req, sizeof(req), 0) < 0) {
		e = -errno;
		goto out;
	}
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (len < 0) {
			e = -errno;
			goto out;
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)len);
		     nh = NLMSG_NEXT(nh, len)) {
			struct ifaddrmsg *ifa = NLMSG_DATA(nh);
			const void *address = NULL, *local = NULL, *brd = NULL;
			struct rtattr *rta;
			int alen, family;

			if (nh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				e = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				goto out;
			}
			if (nh->nlmsg_type != RTM_NEWADDR || (int)ifa->ifa_index != ifindex ||
			    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
				continue;
			family = ifa->ifa_family == AF_INET ? 4 : 6;
			alen = (int)IFA_PAYLOAD(nh);
			for (rta = IFA_RTA(ifa); RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen)) {
				if (rta->rta_type == IFA_ADDRESS)
					address = RTA_DATA(rta);
				else if (rta->rta_type == IFA_LOCAL)
					local = RTA_DATA(rta);
				else if (rta->rta_type == IFA_BROADCAST)
					brd = RTA_DATA(rta);
			}
			if (!local) /* IPv6 without a peer: IFA_ADDRESS is the local one */
				local = address;
			if (!address)
				continue;
			/* The peer (or the on-link prefix) is behind the TUN; local is not. */
			addr_put(out, n, cap, family, address, ifa->ifa_prefixlen,
				 XDPONG_ADDR_IFACE);
			addr_put(out, n, cap, family, local, family == 4 ? 32 : 128,
				 UP_ADDR_NOT_OURS);
			if (brd)
				addr_put(out, n, cap, 4, brd, 32, XDPONG_ADDR_BROADCAST);
		}
	}
out:
	close(fd);
	return e;
}

int tun_addr_watch_open(void)
{
	int fd = nl_open(RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR);

	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

bool tun_addr_changed(int fd)
{
	char buf[8192];
	bool changed = false;

	for (int i = 0; i < 1024; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0) {
			changed = true;
			continue;
		}
		if (n < 0 && errno == ENOBUFS) { /* overflowed: something changed */
			changed = true;
			continue;
		}
		break;
	}
	return changed;
}
