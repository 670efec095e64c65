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

bool addr_map_mirrored(int fd4, int fd6, const struct prefix *p)
{
	struct xdpong_addr_info info = { 0 };
	struct xdpong_addr6_key key;
	int fd = prefix_key(p, fd4, fd6, &key);

	/* A full-length key finds itself if it is there (the lists hold
	 * full-length entries only, and only interface-made ones). */
	if (p->len != (p->family == AF_INET ? 32u : 128u) || bpf_map_lookup_elem(fd, &key, &info))
		return false;
	return info.origin == XDPONG_ADDR_IFACE || info.origin == XDPONG_ADDR_BROADCAST;
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

int addr_map_room(int fd, __u32 *used, __u32 *max)
{
	struct xdpong_addr6_key cur, next; /* room for either family's key */
	struct bpf_map_info mi = { 0 };
	__u32 len = sizeof(mi), n = 0;
	void *prev = NULL;

	if (bpf_obj_get_info_by_fd(fd, &mi, &len))
		return -errno;
	if (max)
		*max = mi.max_entries;
	if (!used)
		return 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		n++;
		cur = next;
		prev = &cur;
	}
	*used = n;
	return 0;
}

/* A prefix with its origin, and the interface it is on (want only). */
struct entry {
	struct prefix p;
	__u32 origin;
	int ifindex;
};

/* A growing array of entries, never longer than max. */
struct entries {
	struct entry *e;
	int n, cap, max;
};

/* One more entry; -ENOSPC past max, -ENOMEM. */
static int entries_add(struct entries *v, const struct prefix *p, __u32 origin, int ifindex)
{
	if (v->n >= v->max)
		return -ENOSPC;
	if (v->n == v->cap) {
		int cap = v->cap ? 2 * v->cap : 64;
		struct entry *e;

		if (cap > v->max)
			cap = v->max;
		e = realloc(v->e, (size_t)cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		v->e = e;
		v->cap = cap;
	}
	v->e[v->n++] = (struct entry){ .p = *p, .origin = origin, .ifindex = ifindex };
	return 0;
}

/* Prefixes in one order: family, length, address. */
static int prefix_cmp(const struct prefix *a, const struct prefix *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16);
}

static int entry_cmp(const void *x, const void *y)
{
	return prefix_cmp(&((const struct entry *)x)->p, &((const struct entry *)y)->p);
}

/* The same, then by origin: a prefix may be wanted with two. */
static int entry_origin_cmp(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = prefix_cmp(&a->p, &b->p);

	return c ? c : a->origin < b->origin ? -1 : a->origin > b->origin;
}

/*
 * The working sets of a sync, on the heap: as large as what they hold,
 * never larger than the maps (their max_entries), so they scale with
 * --max-prefixes. Sorted, and searched by bsearch: a sync is O(n log n).
 */
struct sync_ctx {
	struct entries want[2]; /* IPv4, IPv6: each at most its map's size */
	struct entries all;     /* want[0] and want[1] together, sorted */
	struct entries have;    /* every entry of both tries before the sync */
	const char *ifname;
	int own_ifindex;
	bool others;    /* the --host-addrs pass: other interfaces only */
	bool truncated; /* more than a map holds */
	bool quiet;
	int rank; /* the class being reconciled: see rank() */
};

static int sync_init(struct sync_ctx *s, int fd4, int fd6, int rank)
{
	__u32 max4 = 0, max6 = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = addr_map_room(fd4, NULL, &max4);
	if (!ret)
		ret = addr_map_room(fd6, NULL, &max6);
	if (ret)
		return ret;
	s->want[0].max = max4;
	s->want[1].max = max6;
	s->all.max = s->have.max = max4 + max6;
	s->rank = rank;
	return 0;
}

static void sync_free(struct sync_ctx *s)
{
	free(s->want[0].e);
	free(s->want[1].e);
	free(s->all.e);
	free(s->have.e);
}

/* Wanted: p, in its family's set. -ENOMEM, else 0 (a full set: truncated). */
static int want_add(struct sync_ctx *s, const struct prefix *p, __u32 origin, int ifindex)
{
	int ret = entries_add(&s->want[p->family == AF_INET ? 0 : 1], p, origin, ifindex);

	if (ret == -ENOSPC)
		s->truncated = true;
	return ret == -ENOSPC ? 0 : ret;
}

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
	return want_add(s, p, flags & ADDR_CB_BROADCAST ? XDPONG_ADDR_BROADCAST : XDPONG_ADDR_IFACE,
			ifindex);
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

struct link_seen {
	int ifindex;
	bool ok;
};

static int link_seen_cmp(const void *x, const void *y)
{
	int a = ((const struct link_seen *)x)->ifindex, b = ((const struct link_seen *)y)->ifindex;

	return a < b ? -1 : a > b;
}

/* Drop the entries of v on links found not reachable in seen (sorted). */
static void keep_seen(struct entries *v, const struct link_seen *seen, int n_seen, int own)
{
	int k = 0;

	for (int i = 0; i < v->n; i++) {
		struct link_seen key = { .ifindex = v->e[i].ifindex }, *l;

		l = v->e[i].ifindex == own ?
			    NULL :
			    bsearch(&key, seen, n_seen, sizeof(*seen), link_seen_cmp);
		if (l && !l->ok)
			continue;
		v->e[k++] = v->e[i];
	}
	v->n = k;
}

