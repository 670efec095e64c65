// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the loader's rtnetlink message parsers, which are
 * static, so their files are included here (nothing in them is edited):
 *   loader/netlink.c link_cb  (RTM_NEWLINK -> struct link_info)
 *   loader/netlink.c addr_cb  (RTM_NEWADDR -> the address callback)
 *   loader/netlink.c monitor_read (the events `xdpong run` follows)
 *
 * Input: byte 0 picks the parser (mod 3), byte 1 is the ifindex the loader
 * is interested in, the rest is a buffer of netlink messages as recv()
 * returns it. Each is checked against a reference reading of the same
 * messages, with AddressSanitizer watching every read (the buffer is
 * allocated to its exact size).
 *
 * link_cb and addr_cb are fed as nl_talk feeds them: up to a DONE or
 * ERROR message. By default inputs are first held to what the kernel
 * sends on these sockets (link and address messages, DONE, ERROR; each
 * with its fixed header and an aligned length, attributes tiling their
 * space, fixed-size attributes of their size, IFLA_IFNAME ending in a
 * NUL); inputs that break it are skipped. XDPONG_FUZZ_NL_RAW=1 drops that filter, to see
 * how the parsers cope with messages the kernel never sends.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include "fuzz.h"
/* gcc is their compiler of record: clang's own warnings must not stop us. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"
#include "../../loader/netlink.c"

#pragma clang diagnostic pop

static int raw_mode = -1;

/* NLMSG_OK/NLMSG_NEXT for a signed remaining length. */
static bool msg_ok(const struct nlmsghdr *nh, int len)
{
	return len >= (int)sizeof(*nh) && nh->nlmsg_len >= sizeof(*nh) &&
	       nh->nlmsg_len <= (unsigned int)len;
}

static const struct nlmsghdr *msg_next(const struct nlmsghdr *nh, int *len)
{
	*len -= NLMSG_ALIGN(nh->nlmsg_len);
	return (const void *)((const char *)nh + NLMSG_ALIGN(nh->nlmsg_len));
}

/* ---- the kernel's guarantees ---- */

static bool attrs_tile(const struct rtattr *a, int len)
{
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		;
	return len == 0;
}

static bool fixed_size(const struct rtattr *a, unsigned int size)
{
	return RTA_PAYLOAD(a) == size;
}

static bool nested_ok(const struct rtattr *nest, int kind)
{
	int len = RTA_PAYLOAD(nest);
	const struct rtattr *a = RTA_DATA(nest);

	if (!attrs_tile(a, len))
		return false;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (kind == IFLA_XDP && a->rta_type == IFLA_XDP_ATTACHED &&
		    !fixed_size(a, 1))
			return false;
		if (kind == IFLA_XDP && a->rta_type == IFLA_XDP_PROG_ID &&
		    !fixed_size(a, 4))
			return false;
	}
	return true;
}

static bool link_msg_ok(const struct nlmsghdr *nh)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	const struct rtattr *a;
	int len;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return false;
	len = IFLA_PAYLOAD(nh);
	a = IFLA_RTA(ifi);
	if (!attrs_tile(a, len))
		return false;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case IFLA_IFNAME:
			if (!memchr(RTA_DATA(a), 0, RTA_PAYLOAD(a)))
				return false;
			break;
		case IFLA_MTU:
		case IFLA_LINK:
		case IFLA_LINK_NETNSID:
			if (!fixed_size(a, 4))
				return false;
			break;
		case IFLA_LINKINFO:
		case IFLA_XDP:
			if (!nested_ok(a, a->rta_type))
				return false;
			break;
		}
	}
	return true;
}

static bool addr_msg_ok(const struct nlmsghdr *nh)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	const struct rtattr *a;
	int len;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return false;
	len = IFA_PAYLOAD(nh);
	a = IFA_RTA(ifa);
	if (!attrs_tile(a, len))
		return false;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFA_FLAGS && !fixed_size(a, 4))
			return false;
		/* Only IPv4 addresses have a broadcast address. */
		if (a->rta_type == IFA_BROADCAST &&
		    (ifa->ifa_family != AF_INET || !fixed_size(a, 4)))
			return false;
	}
	return true;
}

