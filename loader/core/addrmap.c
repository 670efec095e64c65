// SPDX-License-Identifier: GPL-2.0
/*
 * The address maps: which destinations xdpong answers for. Interface
 * addresses are reconciled from netlink; operator prefixes (--addr,
 * `xdpong addr`) are never touched by the reconcile.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_addr.h>
#include <bpf/bpf.h>
#include "core.h"

#define MAX_IFACE_ADDRS 1024 /* what the tries hold */

/* Map key of a prefix in the LPM trie of its family; returns the map fd. */
static int prefix_key(const struct prefix *p, int fd4, int fd6, struct xdpong_addr6_key *key)
{
	memset(key, 0, sizeof(*key));
	key->prefixlen = p->len;
	memcpy(key->addr, p->addr, p->family == AF_INET ? 4 : 16);
	return p->family == AF_INET ? fd4 : fd6;
}

int addr_map_put(int fd4, int fd6, const struct prefix *p, __u32 origin)
{
	struct xdpong_addr_info info = { .origin = origin };
	struct xdpong_addr6_key key;
	int fd = prefix_key(p, fd4, fd6, &key);

	return bpf_map_update_elem(fd, &key, &info, BPF_ANY) ? -errno : 0;
}

int addr_map_del(int fd4, int fd6, const struct prefix *p)
{
	struct xdpong_addr6_key key;
	int fd = prefix_key(p, fd4, fd6, &key);

	return bpf_map_delete_elem(fd, &key) ? -errno : 0;
}

/* Every entry of both maps, as prefixes with their origin. */
int addr_map_walk(int fd4, int fd6, int (*cb)(const struct prefix *p, __u32 origin, void *arg),
		  void *arg)
{
	for (int fam = 0; fam < 2; fam++) {
		struct xdpong_addr6_key cur, next;
		int fd = fam ? fd6 : fd4;
		void *prev = NULL;

		while (!bpf_map_get_next_key(fd, prev, &next)) {
			struct xdpong_addr_info info = { 0 };
			struct prefix p = { .family = fam ? AF_INET6 : AF_INET };
			int ret;

			bpf_map_lookup_elem(fd, &next, &info);
			p.len = next.prefixlen;
			memcpy(p.addr, next.addr, fam ? 16 : 4);
			ret = cb(&p, info.origin, arg);
			if (ret)
				return ret;
			cur = next;
			prev = &cur;
		}
	}
	return 0;
}

struct sync_ctx {
	struct prefix want[MAX_IFACE_ADDRS];
	__u32 want_origin[MAX_IFACE_ADDRS];
	int want_ifindex[MAX_IFACE_ADDRS];
	int n_want;
	struct prefix stale[2 * MAX_IFACE_ADDRS]; /* both tries */
	int n_stale;
	/* Every entry of both tries before the sync, with its origin. */
	struct prefix have[2 * MAX_IFACE_ADDRS];
	__u32 have_origin[2 * MAX_IFACE_ADDRS];
	int n_have;
	const char *ifname;
	int own_ifindex;
	bool others;    /* the --host-addrs pass: other interfaces only */
	bool truncated; /* more than MAX_IFACE_ADDRS */
	bool quiet;
	int rank; /* the class being reconciled: see rank() */
};

static int want_cb(const struct prefix *p, int ifindex, __u32 flags, void *arg)
{
	struct sync_ctx *s = arg;
	char buf[64];

	if (s->others && ifindex == s->own_ifindex)
		return 0; /* the first pass took them */
	/* The kernel does not answer for these either (RFC 4862 5.4). */
	if (!(flags & ADDR_CB_BROADCAST) && (flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))) {
		if (!s->quiet && ifindex == s->own_ifindex)
			log_note("%s: not answering for %s yet: duplicate address detection %s",
				 s->ifname, prefix_str(p, buf, sizeof(buf)),
				 flags & IFA_F_DADFAILED ? "failed" : "in progress");
		return 0;
	}
	if (s->n_want >= MAX_IFACE_ADDRS) {
		s->truncated = true;
		return 0;
	}
	s->want_origin[s->n_want] = flags & ADDR_CB_BROADCAST ? XDPONG_ADDR_BROADCAST :
								XDPONG_ADDR_IFACE;
	s->want_ifindex[s->n_want] = ifindex;
	s->want[s->n_want++] = *p;
	return 0;
}

/* A link's VRF: the VRF device itself, or the one it is enslaved to; 0
 * for the main tables. */
static int vrf_of(const struct link_info *li)
{
	struct link_info m;

	if (!strcmp(li->kind, "vrf"))
		return li->ifindex;
	if (li->master && !link_get(NULL, li->master, &m) && !strcmp(m.kind, "vrf"))
		return m.ifindex;
	return 0;
}

