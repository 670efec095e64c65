// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the loader's rtnetlink message parsers, which are
 * static, so their files are included here (nothing in them is edited):
 *   loader/core/netlink.c link_cb  (RTM_NEWLINK -> struct link_info)
 *   loader/core/netlink.c addr_cb  (RTM_NEWADDR -> the address callback)
 *   loader/core/netlink.c monitor_read_all (the events `xdpong run` follows)
 *
 * Input: byte 0 picks the parser (mod 3), byte 1 is the ifindex the loader
 * is interested in, the rest is a buffer of netlink messages as recv()
 * returns it. Each is checked against a reference reading of the same
 * messages, with AddressSanitizer watching every read (the buffer is
 * allocated to its exact size).
 *
 * link_cb and addr_cb are fed as nl_talk feeds them: up to a DONE or
 * ERROR message, or the first message a callback refuses. Inputs are not
 * held to what the kernel sends: the reference reads every input by the
 * rule of docs/input-rules.md ("Netlink messages"), malformed ones
 * included, so product and reference must agree on all of them.
 * Regression inputs are seeds in corpus/netlink.seeds.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include "fuzz.h"
/* gcc is their compiler of record: clang's own warnings must not stop us. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"
#include "../../loader/core/netlink.c"

#pragma clang diagnostic pop

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

/* As nl_talk does: a dump ends at DONE or ERROR, which no callback sees. */
static bool talk_ends(const struct nlmsghdr *nh)
{
	return nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR;
}

/* ---- the rule, as a table: what each attribute is ---- */

enum attr_kind {
	A_FIXED,  /* at least .size bytes, the leading ones read */
	A_STRING, /* to the first NUL or the end, shorter than .size */
	A_NEST,   /* attributes inside, by the same rule */
	A_MAC,    /* taken only when exactly 6 bytes; other lengths ignored */
};

struct attr_rule {
	int nest;   /* 0 at the top, else the nesting attribute */
	int type;
	enum attr_kind kind;
	size_t size;
};

static const struct attr_rule link_rules[] = {
	{ 0, IFLA_IFNAME, A_STRING, IF_NAMESIZE },
	{ 0, IFLA_ADDRESS, A_MAC, 6 },
	{ 0, IFLA_MTU, A_FIXED, 4 },
	{ 0, IFLA_LINK, A_FIXED, 4 },
	{ 0, IFLA_LINK_NETNSID, A_FIXED, 4 },
	{ 0, IFLA_MASTER, A_FIXED, 4 },
	{ 0, IFLA_LINKINFO, A_NEST, 0 },
	{ 0, IFLA_XDP, A_NEST, 0 },
	{ IFLA_LINKINFO, IFLA_INFO_KIND, A_STRING, 32 },
	{ IFLA_XDP, IFLA_XDP_ATTACHED, A_FIXED, 1 },
	{ IFLA_XDP, IFLA_XDP_PROG_ID, A_FIXED, 4 },
	{ IFLA_XDP, IFLA_XDP_DRV_PROG_ID, A_FIXED, 4 },
	{ IFLA_XDP, IFLA_XDP_SKB_PROG_ID, A_FIXED, 4 },
	{ IFLA_XDP, IFLA_XDP_HW_PROG_ID, A_FIXED, 4 },
};

static const struct attr_rule *rule_of(int nest, int type)
{
	for (size_t i = 0; i < sizeof(link_rules) / sizeof(link_rules[0]); i++)
		if (link_rules[i].nest == nest && link_rules[i].type == type)
			return &link_rules[i];
	return NULL;
}

/* Does attribute a, read by rule r, obey it? */
static bool attr_valid(const struct rtattr *a, const struct attr_rule *r)
{
	size_t n = RTA_PAYLOAD(a);
	const char *d = RTA_DATA(a);

	switch (r->kind) {
	case A_FIXED:
		return n >= r->size;
	case A_STRING: {
		size_t k = 0;

		while (k < n && d[k])
			k++;
		return k < r->size;
	}
	default:
		return true;
	}
}

/* The leading 4 (or fewer, for a smaller type) bytes, little-endian host. */
static __u32 attr_value(const struct rtattr *a, size_t size)
{
	__u32 v = 0;

	memcpy(&v, RTA_DATA(a), size);
	return v;
}

static void attr_string(const struct rtattr *a, char *out)
{
	size_t n = RTA_PAYLOAD(a), k;
	const char *d = RTA_DATA(a);

	for (k = 0; k < n && d[k]; k++)
		out[k] = d[k];
	out[k] = '\0';
}

/* ---- link_cb ---- */