static bool kernel_would_send(const void *buf, int n)
{
	for (const struct nlmsghdr *nh = buf; msg_ok(nh, n); nh = msg_next(nh, &n)) {
		/* Attributes are padded, so every message ends aligned. */
		if (NLMSG_ALIGN(nh->nlmsg_len) > (unsigned int)n)
			return false;
		/* Link and address messages, and the two that end a dump. */
		switch (nh->nlmsg_type) {
		case RTM_NEWLINK:
		case RTM_DELLINK:
			if (!link_msg_ok(nh))
				return false;
			break;
		case RTM_NEWADDR:
		case RTM_DELADDR:
			if (!addr_msg_ok(nh))
				return false;
			break;
		case NLMSG_DONE:
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(int)))
				return false;
			break;
		case NLMSG_ERROR:
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* As nl_talk does: a dump ends at DONE or ERROR, which no callback sees. */
static bool talk_ends(const struct nlmsghdr *nh)
{
	return nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR;
}

/* ---- link_cb ---- */

/* A 4-byte attribute's value, reading no further than its payload. */
static __u32 attr_u32(const struct rtattr *a)
{
	__u32 v = 0;
	size_t n = RTA_PAYLOAD(a);

	memcpy(&v, RTA_DATA(a), n < 4 ? n : 4);
	return v;
}

/* The reference: what the last RTM_NEWLINK says, attribute by attribute. */
static bool ref_link(const void *buf, int n, struct link_info *li)
{
	bool seen = false;

	for (const struct nlmsghdr *nh = buf; msg_ok(nh, n) && !talk_ends(nh);
	     nh = msg_next(nh, &n)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(nh);
		int len = IFLA_PAYLOAD(nh);

		if (nh->nlmsg_type != RTM_NEWLINK)
			continue;
		seen = true;
		memset(li, 0, sizeof(*li));
		li->ifindex = ifi->ifi_index;
		li->type = ifi->ifi_type;
		li->flags = ifi->ifi_flags;
		li->link_netnsid = -1;
		for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len);
		     a = RTA_NEXT(a, len)) {
			const void *d = RTA_DATA(a);
			int nlen;

			switch (a->rta_type) {
			case IFLA_IFNAME:
				nlen = strnlen(d, RTA_PAYLOAD(a));
				if (nlen >= (int)sizeof(li->name))
					nlen = sizeof(li->name) - 1;
				memset(li->name, 0, sizeof(li->name));
				memcpy(li->name, d, nlen);
				break;
			case IFLA_ADDRESS:
				if (RTA_PAYLOAD(a) == 6) {
					memcpy(li->mac, d, 6);
					li->has_mac = true;
				}
				break;
			case IFLA_MTU:
				li->mtu = attr_u32(a);
				break;
			case IFLA_LINK:
				li->link_ifindex = attr_u32(a);
				break;
			case IFLA_LINK_NETNSID:
				li->link_netnsid = attr_u32(a);
				break;
			case IFLA_MASTER:
				li->master = attr_u32(a);
				break;
			case IFLA_LINKINFO:
			case IFLA_XDP:
				nlen = RTA_PAYLOAD(a);
				for (const struct rtattr *b = d; RTA_OK(b, nlen);
				     b = RTA_NEXT(b, nlen)) {
					size_t k = RTA_PAYLOAD(b);

					if (a->rta_type == IFLA_LINKINFO &&
					    b->rta_type == IFLA_INFO_KIND) {
						if (k >= sizeof(li->kind))
							k = sizeof(li->kind) - 1;
						memset(li->kind, 0, sizeof(li->kind));
						memcpy(li->kind, RTA_DATA(b), k);
					} else if (a->rta_type == IFLA_XDP &&
						   b->rta_type == IFLA_XDP_ATTACHED) {
						li->xdp_attached = attr_u32(b) & 0xff;
					} else if (a->rta_type == IFLA_XDP &&
						   b->rta_type == IFLA_XDP_PROG_ID) {
						li->xdp_prog_id = attr_u32(b);
					}
				}
				break;
			}
		}
		if (strcmp(li->kind, "veth"))
			li->link_ifindex = 0;
	}
	return seen;
}