/*
 * --host-addrs: keep another interface's addresses only where the kernel
 * answers them for a packet that arrives on ours: that interface is up (an
 * IPv4 address stays listed on a link that is down, and its local route is
 * gone) and in our VRF (another VRF's local routes are not in our tables).
 * What is left out goes to the kernel, which decides.
 */
static bool link_reachable(int ifindex, int vrf)
{
	struct link_info li;

	return !link_get(NULL, ifindex, &li) && (li.flags & IFF_UP) && vrf_of(&li) == vrf;
}

static void keep_reachable(struct sync_ctx *s)
{
	/* One link_get per interface, not per address. */
	static int seen[MAX_IFACE_ADDRS];
	static bool seen_ok[MAX_IFACE_ADDRS];
	int n_seen = 0, k = 0, vrf = 0;
	struct link_info li;

	if (!link_get(NULL, s->own_ifindex, &li))
		vrf = vrf_of(&li);
	for (int i = 0; i < s->n_want; i++) {
		int ifindex = s->want_ifindex[i], j = 0;

		if (ifindex != s->own_ifindex) {
			while (j < n_seen && seen[j] != ifindex)
				j++;
			if (j == n_seen) {
				seen[j] = ifindex;
				seen_ok[j] = link_reachable(ifindex, vrf);
				n_seen++;
			}
			if (!seen_ok[j])
				continue;
		}
		s->want[k] = s->want[i];
		s->want_origin[k] = s->want_origin[i];
		s->want_ifindex[k++] = ifindex;
	}
	s->n_want = k;
}

static bool prefix_eq(const struct prefix *a, const struct prefix *b)
{
	return a->family == b->family && a->len == b->len &&
	       !memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16);
}

/*
 * Who wins when two sources name the same prefix: the operator's runtime
 * `xdpong addr add`, then the configuration (--addr, the config file),
 * then the interface's own addresses. A reconcile of one class never
 * removes or overwrites an entry of a higher one.
 */
static int rank(__u32 origin)
{
	switch (origin) {
	case XDPONG_ADDR_OPERATOR:
		return 3;
	case XDPONG_ADDR_CONFIG:
		return 2;
	case XDPONG_ADDR_IFACE:
	case XDPONG_ADDR_BROADCAST:
		return 1;
	}
	return 0;
}

static int stale_cb(const struct prefix *p, __u32 origin, void *arg)
{
	struct sync_ctx *s = arg;

	if (s->n_have < 2 * MAX_IFACE_ADDRS) {
		s->have[s->n_have] = *p;
		s->have_origin[s->n_have++] = origin;
	}
	if (rank(origin) != s->rank)
		return 0;
	for (int i = 0; i < s->n_want; i++)
		if (prefix_eq(p, &s->want[i]) && origin == s->want_origin[i])
			return 0;
	if (s->n_stale < 2 * MAX_IFACE_ADDRS)
		s->stale[s->n_stale++] = *p;
	return 0;
}

/* The origin p had before the sync (0: none). A stale entry that the sync
 * deletes has s->rank's rank: the decision below is the same either way. */
static __u32 had_origin(const struct sync_ctx *s, const struct prefix *p)
{
	for (int i = 0; i < s->n_have; i++)
		if (prefix_eq(p, &s->have[i]))
			return s->have_origin[i];
	return 0;
}

/* Make the entries of s->rank's class equal s->want: one walk of the
 * tries, not one per address (a host may have hundreds). */
