// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpong's echo rules in user space and TUN helpers: see userpong.h. */
#include <arpa/inet.h>
#include <ctype.h>
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

#include "userpong.h"

#define R(name) XDPONG_R_##name

#define X_NAME(name, outcome, desc) #name,
#define X_DESC(name, outcome, desc) desc,
#define X_OUTCOME(name, outcome, desc) XDPONG_##outcome,
const char *const up_reason_names[XDPONG_R_MAX] = { XDPONG_REASONS(X_NAME) };
const char *const up_reason_descs[XDPONG_R_MAX] = { XDPONG_REASONS(X_DESC) };
const int up_reason_outcomes[XDPONG_R_MAX] = { XDPONG_REASONS(X_OUTCOME) };
#undef X_NAME
#undef X_DESC
#undef X_OUTCOME
const char *const up_outcome_names[3] = { "replied", "passed", "dropped" };

uint16_t up_csum_update16(uint16_t csum, uint16_t m, uint16_t m_new)
{
	uint64_t sum = (uint16_t)~csum + (uint16_t)~m + (uint64_t)m_new;

	return (uint16_t)~pkt_csum_fold(sum);
}

uint32_t up_addr_origin(const struct up_config *cfg, int family, const uint8_t *addr)
{
	uint32_t origin = 0;
	int best = -1;

	for (size_t i = 0; i < cfg->n_addrs; i++) {
		const struct up_addr *a = &cfg->addrs[i];

		/* Longest prefix wins, as in the kernel's LPM trie. */
		if ((int)a->prefix.len > best &&
		    pkt_prefix_match(&a->prefix, 1, family, addr)) {
			best = (int)a->prefix.len;
			origin = a->origin;
		}
	}
	return origin;
}

const char *up_origin_name(uint32_t origin)
{
	switch (origin) {
	case XDPONG_ADDR_IFACE:
		return "iface";
	case XDPONG_ADDR_OPERATOR:
		return "operator";
	case XDPONG_ADDR_BROADCAST:
		return "broadcast";
	}
	return "not ours";
}