static void check_link(const void *buf, int n)
{
	struct link_info got, want;
	int len = n;
	bool seen;

	memset(&got, 0, sizeof(got));
	for (const struct nlmsghdr *nh = buf; msg_ok(nh, len) && !talk_ends(nh);
	     nh = msg_next(nh, &len))
		FUZZ_CHECK(link_cb((struct nlmsghdr *)nh, &got) == 0,
			   "link_cb returned non-zero");
	seen = ref_link(buf, n, &want);
	FUZZ_CHECK(strnlen(got.name, sizeof(got.name)) < sizeof(got.name),
		   "name not terminated");
	FUZZ_CHECK(strnlen(got.kind, sizeof(got.kind)) < sizeof(got.kind),
		   "kind not terminated");
	if (!seen)
		return;
	FUZZ_CHECK(got.ifindex == want.ifindex && got.type == want.type &&
		   got.flags == want.flags, "ifinfomsg fields differ");
	FUZZ_CHECK(!strcmp(got.name, want.name), "name \"%s\", expected \"%s\"",
		   got.name, want.name);
	FUZZ_CHECK(!strcmp(got.kind, want.kind), "kind \"%s\", expected \"%s\"",
		   got.kind, want.kind);
	FUZZ_CHECK(got.has_mac == want.has_mac &&
		   (!got.has_mac || !memcmp(got.mac, want.mac, 6)), "MAC differs");
	FUZZ_CHECK(got.mtu == want.mtu, "mtu %u, expected %u", got.mtu, want.mtu);
	FUZZ_CHECK(got.link_ifindex == want.link_ifindex,
		   "peer ifindex %d, expected %d (kind \"%s\")", got.link_ifindex,
		   want.link_ifindex, want.kind);
	FUZZ_CHECK(got.link_netnsid == want.link_netnsid, "netnsid %d, expected %d",
		   got.link_netnsid, want.link_netnsid);
	FUZZ_CHECK(got.master == want.master, "master %d, expected %d", got.master, want.master);
	FUZZ_CHECK(got.xdp_attached == want.xdp_attached &&
		   got.xdp_prog_id == want.xdp_prog_id, "XDP state differs");
}

/* ---- addr_cb ---- */

#define MAX_ADDRS 64

struct addr_seen {
	struct prefix p[MAX_ADDRS];
	__u32 flags[MAX_ADDRS];
	int ifindex[MAX_ADDRS];
	int n;
};

static int collect_cb(const struct prefix *p, int ifindex, __u32 flags, void *arg)
{
	struct addr_seen *s = arg;

	if (s->n < MAX_ADDRS) {
		s->p[s->n] = *p;
		s->flags[s->n] = flags;
		s->ifindex[s->n] = ifindex;
	}
	s->n++;
	return 0;
}

/* others: every interface's too, but not their host- or link-scope ones. */
static void ref_addrs(const void *buf, int n, int ifindex, bool others, struct addr_seen *s)
{
	for (const struct nlmsghdr *nh = buf; msg_ok(nh, n) && !talk_ends(nh);
	     nh = msg_next(nh, &n)) {
		const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
		const struct rtattr *local = NULL, *address = NULL, *brd = NULL;
		int len = IFA_PAYLOAD(nh);
		struct prefix p = { 0 };
		__u32 flags = ifa->ifa_flags;

		if (nh->nlmsg_type != RTM_NEWADDR ||
		    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
			continue;
		if ((int)ifa->ifa_index != ifindex &&
		    (!others || ifa->ifa_scope == RT_SCOPE_HOST || ifa->ifa_scope == RT_SCOPE_LINK ||
		     ifa->ifa_scope == RT_SCOPE_NOWHERE))
			continue;
		for (const struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, len);
		     a = RTA_NEXT(a, len)) {
			if (a->rta_type == IFA_LOCAL)
				local = a;
			else if (a->rta_type == IFA_ADDRESS)
				address = a;
			else if (a->rta_type == IFA_FLAGS)
				flags = attr_u32(a);
			else if (a->rta_type == IFA_BROADCAST)
				brd = a;
		}
		if (!local)
			local = address;
		p.family = ifa->ifa_family;
		p.len = p.family == AF_INET ? 32 : 128;
		if (!local || RTA_PAYLOAD(local) != p.len / 8)
			continue;
		memcpy(p.addr, RTA_DATA(local), p.len / 8);
		collect_cb(&p, (int)ifa->ifa_index, flags, s);
		/* The subnet broadcast is reported too, marked as such. */
		if (!brd || RTA_PAYLOAD(brd) != 4)
			continue;
		memcpy(p.addr, RTA_DATA(brd), 4);
		collect_cb(&p, (int)ifa->ifa_index, flags | ADDR_CB_BROADCAST, s);
	}
}