/* One link_get per interface, not per address. 0 or -ENOMEM. */
static int keep_reachable(struct sync_ctx *s)
{
	struct link_seen *seen;
	int n = 0, n_seen = 0, vrf = 0;
	struct link_info li;

	seen = malloc(((size_t)s->want[0].n + s->want[1].n + 1) * sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (int f = 0; f < 2; f++)
		for (int i = 0; i < s->want[f].n; i++)
			seen[n++].ifindex = s->want[f].e[i].ifindex;
	qsort(seen, n, sizeof(*seen), link_seen_cmp);
	if (!link_get(NULL, s->own_ifindex, &li))
		vrf = vrf_of(&li);
	for (int i = 0; i < n; i++) {
		if (n_seen && seen[n_seen - 1].ifindex == seen[i].ifindex)
			continue;
		seen[n_seen].ifindex = seen[i].ifindex;
		seen[n_seen].ok = seen[i].ifindex == s->own_ifindex ||
				  link_reachable(seen[i].ifindex, vrf);
		n_seen++;
	}
	keep_seen(&s->want[0], seen, n_seen, s->own_ifindex);
	keep_seen(&s->want[1], seen, n_seen, s->own_ifindex);
	free(seen);
	return 0;
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

static int have_cb(const struct prefix *p, __u32 origin, void *arg)
{
	return entries_add(arg, p, origin, 0);
}

/* The wanted entries of both families, together and sorted by prefix and
 * origin. 0 or -ENOMEM. */
static int want_sorted(struct sync_ctx *s)
{
	for (int f = 0; f < 2; f++)
		for (int i = 0; i < s->want[f].n; i++) {
			const struct entry *e = &s->want[f].e[i];
			int ret = entries_add(&s->all, &e->p, e->origin, e->ifindex);

			if (ret)
				return ret;
		}
	if (s->all.n)
		qsort(s->all.e, s->all.n, sizeof(*s->all.e), entry_origin_cmp);
	return 0;
}

/*
 * Make the entries of s->rank's class equal the wanted ones: one walk of
 * the tries, then every decision by binary search (a map may hold many
 * thousands). An entry of the class that is not wanted (with its origin)
 * goes; a wanted one is written unless it is there already, or a higher
 * class holds its prefix.
 */
static int reconcile(int fd4, int fd6, struct sync_ctx *s)
{
	int ret = want_sorted(s);

	if (!ret)
		ret = addr_map_walk(fd4, fd6, have_cb, &s->have);
	if (ret)
		return ret;
	if (s->have.n)
		qsort(s->have.e, s->have.n, sizeof(*s->have.e), entry_cmp);
	for (int i = 0; i < s->have.n; i++) {
		const struct entry *e = &s->have.e[i];

		if (rank(e->origin) == s->rank &&
		    !bsearch(e, s->all.e, s->all.n, sizeof(*e), entry_origin_cmp))
			addr_map_del(fd4, fd6, &e->p);
	}
	for (int i = 0; i < s->all.n; i++) {
		const struct entry *w = &s->all.e[i], *had;

		had = s->have.n ? bsearch(w, s->have.e, s->have.n, sizeof(*w), entry_cmp) : NULL;
		/* A stale one deleted above had s->rank's rank: the same decision. */
		if (had && (had->origin == w->origin || rank(had->origin) > s->rank))
			continue;
		ret = addr_map_put(fd4, fd6, &w->p, w->origin);
		if (ret)
			return ret;
	}
	return 0;
}

/* The interface's addresses (and with host, the host's) as the wanted set. */
static int want_iface(struct sync_ctx *s, const struct link_info *li, bool host)
{
	int ret;

	s->ifname = li->name;
	s->own_ifindex = li->ifindex;
	/* The interface's own first: the others never crowd them out. */
	ret = addr_dump(li->ifindex, false, want_cb, s);
	if (!ret && host) {
		s->others = true;
		ret = addr_dump(li->ifindex, true, want_cb, s);
		if (!ret)
			ret = keep_reachable(s);
	}
	if (s->truncated && !s->quiet)
		log_note("%s: more addresses than the address maps hold (%d IPv4, %d IPv6: "
			 "--max-prefixes): the rest are left to the kernel",
			 li->name, s->want[0].max, s->want[1].max);
	return ret;
}

int addr_sync(int fd4, int fd6, const struct link_info *li, bool host, bool quiet, int *n4, int *n6)
{
	struct sync_ctx *s = malloc(sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	ret = sync_init(s, fd4, fd6, 1);
	s->quiet = quiet;
	if (!ret && li)
		ret = want_iface(s, li, host);
	if (!ret)
		ret = reconcile(fd4, fd6, s);
	for (int f = 0; !ret && f < 2; f++) {
		int c = 0;

		for (int i = 0; i < s->want[f].n; i++)
			c += s->want[f].e[i].origin == XDPONG_ADDR_IFACE;
		if (f == 0 && n4)
			*n4 = c;
		if (f == 1 && n6)
			*n6 = c;
	}
	sync_free(s);
	free(s);
	return ret;
}

int addr_sync_config(int fd4, int fd6, const struct prefix *addrs, int n)
{
	struct sync_ctx s;
	int ret = sync_init(&s, fd4, fd6, 2);

	for (int i = 0; !ret && i < n; i++)
		ret = want_add(&s, &addrs[i], XDPONG_ADDR_CONFIG, 0);
	if (!ret && s.truncated)
		ret = -ENOSPC; /* the operator's own list: all of it, or nothing */
	if (!ret)
		ret = reconcile(fd4, fd6, &s);
	sync_free(&s);
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