/* Is dst ours to answer? If not, *why says which reason the packet gets. */
static bool dst_is_ours(const struct up_config *cfg, int family, const uint8_t *dst,
			enum xdpong_reason *why)
{
	if (cfg->any_dst)
		return true;
	switch (up_addr_origin(cfg, family, dst)) {
	case XDPONG_ADDR_IFACE:
	case XDPONG_ADDR_OPERATOR:
		return true;
	case XDPONG_ADDR_BROADCAST: /* a subnet broadcast in a unicast frame */
		*why = R(pass_dst_group);
		return false;
	}
	*why = R(pass_dst_not_local);
	return false;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static enum xdpong_reason answer4(const struct up_config *cfg, uint8_t *ip,
				  size_t len)
{
	static const uint8_t all_ones[4] = { 255, 255, 255, 255 };
	size_t hl, tot, icmp_len;
	enum xdpong_reason r;
	uint16_t csum, m;
	uint8_t *icmp, s0, tmp[4];
	uint32_t origin;

	if (len < PKT_IP4_HLEN)
		return R(drop_truncated);
	if (ip[0] >> 4 != 4)
		return R(drop_bad_version);
	hl = (size_t)(ip[0] & 15) * 4;
	if (hl < PKT_IP4_HLEN)
		return R(drop_bad_ihl);
	tot = pkt_get_be16(ip + 2);
	if (tot < hl || tot > len)
		return R(drop_bad_length);
	if (hl > PKT_IP4_HLEN)
		return R(pass_ip_options);
	/* RFC 1071: a header with a correct checksum sums to 0xffff. */
	if (pkt_csum_fold(pkt_csum_partial(ip, PKT_IP4_HLEN, 0)) != 0xffff)
		return R(drop_bad_ip_csum);
	if (ip[9] != PKT_PROTO_ICMP)
		return R(pass_not_icmp);
	if (pkt_get_be16(ip + 6) & 0x3fff) /* MF or a fragment offset */
		return R(pass_fragment);
	if ((ip[16] & 0xf0) == 0xe0 || !memcmp(ip + 16, all_ones, 4))
		return R(pass_dst_group);
	if (!dst_is_ours(cfg, 4, ip + 16, &r))
		return r;
	icmp_len = tot - PKT_IP4_HLEN;
	if (icmp_len < PKT_ICMP_HLEN)
		return R(drop_bad_length);
	icmp = ip + PKT_IP4_HLEN;
	if (icmp[0] != PKT_ICMP_ECHO)
		return R(pass_not_echo);
	/* Martian sources (RFC 1812 5.3.7): 0/8, 127/8, 224/4, broadcast. */
	s0 = ip[12];
	if (s0 == 0 || s0 == 127 || (s0 & 0xf0) == 0xe0 ||
	    !memcmp(ip + 12, all_ones, 4))
		return R(drop_martian_src);
	if ((s0 & 0xf0) == 0xf0)
		return R(pass_src_reserved);
	/* Linux drops its own address (accept_local=0) or a subnet broadcast as source. */
	origin = up_addr_origin(cfg, 4, ip + 12);
	if (origin == XDPONG_ADDR_IFACE || origin == XDPONG_ADDR_BROADCAST)
		return R(drop_martian_src);
	if (cfg->max_icmp_len && icmp_len > cfg->max_icmp_len)
		return R(pass_too_big);
	if (pkt_csum_fold(pkt_csum_partial(icmp, icmp_len, 0)) != 0xffff)
		return R(drop_bad_icmp_csum);

	/* RFC 792 echo reply: addresses swapped, type 0, TTL 64, rest kept. */
	memcpy(tmp, ip + 12, 4);
	memcpy(ip + 12, ip + 16, 4);
	memcpy(ip + 16, tmp, 4);
	m = pkt_get_be16(ip + 8); /* TTL and protocol share a word */
	ip[8] = PKT_REPLY_HOPS;
	pkt_put_be16(ip + 10, up_csum_update16(pkt_get_be16(ip + 10), m, pkt_get_be16(ip + 8)));
	m = pkt_get_be16(icmp);
	icmp[0] = PKT_ICMP_ECHOREPLY;
	csum = up_csum_update16(pkt_get_be16(icmp + 2), m, pkt_get_be16(icmp));
	/* Eqn 3 gives 0x0000 for an all-zero reply; RFC 1071 wants 0xffff. */
	if (csum == 0 && all_zero(icmp, 2) && all_zero(icmp + 4, icmp_len - 4))
		csum = 0xffff;
	pkt_put_be16(icmp + 2, csum);
	return R(reply_echo4);
}

static bool ipv6_is_ext_header(uint8_t nexthdr)
{
	switch (nexthdr) {
	case 0:   /* hop-by-hop options */
	case 43:  /* routing */
	case 44:  /* fragment */
	case 50:  /* ESP */
	case 51:  /* AH */
	case 60:  /* destination options */
	case 135: /* mobility */
	case 139: /* HIP */
	case 140: /* shim6 */
	case 253: /* experiments (RFC 3692) */
	case 254:
		return true;
	}
	return false;
}

static enum xdpong_reason answer6(const struct up_config *cfg, uint8_t *ip,
				  size_t len)
{
	uint8_t *src = ip + 8, *dst = ip + 24, *icmp, tmp[16];
	enum xdpong_reason r;
	size_t plen;
	uint16_t m;

	if (len < PKT_IP6_HLEN)
		return R(drop_truncated);
	if (ip[0] >> 4 != 6)
		return R(drop_bad_version);
	plen = pkt_get_be16(ip + 4);
	if (PKT_IP6_HLEN + plen > len)
		return R(drop_bad_length);
	/* Multicast echo: a kernel answers those from a unicast source. */
	if (dst[0] == 0xff)
		return R(pass_dst_group);
	if (ip[6] != PKT_PROTO_ICMPV6)
		return ipv6_is_ext_header(ip[6]) ? R(pass_ipv6_ext) : R(pass_not_icmp);
	if (!dst_is_ours(cfg, 6, dst, &r))
		return r;
	if (plen < PKT_ICMP_HLEN)
		return R(drop_bad_length);
	icmp = ip + PKT_IP6_HLEN;
	if (icmp[0] != PKT_ICMPV6_ECHO_REQUEST)
		return R(pass_not_echo);
	/* RFC 4291 2.7, 2.5.2, 2.5.3: multicast, :: and ::1 are no sources. */
	if (src[0] == 0xff || (all_zero(src, 15) && src[15] <= 1))
		return R(drop_martian_src);
	if (cfg->max_icmp_len && plen > cfg->max_icmp_len)
		return R(pass_too_big);
	/* RFC 8200 8.1: the checksum covers a pseudo-header too. */
	if (pkt_csum_fold(pkt_csum_pseudo6(src, dst, (uint32_t)plen,
					   PKT_PROTO_ICMPV6) +
			  pkt_csum_partial(icmp, plen, 0)) != 0xffff)
		return R(drop_bad_icmp_csum);

	/* RFC 4443 4.2: swapping the addresses leaves the pseudo-header sum alone. */
	memcpy(tmp, src, 16);
	memcpy(src, dst, 16);
	memcpy(dst, tmp, 16);
	ip[7] = PKT_REPLY_HOPS; /* hop limit: not in the pseudo-header */
	m = pkt_get_be16(icmp);
	icmp[0] = PKT_ICMPV6_ECHO_REPLY;
	/* The pseudo-header's next header (58) keeps the sum off the zero corner. */
	pkt_put_be16(icmp + 2, up_csum_update16(pkt_get_be16(icmp + 2), m, pkt_get_be16(icmp)));
	return R(reply_echo6);
}

enum xdpong_reason up_answer(const struct up_config *cfg, uint8_t *pkt, size_t len)
{
	if (len < 1)
		return R(drop_truncated);
	/* IP framing: the version nibble says the family, as in the XDP program. */
	if (pkt[0] >> 4 == 6)
		return answer6(cfg, pkt, len);
	return answer4(cfg, pkt, len);
}

/* ---- hex ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

long up_hex_parse(const char *text, uint8_t *buf, size_t cap, char *why,
		  size_t why_len)
{
	const char *p = text, *tok, *end;
	size_t n = 0;

	while (*p) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		tok = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		end = p;
		if (end[-1] == ':') /* an offset label such as tcpdump's "0x0010:" */
			continue;
		if (end - tok >= 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X'))
			tok += 2;
		if (tok == end) {
			snprintf(why, why_len, "'0x' without digits");
			return -1;
		}
		if ((end - tok) % 2) {
			snprintf(why, why_len, "odd number of hex digits in '%.*s'",
				 (int)(end - tok > 40 ? 40 : end - tok), tok);
			return -1;
		}
		for (; tok < end; tok += 2) {
			int hi = hexval(tok[0]), lo = hexval(tok[1]);

			if (hi < 0 || lo < 0) {
				snprintf(why, why_len,
					 "'%c' at offset %zu is not a hex digit",
					 hi < 0 ? tok[0] : tok[1],
					 (size_t)(tok - text) + (hi < 0 ? 0 : 1));
				return -1;
			}
			if (n >= cap) {
				snprintf(why, why_len, "longer than %zu bytes", cap);
				return -1;
			}
			buf[n++] = (uint8_t)(hi << 4 | lo);
		}
	}
	if (!n) {
		snprintf(why, why_len, "no hex digits");
		return -1;
	}
	return (long)n;
}