static void check_addr(const void *buf, int n, int ifindex, bool others)
{
	struct addr_seen got = { .n = 0 }, want = { .n = 0 };
	struct addr_walk w = { .ifindex = ifindex, .others = others, .cb = collect_cb,
			       .arg = &got };
	int len = n;

	for (const struct nlmsghdr *nh = buf; msg_ok(nh, len) && !talk_ends(nh);
	     nh = msg_next(nh, &len))
		addr_cb((struct nlmsghdr *)nh, &w);
	ref_addrs(buf, n, ifindex, others, &want);
	FUZZ_CHECK(got.n == want.n, "%d addresses reported, expected %d", got.n, want.n);
	for (int i = 0; i < got.n && i < MAX_ADDRS; i++) {
		FUZZ_CHECK(!memcmp(&got.p[i], &want.p[i], sizeof(got.p[i])),
			   "address %d differs", i);
		FUZZ_CHECK(got.flags[i] == want.flags[i], "flags of address %d: %#x, expected %#x",
			   i, got.flags[i], want.flags[i]);
		FUZZ_CHECK(got.ifindex[i] == want.ifindex[i], "ifindex of address %d: %d, expected %d",
			   i, got.ifindex[i], want.ifindex[i]);
	}
}

/* ---- monitor_read ---- */

/*
 * Address messages of ifindex must give EV_ADDRS, its RTM_DELLINK
 * EV_LINK_GONE, and neither may appear without them; other bits (a link
 * change) only when some message concerns ifindex; nothing at all for
 * messages about other interfaces.
 */
static void check_monitor(const void *buf, int n, int ifindex)
{
	static int sv[2] = { -1, -1 };
	int want = EV_NONE, got, len = n;
	bool ours = false;

	if (sv[0] < 0 &&
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
		abort();
	for (const struct nlmsghdr *nh = buf; msg_ok(nh, len); nh = msg_next(nh, &len)) {
		bool addr = nh->nlmsg_type == RTM_NEWADDR || nh->nlmsg_type == RTM_DELADDR;
		bool link = nh->nlmsg_type == RTM_NEWLINK || nh->nlmsg_type == RTM_DELLINK;

		if (addr && nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifaddrmsg)) &&
		    (int)((const struct ifaddrmsg *)NLMSG_DATA(nh))->ifa_index == ifindex) {
			want |= EV_ADDRS;
			ours = true;
		}
		if (link && nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg)) &&
		    ((const struct ifinfomsg *)NLMSG_DATA(nh))->ifi_index == ifindex) {
			if (nh->nlmsg_type == RTM_DELLINK)
				want |= EV_LINK_GONE;
			ours = true;
		}
	}
	if (send(sv[1], buf, n, 0) != n)
		return; /* too big for one datagram: nothing to compare */
	got = monitor_read(sv[0], ifindex);
	FUZZ_CHECK((got & (EV_ADDRS | EV_LINK_GONE)) == want,
		   "monitor_read said %#x, expected %#x in bits %#x", got, want,
		   EV_ADDRS | EV_LINK_GONE);
	FUZZ_CHECK(ours || got == EV_NONE,
		   "monitor_read said %#x for messages about other interfaces", got);
	FUZZ_CHECK(!(got & EV_OVERRUN), "monitor_read reported an overrun");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf;
	int n, ifindex;

	if (size < 2 || size > 60000)
		return 0;
	if (raw_mode < 0)
		raw_mode = getenv("XDPONG_FUZZ_NL_RAW") != NULL;
	ifindex = data[1];
	n = size - 2;
	/* Exactly the message bytes, aligned as recv() buffers are. */
	buf = malloc(n ? n : 1);
	if (!buf)
		abort();
	memcpy(buf, data + 2, n);
	if (raw_mode || kernel_would_send(buf, n)) {
		switch (data[0] % 3) {
		case 0:
			check_link(buf, n);
			break;
		case 1:
			check_addr(buf, n, ifindex, (data[0] / 3) & 1);
			break;
		default:
			check_monitor(buf, n, ifindex);
			break;
		}
	}
	free(buf);
	return 0;
}