/* One attribute (top level or nested in nest) into li; false if malformed. */
static bool ref_link_attr(int nest, const struct rtattr *a, struct link_info *li)
{
	const struct attr_rule *r = rule_of(nest, a->rta_type);
	bool ok = true;

	if (!r)
		return true;
	if (!attr_valid(a, r))
		return false;
	switch (r->kind) {
	case A_NEST: {
		int n = RTA_PAYLOAD(a);

		for (const struct rtattr *b = RTA_DATA(a); RTA_OK(b, n); b = RTA_NEXT(b, n))
			ok = ref_link_attr(a->rta_type, b, li) && ok;
		return ok;
	}
	case A_MAC:
		li->has_mac = RTA_PAYLOAD(a) == 6;
		if (li->has_mac)
			memcpy(li->mac, RTA_DATA(a), 6);
		return true;
	case A_STRING:
		attr_string(a, a->rta_type == IFLA_IFNAME ? li->name : li->kind);
		return true;
	case A_FIXED:
		break;
	}
	switch (a->rta_type + (nest << 16)) {
	case IFLA_MTU:
		li->mtu = attr_value(a, 4);
		break;
	case IFLA_LINK:
		li->link_ifindex = attr_value(a, 4);
		break;
	case IFLA_LINK_NETNSID:
		li->link_netnsid = attr_value(a, 4);
		break;
	case IFLA_MASTER:
		li->master = attr_value(a, 4);
		break;
	case IFLA_XDP_ATTACHED + (IFLA_XDP << 16):
		li->xdp_attached = attr_value(a, 1);
		break;
	case IFLA_XDP_PROG_ID + (IFLA_XDP << 16):
		li->xdp_prog_id = attr_value(a, 4);
		break;
	case IFLA_XDP_DRV_PROG_ID + (IFLA_XDP << 16):
		li->xdp_drv_prog_id = attr_value(a, 4);
		break;
	case IFLA_XDP_SKB_PROG_ID + (IFLA_XDP << 16):
		li->xdp_skb_prog_id = attr_value(a, 4);
		break;
	case IFLA_XDP_HW_PROG_ID + (IFLA_XDP << 16):
		li->xdp_hw_prog_id = attr_value(a, 4);
		break;
	}
	return true;
}

/*
 * The reference: what the last RTM_NEWLINK says, attribute by attribute,
 * up to the first malformed one (-EBADMSG). *seen: an RTM_NEWLINK came.
 */
static int ref_link(const void *buf, int n, struct link_info *li, bool *seen)
{
	*seen = false;
	for (const struct nlmsghdr *nh = buf; msg_ok(nh, n) && !talk_ends(nh);
	     nh = msg_next(nh, &n)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(nh);
		bool ok = true;
		int len;

		if (nh->nlmsg_type != RTM_NEWLINK)
			continue;
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			return -EBADMSG;
		*seen = true;
		memset(li, 0, sizeof(*li));
		li->ifindex = ifi->ifi_index;
		li->type = ifi->ifi_type;
		li->flags = ifi->ifi_flags;
		li->link_netnsid = -1;
		len = IFLA_PAYLOAD(nh);
		for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len))
			ok = ref_link_attr(0, a, li) && ok;
		if (!ok)
			return -EBADMSG;
		if (li->xdp_attached == XDP_ATTACHED_DRV && li->xdp_drv_prog_id == 0)
			li->xdp_drv_prog_id = li->xdp_prog_id;
		if (strcmp(li->kind, "veth") != 0)
			li->link_ifindex = 0;
	}
	return 0;
}

