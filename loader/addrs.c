// SPDX-License-Identifier: GPL-2.0
/*
 * The address maps: which destinations xdpong answers for. Interface
 * addresses are reconciled from netlink; operator prefixes (--addr,
 * `xdpong addr`) are never touched by the reconcile.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_addr.h>
#include <bpf/bpf.h>
#include "loader.h"

#define MAX_IFACE_ADDRS 256

/* Map key of a prefix in the LPM trie of its family; returns the map fd. */
static int prefix_key(const struct prefix *p, int fd4, int fd6,
		      struct xdpong_addr6_key *key)
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
int addr_map_walk(int fd4, int fd6,
		  int (*cb)(const struct prefix *p, __u32 origin, void *arg),
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
	int n_want;
	struct prefix stale[MAX_IFACE_ADDRS];
	int n_stale;
	const char *ifname;
	bool quiet;
};

static int want_cb(const struct prefix *p, __u32 flags, void *arg)
{
	struct sync_ctx *s = arg;
	char buf[64];

	/* The kernel does not answer for these either (RFC 4862 5.4). */
	if (!(flags & ADDR_CB_BROADCAST) &&
	    (flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))) {
		if (!s->quiet)
			note("%s: not answering for %s yet: duplicate address detection %s",
			     s->ifname, prefix_str(p, buf, sizeof(buf)),
			     flags & IFA_F_DADFAILED ? "failed" : "in progress");
		return 0;
	}
	if (s->n_want < MAX_IFACE_ADDRS) {
		s->want_origin[s->n_want] = flags & ADDR_CB_BROADCAST ?
						    XDPONG_ADDR_BROADCAST :
						    XDPONG_ADDR_IFACE;
		s->want[s->n_want++] = *p;
	}
	return 0;
}

static bool prefix_eq(const struct prefix *a, const struct prefix *b)
{
	return a->family == b->family && a->len == b->len &&
	       !memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16);
}

static int stale_cb(const struct prefix *p, __u32 origin, void *arg)
{
	struct sync_ctx *s = arg;

	if (origin != XDPONG_ADDR_IFACE && origin != XDPONG_ADDR_BROADCAST)
		return 0;
	for (int i = 0; i < s->n_want; i++)
		if (prefix_eq(p, &s->want[i]) && origin == s->want_origin[i])
			return 0;
	if (s->n_stale < MAX_IFACE_ADDRS)
		s->stale[s->n_stale++] = *p;
	return 0;
}

struct origin_probe {
	const struct prefix *p;
	__u32 origin;
};

static int origin_cb(const struct prefix *p, __u32 origin, void *arg)
{
	struct origin_probe *o = arg;

	if (prefix_eq(p, o->p))
		o->origin = origin;
	return 0;
}

int addr_sync(int fd4, int fd6, const struct link_info *li, bool quiet,
	      int *n4, int *n6)
{
	struct sync_ctx *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	s->ifname = li->name;
	s->quiet = quiet;
	ret = addr_dump(li->ifindex, want_cb, s);
	if (ret)
		goto out;
	ret = addr_map_walk(fd4, fd6, stale_cb, s);
	if (ret)
		goto out;
	for (int i = 0; i < s->n_stale; i++)
		addr_map_del(fd4, fd6, &s->stale[i]);
	for (int i = 0; i < s->n_want; i++) {
		struct origin_probe probe = { .p = &s->want[i] };

		/* An operator's prefix of the same value stays the operator's. */
		addr_map_walk(fd4, fd6, origin_cb, &probe);
		if (probe.origin == XDPONG_ADDR_OPERATOR)
			continue;
		ret = addr_map_put(fd4, fd6, &s->want[i], s->want_origin[i]);
		if (ret)
			goto out;
	}
	if (n4 || n6) {
		int c4 = 0, c6 = 0;

		for (int i = 0; i < s->n_want; i++)
			if (s->want_origin[i] == XDPONG_ADDR_IFACE)
				*(s->want[i].family == AF_INET ? &c4 : &c6) += 1;
		if (n4)
			*n4 = c4;
		if (n6)
			*n6 = c6;
	}
out:
	free(s);
	return ret;
}

struct print_ctx {
	FILE *f;
	bool json;
	int n;
};

static int print_cb(const struct prefix *p, __u32 origin, void *arg)
{
	struct print_ctx *pc = arg;
	const char *who = origin == XDPONG_ADDR_IFACE ? "iface" :
			  origin == XDPONG_ADDR_BROADCAST ? "broadcast" : "operator";
	char buf[64];

	prefix_str(p, buf, sizeof(buf));
	if (pc->json)
		fprintf(pc->f, "%s{\"prefix\":\"%s\",\"origin\":\"%s\"}",
			pc->n ? "," : "", buf, who);
	else
		fprintf(pc->f, "    %-44s %s\n", buf,
			origin == XDPONG_ADDR_IFACE	 ? "interface address" :
			origin == XDPONG_ADDR_BROADCAST ? "subnet broadcast: never answered" :
							  "operator (--addr)");
	pc->n++;
	return 0;
}