void up_hex_write(FILE *f, const uint8_t *buf, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		putc(digits[buf[i] >> 4], f);
		putc(digits[buf[i] & 15], f);
	}
}

/* ---- TUN and netlink ---- */

int up_tun_open(const char *name, bool tap, char *actual)
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

int up_link_up(const char *ifname)
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
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int up_addr_add(int ifindex, const struct pkt_prefix *p)
{
	union {
		struct {
			struct nlmsghdr nh;
			struct ifaddrmsg ifa;
		};
		char msg[256];
	} req;
	char buf[4096];
	size_t alen = p->family == 4 ? 4 : 16;
	__u32 flags = IFA_F_NODAD;
	struct nlmsghdr *nh;
	int fd, e;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifa));
	req.nh.nlmsg_type = RTM_NEWADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	req.nh.nlmsg_seq = 1;
	req.ifa.ifa_family = p->family == 4 ? AF_INET : AF_INET6;
	req.ifa.ifa_prefixlen = (unsigned char)p->len;
	req.ifa.ifa_index = (unsigned int)ifindex;
	rta_add(req.msg, IFA_LOCAL, p->addr, alen);
	rta_add(req.msg, IFA_ADDRESS, p->addr, alen);
	if (p->family == 6) /* a TUN has no neighbours to detect duplicates with */
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

static void addr_put(struct up_addr *out, size_t *n, size_t cap, int family,
		     const void *addr, unsigned int len, uint32_t origin)
{
	struct up_addr *a;

	if (*n >= cap)
		return;
	a = &out[(*n)++];
	memset(a, 0, sizeof(*a));
	a->prefix.family = family;
	memcpy(a->prefix.addr, addr, family == 4 ? 4 : 16);
	a->prefix.len = len;
	a->origin = origin;
}

int up_tun_addrs(int ifindex, struct up_addr *out, size_t *n, size_t cap)
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
			if (nh->nlmsg_type != RTM_NEWADDR ||
			    (int)ifa->ifa_index != ifindex ||
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

int up_addr_watch_open(void)
{
	int fd = nl_open(RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR);

	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

bool up_addr_changed(int fd)
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

const char *up_prefix_str(const struct pkt_prefix *p, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->family == 4 ? AF_INET : AF_INET6, p->addr, a, sizeof(a));
	snprintf(buf, size, "%s/%u", a, p->len);
	return buf;
}