static void check_link(const void *buf, int n)
{
	struct link_info got, want;
	int len = n, got_ret = 0, want_ret;
	bool seen;

	memset(&got, 0, sizeof(got));
	for (const struct nlmsghdr *nh = buf; !got_ret && msg_ok(nh, len) && !talk_ends(nh);
	     nh = msg_next(nh, &len))
		got_ret = link_cb((struct nlmsghdr *)nh, &got);
	want_ret = ref_link(buf, n, &want, &seen);
	FUZZ_CHECK(got_ret == want_ret, "link_cb returned %d, expected %d", got_ret, want_ret);
	FUZZ_CHECK(strnlen(got.name, sizeof(got.name)) < sizeof(got.name),
		   "name not terminated");
	FUZZ_CHECK(strnlen(got.kind, sizeof(got.kind)) < sizeof(got.kind),
		   "kind not terminated");
	if (want_ret || !seen)
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
	FUZZ_CHECK(got.xdp_attached == want.xdp_attached, "xdp attached %u, expected %u",
		   got.xdp_attached, want.xdp_attached);
	FUZZ_CHECK(got.xdp_prog_id == want.xdp_prog_id, "xdp prog id %u, expected %u",
		   got.xdp_prog_id, want.xdp_prog_id);
	FUZZ_CHECK(got.xdp_drv_prog_id == want.xdp_drv_prog_id,
		   "xdp native prog id %u, expected %u", got.xdp_drv_prog_id, want.xdp_drv_prog_id);
	FUZZ_CHECK(got.xdp_skb_prog_id == want.xdp_skb_prog_id,
		   "xdp skb prog id %u, expected %u", got.xdp_skb_prog_id, want.xdp_skb_prog_id);
	FUZZ_CHECK(got.xdp_hw_prog_id == want.xdp_hw_prog_id,
		   "xdp offloaded prog id %u, expected %u", got.xdp_hw_prog_id,
		   want.xdp_hw_prog_id);
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

/*
 * The minimum size of an address attribute we read, 0 if we do not read it:
 * IFA_LOCAL and IFA_ADDRESS are the family's address, IFA_BROADCAST is
 * IPv4's alone, IFA_FLAGS a __u32.
 */
static size_t addr_attr_size(int family, int type)
{
	size_t alen = family == AF_INET ? 4 : 16;

	switch (type) {
	case IFA_LOCAL:
	case IFA_ADDRESS:
		return alen;
	case IFA_BROADCAST:
		return family == AF_INET ? 4 : 0;
	case IFA_FLAGS:
		return 4;
	}
	return 0;
}

/*
 * The reference: the addresses of ifindex (others: every interface's too,
 * but not their host- or link-scope ones), up to the first malformed
 * message we read (-EBADMSG).
 */
static int ref_addrs(const void *buf, int n, int ifindex, bool others, struct addr_seen *s)
{
	for (const struct nlmsghdr *nh = buf; msg_ok(nh, n) && !talk_ends(nh);
	     nh = msg_next(nh, &n)) {
		const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
		const struct rtattr *last[IFA_MAX + 1] = { NULL };
		const struct rtattr *local;
		struct prefix p = { 0 };
		__u32 flags;
		int len;

		if (nh->nlmsg_type != RTM_NEWADDR)
			continue;
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
			return -EBADMSG;
		if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
			continue;
		if ((int)ifa->ifa_index != ifindex &&
		    (!others || ifa->ifa_scope == RT_SCOPE_HOST || ifa->ifa_scope == RT_SCOPE_LINK
		     ||
		     ifa->ifa_scope == RT_SCOPE_NOWHERE))
			continue;
		len = IFA_PAYLOAD(nh);
		for (const struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, len);
		     a = RTA_NEXT(a, len)) {
			size_t min = a->rta_type <= IFA_MAX ?
					     addr_attr_size(ifa->ifa_family, a->rta_type) : 0;

			if (!min)
				continue;
			if (RTA_PAYLOAD(a) < min)
				return -EBADMSG;
			last[a->rta_type] = a;
		}
		flags = last[IFA_FLAGS] ? attr_value(last[IFA_FLAGS], 4) : ifa->ifa_flags;
		local = last[IFA_LOCAL] ? last[IFA_LOCAL] : last[IFA_ADDRESS];
		if (!local)
			continue;
		p.family = ifa->ifa_family;
		p.len = p.family == AF_INET ? 32 : 128;
		memcpy(p.addr, RTA_DATA(local), p.len / 8);
		collect_cb(&p, (int)ifa->ifa_index, flags, s);
		/* The subnet broadcast is reported too, marked as such. */
		if (!last[IFA_BROADCAST])
			continue;
		memcpy(p.addr, RTA_DATA(last[IFA_BROADCAST]), 4);
		collect_cb(&p, (int)ifa->ifa_index, flags | ADDR_CB_BROADCAST, s);
	}
	return 0;
}

static void check_addr(const void *buf, int n, int ifindex, bool others)
{
	struct addr_seen got = { .n = 0 }, want = { .n = 0 };
	struct addr_walk w = { .ifindex = ifindex, .others = others, .cb = collect_cb,
			       .arg = &got };
	int len = n, got_ret = 0, want_ret;

	for (const struct nlmsghdr *nh = buf; !got_ret && msg_ok(nh, len) && !talk_ends(nh);
	     nh = msg_next(nh, &len))
		got_ret = addr_cb((struct nlmsghdr *)nh, &w);
	want_ret = ref_addrs(buf, n, ifindex, others, &want);
	FUZZ_CHECK(got_ret == want_ret, "addr_cb returned %d, expected %d", got_ret, want_ret);
	FUZZ_CHECK(got.n == want.n, "%d addresses reported, expected %d", got.n, want.n);
	for (int i = 0; i < got.n && i < MAX_ADDRS; i++) {
		FUZZ_CHECK(!memcmp(&got.p[i], &want.p[i], sizeof(got.p[i])),
			   "address %d differs", i);
		FUZZ_CHECK(got.flags[i] == want.flags[i], "flags of address %d: %#x, expected %#x",
			   i, got.flags[i], want.flags[i]);
		FUZZ_CHECK(got.ifindex[i] == want.ifindex[i], "ifindex of address %d: %d, expected "
			"%d",
			   i, got.ifindex[i], want.ifindex[i]);
	}
}

/* ---- monitor_read_all ---- */
/* The events monitor_read_all reports about ifindex (and overruns), as EV_ bits. */
struct one_iface {
	int ifindex;
	int ev;
};

static void one_cb(int ifindex, int ev, void *arg)
{
	struct one_iface *o = arg;

	if (ev == EV_OVERRUN || ifindex == o->ifindex)
		o->ev |= ev;
}

static int monitor_read(int fd, int ifindex)
{
	struct one_iface o = { .ifindex = ifindex };

	monitor_read_all(fd, one_cb, &o);
	return o.ev;
}

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
	ifindex = data[1];
	n = size - 2;
	/* Exactly the message bytes, aligned as recv() buffers are. */
	buf = malloc(n ? n : 1);
	if (!buf)
		abort();
	memcpy(buf, data + 2, n);
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
	free(buf);
	return 0;
}