void addr_print(FILE *f, const struct attachment *a, bool json)
{
	struct print_ctx pc = { .f = f, .json = json };

	addr_map_walk(a->map_fd[MAP_ADDR4], a->map_fd[MAP_ADDR6], print_cb, &pc);
	if (!json && !pc.n)
		fprintf(f, "    (none: every ping goes to the kernel)\n");
}

static void addr_usage(FILE *f)
{
	fprintf(f,
		"Usage: xdpong addr IFACE add PREFIX...\n"
		"       xdpong addr IFACE del PREFIX...\n"
		"       xdpong addr IFACE list [--json]\n"
		"\n"
		"Change the prefixes the xdpong attached to IFACE answers for, without\n"
		"reattaching. Added prefixes are the operator's: address changes on the\n"
		"interface never remove them. Deleting an interface address lasts until\n"
		"'xdpong run' sees the interface's addresses change.\n"
		"\n"
		"Examples:\n"
		"  xdpong addr eth0 add 192.0.2.0/24 2001:db8:1::/48\n"
		"  xdpong addr eth0 del 192.0.2.0/24\n"
		"  xdpong addr eth0 list\n");
}

int cmd_addr(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct attachment a;
	struct link_info li;
	const char *ifname, *verb;
	bool json = false;
	int c, ret, rc = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jh", longopts, NULL)) != -1) {
		if (c == 'h') {
			addr_usage(stdout);
			return 0;
		}
		if (c == 'j') {
			json = true;
			continue;
		}
		err("unknown option '%s' (see 'xdpong addr --help')", argv[optind - 1]);
		return EXIT_USAGE;
	}
	if (argc - optind < 2) {
		err("usage: xdpong addr IFACE add|del PREFIX... | list");
		return EXIT_USAGE;
	}
	ifname = argv[optind];
	verb = argv[optind + 1];
	if (strcmp(verb, "add") && strcmp(verb, "del") && strcmp(verb, "list")) {
		err("unknown addr command '%s' (expected add, del or list)", verb);
		return EXIT_USAGE;
	}
	if (!strcmp(verb, "list") && argc - optind > 2 &&
	    !strcmp(argv[optind + 2], "--json"))
		json = true;
	else if (!strcmp(verb, "list") && argc - optind > 2) {
		err("unexpected argument '%s'", argv[optind + 2]);
		return EXIT_USAGE;
	}
	if (strcmp(verb, "list") && argc - optind < 3) {
		err("missing PREFIX (usage: xdpong addr IFACE %s PREFIX...)", verb);
		return EXIT_USAGE;
	}
	/* Validate every prefix before changing anything. */
	for (int i = optind + 2; strcmp(verb, "list") && i < argc; i++) {
		struct prefix p;

		if (prefix_parse(argv[i], &p)) {
			err("invalid prefix '%s' (expected ADDR or ADDR/LEN, IPv4 or IPv6)",
			    argv[i]);
			return EXIT_USAGE;
		}
	}
	if (attachment_open(ifname, &li, &a))
		return 1;
	if (!strcmp(verb, "list")) {
		if (json) {
			printf("{\"iface\":");
			json_str(stdout, li.name);
			printf(",\"addresses\":[");
			addr_print(stdout, &a, true);
			printf("]}\n");
		} else {
			printf("%s: xdpong answers for\n", li.name);
			addr_print(stdout, &a, false);
		}
		goto out;
	}
	for (int i = optind + 2; i < argc; i++) {
		struct prefix p;
		char buf[64];

		prefix_parse(argv[i], &p);
		prefix_mask(&p);
		prefix_str(&p, buf, sizeof(buf));
		if (!strcmp(verb, "add"))
			ret = addr_map_put(a.map_fd[MAP_ADDR4], a.map_fd[MAP_ADDR6], &p,
					   XDPONG_ADDR_OPERATOR);
		else
			ret = addr_map_del(a.map_fd[MAP_ADDR4], a.map_fd[MAP_ADDR6], &p);
		if (ret == -ENOENT) {
			err("%s: %s is not in the address map (see 'xdpong addr %s list')",
			    li.name, buf, li.name);
			rc = 1;
		} else if (ret) {
			err("%s: cannot %s %s: %s%s", li.name, verb, buf, strerror(-ret),
			    ret == -ENOSPC ? " (the map holds 1024 prefixes per family)" : "");
			rc = 1;
		} else {
			printf("xdpong: %s: %s %s\n", li.name,
			       !strcmp(verb, "add") ? "answering for" : "no longer answering for",
			       buf);
		}
	}
out:
	attachment_close(&a);
	return rc;
}