static int reconcile(int fd4, int fd6, struct sync_ctx *s)
{
	int ret;

	s->n_have = 0;
	ret = addr_map_walk(fd4, fd6, stale_cb, s);
	if (ret)
		return ret;
	for (int i = 0; i < s->n_stale; i++)
		addr_map_del(fd4, fd6, &s->stale[i]);
	for (int i = 0; i < s->n_want; i++) {
		if (rank(had_origin(s, &s->want[i])) > s->rank)
			continue;
		ret = addr_map_put(fd4, fd6, &s->want[i], s->want_origin[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int addr_sync(int fd4, int fd6, const struct link_info *li, bool host, bool quiet, int *n4, int *n6)
{
	struct sync_ctx *s = calloc(1, sizeof(*s));
	int ret = 0;

	if (!s)
		return -ENOMEM;
	s->rank = 1;
	s->quiet = quiet;
	if (li) {
		s->ifname = li->name;
		s->own_ifindex = li->ifindex;
		/* The interface's own first: the others never crowd them out. */
		ret = addr_dump(li->ifindex, false, want_cb, s);
		if (!ret && host) {
			s->others = true;
			ret = addr_dump(li->ifindex, true, want_cb, s);
			keep_reachable(s);
		}
		if (s->truncated && !quiet)
			log_note("%s: more than %d addresses: the rest are left to the kernel",
				 li->name, MAX_IFACE_ADDRS);
	}
	if (!ret)
		ret = reconcile(fd4, fd6, s);
	if (!ret && (n4 || n6)) {
		int c4 = 0, c6 = 0;

		for (int i = 0; i < s->n_want; i++)
			if (s->want_origin[i] == XDPONG_ADDR_IFACE)
				*(s->want[i].family == AF_INET ? &c4 : &c6) += 1;
		if (n4)
			*n4 = c4;
		if (n6)
			*n6 = c6;
	}
	free(s);
	return ret;
}

int addr_sync_config(int fd4, int fd6, const struct prefix *addrs, int n)
{
	struct sync_ctx *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	s->rank = 2;
	for (int i = 0; i < n && s->n_want < MAX_IFACE_ADDRS; i++) {
		s->want[s->n_want] = addrs[i];
		s->want_origin[s->n_want++] = XDPONG_ADDR_CONFIG;
	}
	ret = reconcile(fd4, fd6, s);
	free(s);
	return ret;
}

struct own_ctx {
	struct xdpong_own_addrs own;
	bool overflow; /* more IPv4 entries than the lists hold */
};

static int own_cb(const struct prefix *p, __u32 origin, void *arg)
{
	struct own_ctx *o = arg;
	struct xdpong_own_addrs *own = &o->own;

	if (p->len != (p->family == AF_INET ? 32u : 128u))
		return 0;
	if (p->family == AF_INET && origin == XDPONG_ADDR_IFACE) {
		if (own->n4 < XDPONG_OWN_MAX)
			memcpy(own->v4[own->n4++], p->addr, 4);
		else
			o->overflow = true;
	} else if (p->family == AF_INET && origin == XDPONG_ADDR_BROADCAST) {
		if (own->n_bcast4 < XDPONG_OWN_MAX)
			memcpy(own->bcast4[own->n_bcast4++], p->addr, 4);
		else
			o->overflow = true;
	} else if (p->family == AF_INET6 && origin == XDPONG_ADDR_IFACE &&
		   own->n6 < XDPONG_OWN_MAX) {
		/* The rest are found in the trie: IPv6 lists need not be complete. */
		memcpy(own->v6[own->n6++], p->addr, 16);
	}
	return 0;
}

int addr_own_sync(int fd4, int fd6, int bss_fd)
{
	struct bss_access bss;
	struct own_ctx o = { 0 };
	int ret;

	if (bss_fd < 0)
		return 0; /* no .bss found: nothing to mirror into */
	ret = addr_map_walk(fd4, fd6, own_cb, &o);
	if (ret)
		return ret;
	ret = bss_open(&bss, bss_fd);
	if (ret)
		return ret == -EPROTO ? 0 : ret;
	/* The IPv4 lists also decide which sources are martian: complete, or none. */
	ret = bss_set_own(&bss, o.overflow ? NULL : &o.own);
	bss_close(&bss);
	if (!ret && o.overflow && verbose)
		log_note("more than %d IPv4 addresses or broadcasts: the program looks them up in "
			 "its trie",
			 XDPONG_OWN_MAX);
	return ret == -EPROTO ? 0 : ret;
}

const char *addr_origin_name(__u32 origin)
{
	return origin == XDPONG_ADDR_IFACE     ? "iface" :
	       origin == XDPONG_ADDR_BROADCAST ? "broadcast" :
	       origin == XDPONG_ADDR_CONFIG    ? "config" :
						 "operator";
}

struct print_ctx {
	FILE *f;
	int n;
};

static int print_cb(const struct prefix *p, __u32 origin, void *arg)
{
	struct print_ctx *pc = arg;
	char buf[64];

	fprintf(pc->f, "    %-44s %s\n", prefix_str(p, buf, sizeof(buf)),
		origin == XDPONG_ADDR_IFACE     ? "interface address" :
		origin == XDPONG_ADDR_BROADCAST ? "subnet broadcast: never answered" :
		origin == XDPONG_ADDR_CONFIG    ? "configured (--addr, config file)" :
						  "operator ('xdpong addr add'; kept across "
						  "restarts)");
	pc->n++;
	return 0;
}

void addr_print_text(FILE *f, const struct attachment *a)
{
	struct print_ctx pc = { .f = f };

	addr_map_walk(a->map_fd[MAP_ADDR4], a->map_fd[MAP_ADDR6], print_cb, &pc);
	if (!pc.n)
		fprintf(f, "    (none: every ping goes to the kernel)\n");
}
