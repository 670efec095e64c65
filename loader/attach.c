// SPDX-License-Identifier: GPL-2.0
/* xdpong attach / detach / status. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <net/if_arp.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "loader.h"
#include "xdpong.skel.h"

static void attach_usage(FILE *f)
{
	fprintf(f,
		"Usage: xdpong attach IFACE [options]\n"
		"\n"
		"Load xdpong, fill its address map with IFACE's addresses (and --addr\n"
		"prefixes), attach it to IFACE and pin its maps under " PIN_ROOT "/IFACE/.\n"
		"The program stays attached when the command exits.\n"
		"\n"
		"Options:\n"
		"  -m, --mode MODE          auto (default: native, else skb), native, skb\n"
		"  -a, --addr PREFIX        also answer for PREFIX (repeatable), e.g.\n"
		"                           192.0.2.1, 192.0.2.0/24, 2001:db8::/64\n"
		"      --no-iface-addrs     answer only for --addr prefixes\n"
		"  -f, --force              replace an XDP program already on IFACE\n"
		"      --latency-sample N   time 1 packet in N for the latency histogram\n"
		"                           (default 64; 1: every packet; 0: off)\n"
		"      --rate-limit PPS[:BURST]\n"
		"                           at most PPS replies/s per source (IPv4 /32,\n"
		"                           IPv6 /64), bursts of BURST (default PPS)\n"
		"      --global-limit PPS[:BURST]\n"
		"                           at most PPS replies/s in all\n"
		"  -v, --verbose            say more\n"
		"  -h, --help               this help\n"
		"\n"
		"Examples:\n"
		"  xdpong attach eth0\n"
		"  xdpong attach eth0 --mode skb --addr 198.51.100.0/24\n"
		"  xdpong attach veth0 --force --rate-limit 100:20\n");
}

/* "PPS" or "PPS:BURST"; BURST defaults to PPS (one second's worth). */
static int parse_rate(const char *text, unsigned long long *pps,
		      unsigned long long *burst)
{
	char buf[64], *colon;

	if (strlen(text) >= sizeof(buf))
		return -1;
	strcpy(buf, text);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if (parse_u64(buf, 1, 1000000000ULL, pps))
		return -1;
	if (!colon) {
		*burst = *pps;
		return 0;
	}
	return parse_u64(colon + 1, 1, 1000000000ULL, burst);
}

int parse_attach(int argc, char **argv, struct attach_opts *o, bool run)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "addr", required_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "no-iface-addrs", no_argument, NULL, 'N' },
		{ "latency-sample", required_argument, NULL, 'L' },
		{ "rate-limit", required_argument, NULL, 'R' },
		{ "global-limit", required_argument, NULL, 'G' },
		{ "interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "metrics-file", required_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->mode = XDP_MODE_UNSPEC;
	o->iface_addrs = true;
	o->latency_sample = 64;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:a:fvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "auto"))
				o->mode = XDP_MODE_UNSPEC;
			else if (!strcmp(optarg, "native") || !strcmp(optarg, "drv"))
				o->mode = XDP_MODE_NATIVE;
			else if (!strcmp(optarg, "skb") || !strcmp(optarg, "generic"))
				o->mode = XDP_MODE_SKB;
			else
				return err("invalid mode '%s' (expected auto, native or skb)",
					   optarg);
			break;
		case 'a':
			if (o->n_addrs >= ATTACH_MAX_ADDRS)
				return err("too many --addr (at most %d)", ATTACH_MAX_ADDRS);
			if (prefix_parse(optarg, &o->addrs[o->n_addrs]))
				return err("invalid prefix '%s' (expected ADDR or ADDR/LEN, IPv4 or IPv6)",
					   optarg);
			prefix_mask(&o->addrs[o->n_addrs]);
			o->n_addrs++;
			break;
		case 'f':
			o->force = true;
			break;
		case 'N':
			o->iface_addrs = false;
			break;
		case 'L':
			if (parse_u64(optarg, 0, 1U << 30, &o->latency_sample))
				return err("invalid --latency-sample '%s' (expected 0 to %u)",
					   optarg, 1U << 30);
			break;
		case 'R':
			if (parse_rate(optarg, &o->rate_pps, &o->rate_burst))
				return err("invalid --rate-limit '%s' (expected PPS or PPS:BURST, 1 to 1e9)",
					   optarg);
			break;
		case 'G':
			if (parse_rate(optarg, &o->global_pps, &o->global_burst))
				return err("invalid --global-limit '%s' (expected PPS or PPS:BURST, 1 to 1e9)",
					   optarg);
			break;
		case 'i': {
			char *end;

			if (!run)
				goto unknown;
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || *end || !(o->interval >= 0.01 && o->interval <= 86400))
				return err("invalid --interval '%s' (expected seconds, 0.01 to 86400)",
					   optarg);
			break;
		}
		case 'j':
			if (!run)
				goto unknown;
			o->json = true;
			break;
		case 'M':
			if (!run)
				goto unknown;
			if (!*optarg)
				return err("--metrics-file needs a path, e.g. /var/lib/prometheus/node-exporter/xdpong.prom");
			o->metrics_file = optarg;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			if (run)
				run_usage(stdout);
			else
				attach_usage(stdout);
			exit(0);
		case ':':
			return err("option '%s' needs a value", argv[optind - 1]);
		default:
unknown:
			return err("unknown option '%s' (see 'xdpong %s --help')",
				   argv[optind - 1], run ? "run" : "attach");
		}
	}
	if (optind >= argc)
		return err("missing interface (usage: xdpong %s IFACE [options])",
			   run ? "run" : "attach");
	if (optind + 1 < argc)
		return err("unexpected argument '%s'", argv[optind + 1]);
	o->ifname = argv[optind];
	return 0;
}

int pins_remove(const char *ifname)
{
	char dir[256], path[320];
	int removed = 0;

	pin_dir(ifname, dir, sizeof(dir));
	for (int m = 0; m < MAP_COUNT; m++) {
		snprintf(path, sizeof(path), "%s/%s", dir, map_pin_names[m]);
		if (!unlink(path))
			removed++;
	}
	rmdir(dir);
	rmdir(PIN_ROOT); /* only if empty */
	return removed;
}

/* Is the pinned map at path used by any loaded program (a live attach)? */
bool pinned_map_in_use(const char *path)
{
	struct bpf_map_info mi = { 0 };
	__u32 len = sizeof(mi), id = 0;
	bool used = false;
	int fd;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	if (bpf_obj_get_info_by_fd(fd, &mi, &len)) {
		close(fd);
		return false;
	}
	close(fd);
	while (!used && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info pi = { 0 };
		__u32 ids[32], plen = sizeof(pi);
		int pfd = bpf_prog_get_fd_by_id(id);

		if (pfd < 0)
			continue;
		pi.nr_map_ids = 32;
		pi.map_ids = (__u64)(unsigned long)ids;
		if (!bpf_obj_get_info_by_fd(pfd, &pi, &plen))
			for (__u32 i = 0; i < pi.nr_map_ids && i < 32; i++)
				used |= ids[i] == mi.id;
		close(pfd);
	}
	return used;
}

/* Pins of ifname from an earlier attach that is gone may be replaced. */
/*
 * Pins left at our path: the attached xdpong's own (replaced with it under
 * --force), stale ones from an attach that is gone or was killed halfway
 * (removed), or a live xdpong's of the same name in another netns (refused).
 */
static int pins_prepare(const char *ifname, __u32 own_stats_map_id)
{
	struct bpf_map_info mi = { 0 };
	char dir[256], path[320];
	__u32 len = sizeof(mi);
	int fd;

	pin_dir(ifname, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, map_pin_names[MAP_STATS]);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		bool own = !bpf_obj_get_info_by_fd(fd, &mi, &len) &&
			   own_stats_map_id && mi.id == own_stats_map_id;

		close(fd);
		if (own)
			return 0;
		if (pinned_map_in_use(path))
			return err("%s holds the maps of another live xdpong (an interface of the same name in another network namespace?); detach that one first",
				   dir);
	}
	pins_remove(ifname); /* stale, or partial from a killed attach */
	return 0;
}

static int pins_create(struct xdpong_bpf *skel, const char *ifname)
{
	struct bpf_map *maps[MAP_COUNT] = {
		[MAP_STATS] = skel->maps.xdpong_stats,
		[MAP_LATENCY] = skel->maps.xdpong_latency,
		[MAP_ADDR4] = skel->maps.xdpong_addr4,
		[MAP_ADDR6] = skel->maps.xdpong_addr6,
		[MAP_RATELIM] = skel->maps.xdpong_ratelim,
		[MAP_TRACE] = skel->maps.xdpong_trace,
		[MAP_BSS] = skel->maps.bss,
		[MAP_RODATA] = skel->maps.rodata,
	};
	char dir[256], path[320];

	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST)
		return err("cannot create %s: %s", PIN_ROOT, strerror(errno));
	pin_dir(ifname, dir, sizeof(dir));
	if (mkdir(dir, 0700) && errno != EEXIST)
		return err("cannot create %s: %s", dir, strerror(errno));
	for (int m = 0; m < MAP_COUNT; m++) {
		snprintf(path, sizeof(path), "%s/%s", dir, map_pin_names[m]);
		if (bpf_obj_pin(bpf_map__fd(maps[m]), path))
			return err("cannot pin %s: %s", path, strerror(errno));
	}
	return 0;
}

/*
 * A veth hands XDP_TX frames only to a peer that runs native XDP (measured:
 * generic XDP or GRO on the peer is not enough), else drops them silently.
 */
static int check_veth_peer(const struct link_info *li, bool explicit_native,
			   bool *use_skb)
{
	struct link_info peer;
	int ret;

	if (strcmp(li->kind, "veth"))
		return 0;
	ret = link_get_peer(li, &peer);
	if (ret) {
		if (verbose)
			note("%s: cannot inspect the veth peer (%s); assuming it runs native XDP",
			     li->name, strerror(-ret));
		return 0;
	}
	if (peer.xdp_drv_prog_id)
		return 0;
	if (explicit_native)
		return err("%s is a veth whose peer %s (ifindex %d%s) has no native XDP program: in native mode the replies (XDP_TX) would be dropped silently. Load a native XDP program on the peer first, e.g. 'xdpong attach %s --mode native --no-iface-addrs' (answers for nothing, passes everything), or use --mode skb",
			   li->name, peer.name, peer.ifindex,
			   li->link_netnsid >= 0 ? " in another netns" : "", peer.name);
	note("%s: veth peer %s has no native XDP program, so native XDP_TX would be dropped: using skb mode",
	     li->name, peer.name);
	*use_skb = true;
	return 0;
}

/* What is on the interface before we attach. */
struct existing {
	bool ours;          /* an xdpong */
	__u32 prog_id;      /* xdpong's, or a foreign program's */
	__u32 stats_map_id; /* xdpong's, to recognize its own pins */
	int xdp_mode;
};

/* Refuse, without side effects, unless the interface is free or --force. */
static int existing_check(const struct link_info *li, bool force,
			  struct existing *ex)
{
	struct attachment a;
	__u32 other = 0;
	int ret;

	memset(ex, 0, sizeof(*ex));
	ret = attachment_find(li->ifindex, &a, &other);
	if (!ret) {
		ex->ours = true;
		ex->prog_id = a.prog_id;
		ex->stats_map_id = a.map_id[MAP_STATS];
		ex->xdp_mode = a.xdp_mode;
		attachment_close(&a);
	} else {
		ex->prog_id = other ? other : li->xdp_prog_id;
	}
	if (!ex->prog_id || force)
		return 0;
	if (ex->ours)
		return err("xdpong is already attached to %s (program id %u, %s mode); use --force to replace it",
			   li->name, ex->prog_id,
			   ex->xdp_mode == XDP_MODE_SKB ? "skb" : "native");
	return err("%s already has an XDP program (id %u) that is not xdpong; use --force to replace it",
		   li->name, ex->prog_id);
}

/* --force: take down what existing_check found. */
static int existing_detach(const struct link_info *li, const struct existing *ex)
{
	int ret;

	if (!ex->prog_id)
		return 0;
	if (ex->ours) {
		struct xdp_program *p = xdp_program__from_id(ex->prog_id);

		ret = libxdp_get_error(p);
		if (!ret) {
			ret = xdp_program__detach(p, li->ifindex, ex->xdp_mode, 0);
			xdp_program__close(p);
		}
		if (ret)
			return err("cannot detach the old xdpong from %s: %s", li->name,
				   strerror(-ret));
		pins_remove(li->name);
		if (verbose)
			note("%s: replaced xdpong program id %u", li->name, ex->prog_id);
		return 0;
	}
	{
		struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(li->ifindex);

		ret = libxdp_get_error(mp);
		if (!ret) {
			ret = xdp_multiprog__detach(mp);
			xdp_multiprog__close(mp);
		}
		if (ret)
			return err("cannot detach program id %u from %s: %s", ex->prog_id,
				   li->name, strerror(-ret));
		note("%s: detached XDP program id %u (--force)", li->name, ex->prog_id);
	}
	return 0;
}

static const char *attach_hint(int e, enum xdp_attach_mode mode)
{
	if (mode == XDP_MODE_NATIVE && (e == EOPNOTSUPP || e == EINVAL))
		return " (the driver has no native XDP; try --mode skb)";
	if (e == EBUSY || e == EEXIST)
		return " (another XDP program is attached; use --force)";
	if (e == EPERM)
		return " (need root: CAP_BPF, CAP_NET_ADMIN, CAP_SYS_ADMIN)";
	if (e == ERANGE)
		return " (the MTU is too large for XDP on this driver)";
	if (e == E2BIG || e == EACCES)
		return " (the kernel's verifier rejected the program; 'xdpong -vv attach ...' prints its log)";
	return "";
}


int attach_up(const struct attach_opts *o, struct live *lv)
{
	struct link_info *li = &lv->li;
	struct existing ex;
	bool use_skb = false;
	int e, n4 = 0, n6 = 0;

	memset(lv, 0, sizeof(*lv));
	if (require_root() || iface_lookup(o->ifname, li))
		return -1;
	if (li->type == ARPHRD_LOOPBACK)
		return err("%s: xdpong does not attach to loopback: pings to local addresses never cross a driver, and the kernel answers them itself",
			   li->name);
	if (li->type != ARPHRD_ETHER && li->type != ARPHRD_NONE)
		return err("%s: link type %u is not supported (Ethernet, TAP and TUN are)",
			   li->name, li->type);
	if (existing_check(li, o->force, &ex))
		return -1;
	if (bpffs_ensure() || pins_prepare(li->name, ex.stats_map_id))
		return -1;

	lv->mode = o->mode;
	/* A program that answers for nothing never transmits: no peer needed. */
	if (lv->mode != XDP_MODE_SKB && (o->iface_addrs || o->n_addrs) &&
	    check_veth_peer(li, lv->mode == XDP_MODE_NATIVE, &use_skb))
		return -1;
	if (use_skb)
		lv->mode = XDP_MODE_SKB;
	if (existing_detach(li, &ex))
		return -1;

	lv->skel = xdpong_bpf__open();
	if (!lv->skel)
		return err("%s: cannot open the BPF object: %s (run with -vv for libbpf's log)",
			   li->name, strerror(errno));
	/* TUN frames start at the IP header: decided once, not per packet. */
	lv->skel->rodata->cfg_framing = li->type == ARPHRD_NONE ?
						XDPONG_FRAMING_IP : XDPONG_FRAMING_ETH;
	if (li->type == ARPHRD_ETHER && li->has_mac) {
		lv->skel->rodata->cfg_check_mac = 1;
		memcpy((void *)&lv->skel->bss->if_mac, li->mac, 6);
	}
	lv->skel->rodata->cfg_latency_sample = o->latency_sample;
	if (o->rate_pps) {
		lv->skel->rodata->cfg_rate_cost_ns = 1000000000ULL / o->rate_pps;
		lv->skel->rodata->cfg_rate_tolerance_ns =
			(o->rate_burst - 1) * lv->skel->rodata->cfg_rate_cost_ns;
	}
	if (o->global_pps) {
		lv->skel->rodata->cfg_global_cost_ns = 1000000000ULL / o->global_pps;
		lv->skel->rodata->cfg_global_tolerance_ns =
			(o->global_burst - 1) * lv->skel->rodata->cfg_global_cost_ns;
	}

	lv->prog = xdp_program__from_bpf_obj(lv->skel->obj, "xdp");
	e = libxdp_get_error(lv->prog);
	if (e) {
		lv->prog = NULL;
		err("%s: cannot prepare the XDP program: %s (run with -vv for libbpf's log)",
		    li->name, strerror(-e));
		goto fail;
	}
	if (lv->mode == XDP_MODE_UNSPEC) {
		lv->mode = XDP_MODE_NATIVE;
		e = xdp_program__attach(lv->prog, li->ifindex, lv->mode, 0);
		/* Only "the driver cannot": any other error is reported as is. */
		if (e == -EOPNOTSUPP || e == -EINVAL || e == -ERANGE) {
			note("%s: native XDP not available (%s); using skb mode",
			     li->name, strerror(-e));
			lv->mode = XDP_MODE_SKB;
			e = xdp_program__attach(lv->prog, li->ifindex, lv->mode, 0);
		}
	} else {
		e = xdp_program__attach(lv->prog, li->ifindex, lv->mode, 0);
	}
	if (e) {
		err("failed to attach to %s in %s mode: %s%s", li->name,
		    lv->mode == XDP_MODE_SKB ? "skb" : "native", strerror(-e),
		    attach_hint(-e, lv->mode));
		goto fail;
	}
	lv->attached = true;

	lv->fd4 = bpf_map__fd(lv->skel->maps.xdpong_addr4);
	lv->fd6 = bpf_map__fd(lv->skel->maps.xdpong_addr6);
	for (int i = 0; i < o->n_addrs; i++) {
		char buf[64];

		e = addr_map_put(lv->fd4, lv->fd6, &o->addrs[i], XDPONG_ADDR_OPERATOR);
		if (e) {
			err("%s: cannot add %s to the address map: %s", li->name,
			    prefix_str(&o->addrs[i], buf, sizeof(buf)), strerror(-e));
			goto fail;
		}
		*(o->addrs[i].family == AF_INET ? &n4 : &n6) += 1;
	}
	if (o->iface_addrs) {
		int i4 = 0, i6 = 0;

		e = addr_sync(lv->fd4, lv->fd6, li, false, &i4, &i6);
		if (e) {
			err("cannot read the addresses of %s: %s", li->name, strerror(-e));
			goto fail;
		}
		n4 += i4;
		n6 += i6;
	}
	if (pins_create(lv->skel, li->name))
		goto fail;

	printf("xdpong: attached to %s in %s mode (program id %u), answering for %d IPv4 and %d IPv6 prefixes; maps pinned in %s/%s\n",
	       li->name, lv->mode == XDP_MODE_SKB ? "skb" : "native",
	       xdp_program__id(lv->prog), n4, n6, PIN_ROOT, li->name);
	if (!n4 && !n6)
		note("%s: no addresses to answer for: every ping goes to the kernel (add some with --addr)",
		     li->name);
	fflush(stdout);
	return 0;
fail:
	attach_down(lv, true);
	return -1;
}

void attach_down(struct live *lv, bool detach)
{
	if (detach && lv->attached) {
		/* Nothing half-attached: undo everything this process did. */
		xdp_program__detach(lv->prog, lv->li.ifindex, lv->mode, 0);
		pins_remove(lv->li.name);
		lv->attached = false;
	}
	xdp_program__close(lv->prog);
	lv->prog = NULL;
	xdpong_bpf__destroy(lv->skel);
	lv->skel = NULL;
}

int cmd_attach(int argc, char **argv)
{
	struct attach_opts o;
	struct live lv;

	if (parse_attach(argc, argv, &o, false))
		return EXIT_USAGE;
	if (attach_up(&o, &lv))
		return 1;
	attach_down(&lv, false); /* the program stays attached */
	return 0;
}

static int simple_args(int argc, char **argv, const char *usage_line,
		       bool *json, const char **ifname, bool ifname_required)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	*ifname = NULL;
	while ((c = getopt_long(argc, argv, "vhj", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (!json)
				goto bad;
			*json = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			printf("%s", usage_line);
			exit(0);
		default:
bad:
			return err("unknown option '%s'\n%s", argv[optind - 1], usage_line);
		}
	}
	if (optind < argc)
		*ifname = argv[optind++];
	if (optind < argc)
		return err("unexpected argument '%s'", argv[optind]);
	if (ifname_required && !*ifname)
		return err("missing interface\n%s", usage_line);
	return 0;
}

int cmd_detach(int argc, char **argv)
{
	static const char usage_line[] =
		"Usage: xdpong detach IFACE\n"
		"\n"
		"Detach xdpong from IFACE and remove its pins; the kernel answers pings\n"
		"again. Refuses to touch an XDP program that is not xdpong. If IFACE is\n"
		"gone, removes the pins it left.\n"
		"\n"
		"Examples:\n"
		"  xdpong detach eth0\n"
		"  ip netns exec lab xdpong detach veth0\n";
	struct xdp_program *p;
	struct attachment a;
	struct link_info li;
	const char *ifname;
	__u32 other = 0;
	int ret;

	if (simple_args(argc, argv, usage_line, NULL, &ifname, true))
		return EXIT_USAGE;
	if (require_root())
		return 1;
	if (link_get(ifname, 0, &li)) {
		int removed = pins_remove(ifname);

		if (removed) {
			printf("xdpong: %s is gone; removed its %d stale pins\n",
			       ifname, removed);
			return 0;
		}
		iface_lookup(ifname, &li); /* it failed above: this explains why */
		return 1;
	}
	ret = attachment_find(li.ifindex, &a, &other);
	if (ret == -ENOENT) {
		pins_remove(li.name);
		if (other)
			err("%s has XDP program id %u, which is not xdpong; not touching it",
			    li.name, other);
		else
			err("%s: xdpong is not attached here ('xdpong status' shows where it is)",
			    li.name);
		return 1;
	}
	if (ret) {
		err("cannot inspect the XDP program on %s: %s", li.name, strerror(-ret));
		return 1;
	}
	p = xdp_program__from_id(a.prog_id);
	ret = libxdp_get_error(p);
	if (!ret) {
		ret = xdp_program__detach(p, li.ifindex, a.xdp_mode, 0);
		xdp_program__close(p);
	}
	attachment_close(&a);
	if (ret) {
		err("failed to detach xdpong (program id %u) from %s: %s", a.prog_id,
		    li.name, strerror(-ret));
		return 1;
	}
	pins_remove(li.name);
	printf("xdpong: detached from %s (program id %u); the kernel answers pings again\n",
	       li.name, a.prog_id);
	return 0;
}

static bool pinned_here(const struct attachment *a)
{
	struct bpf_map_info mi = { 0 };
	char dir[256], path[320];
	__u32 len = sizeof(mi);
	bool same = false;
	int fd;

	pin_dir(a->ifname, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, map_pin_names[MAP_STATS]);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	if (!bpf_obj_get_info_by_fd(fd, &mi, &len))
		same = mi.id == a->map_id[MAP_STATS];
	close(fd);
	return same;
}

/* Does the MAC the program compares with still belong to the interface? */
static bool mac_current(const struct attachment *a,
			const struct xdpong_bpf__bss *bss)
{
	struct link_info li;
	__u64 word = 0;

	if (link_get(NULL, a->ifindex, &li) || !li.has_mac)
		return true;
	memcpy(&word, li.mac, 6);
	return word == bss->if_mac;
}

static void status_one(const struct attachment *a, bool json, bool first)
{
	struct xdpong_bpf__rodata ro;
	struct xdpong_bpf__bss bss = { 0 };
	char dir[256];
	bool pinned = pinned_here(a);
	__u32 key = 0;

	rodata_read(a, &ro);
	bpf_map_lookup_elem(a->map_fd[MAP_BSS], &key, &bss);
	pin_dir(a->ifname, dir, sizeof(dir));
	if (json) {
		printf("%s{\"iface\":", first ? "" : ",");
		json_str(stdout, a->ifname);
		printf(",\"ifindex\":%d,\"attached\":true,\"prog_id\":%u,\"mode\":\"%s\","
		       "\"dispatcher\":%s,\"framing\":\"%s\",\"latency_sample\":%u,"
		       "\"trace_enabled\":%s,\"trace_lost\":%llu,\"mac_current\":%s,"
		       "\"pin_dir\":",
		       a->ifindex, a->prog_id, a->mode, a->dispatcher ? "true" : "false",
		       ro.cfg_framing == XDPONG_FRAMING_IP ? "ip" : "ethernet",
		       ro.cfg_latency_sample, bss.trace_enabled ? "true" : "false",
		       (unsigned long long)bss.trace_lost,
		       !ro.cfg_check_mac || mac_current(a, &bss) ? "true" : "false");
		if (pinned)
			json_str(stdout, dir);
		else
			printf("null");
		printf(",\"maps\":{");
		for (int m = 0; m < MAP_COUNT; m++)
			printf("%s\"%s\":%u", m ? "," : "", map_pin_names[m], a->map_id[m]);
		printf("},\"addresses\":[");
		addr_print(stdout, a, true);
		printf("]}");
		return;
	}
	printf("%s: xdpong program id %u, %s mode%s, %s framing\n", a->ifname,
	       a->prog_id, a->mode, a->dispatcher ? " (libxdp dispatcher)" : "",
	       ro.cfg_framing == XDPONG_FRAMING_IP ? "IP (TUN)" : "Ethernet");
	printf("  maps:    ");
	for (int m = 0; m < MAP_COUNT; m++)
		printf("%s %u%s", map_pin_names[m], a->map_id[m],
		       m + 1 < MAP_COUNT ? ", " : "\n");
	if (pinned)
		printf("  pinned:  %s/\n", dir);
	else
		printf("  pinned:  not visible here (pins made inside 'ip netns exec' vanish with it)\n");
	printf("  latency: 1 packet in %u timed%s\n", ro.cfg_latency_sample,
	       ro.cfg_latency_sample ? "" : " (off)");
	if (bss.trace_enabled)
		printf("  trace:   on, %llu events lost (no reader? 'xdpong trace %s --off')\n",
		       (unsigned long long)bss.trace_lost, a->ifname);
	if (ro.cfg_check_mac && !mac_current(a, &bss))
		printf("  WARNING: %s's MAC changed since attach: frames to the new MAC go to the kernel and frames to the old one would be answered; run 'xdpong attach %s --force' (or use 'xdpong run', which follows MAC changes)\n",
		       a->ifname, a->ifname);
	if (ro.cfg_rate_cost_ns)
		printf("  limit:   %llu replies/s per source, burst %llu\n",
		       1000000000ULL / ro.cfg_rate_cost_ns,
		       ro.cfg_rate_tolerance_ns / ro.cfg_rate_cost_ns + 1);
	if (ro.cfg_global_cost_ns)
		printf("  limit:   %llu replies/s in all, burst %llu\n",
		       1000000000ULL / ro.cfg_global_cost_ns,
		       ro.cfg_global_tolerance_ns / ro.cfg_global_cost_ns + 1);
	printf("  answering for:\n");
	addr_print(stdout, a, false);
}

/*
 * Pins of an interface that no longer exists (deleted while attached: the
 * kernel detached the program with it). Remove them unless a live program
 * still uses the maps (same name in another netns). True if there were any.
 */
static bool stale_pins_clean(const char *ifname, bool quiet)
{
	char dir[256], path[320];

	pin_dir(ifname, dir, sizeof(dir));
	if (access(dir, F_OK))
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, map_pin_names[MAP_STATS]);
	if (pinned_map_in_use(path))
		return false;
	pins_remove(ifname);
	if (!quiet)
		note("%s is gone (deleted while xdpong was attached); removed its pins from %s",
		     ifname, dir);
	return true;
}

/* Every pin directory whose interface is gone from this namespace. */
static void stale_pins_sweep(bool quiet)
{
	struct dirent *de;
	DIR *d = opendir(PIN_ROOT);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= IF_NAMESIZE)
			continue;
		if (!if_nametoindex(de->d_name))
			stale_pins_clean(de->d_name, quiet);
	}
	closedir(d);
}

int cmd_status(int argc, char **argv)
{
	static const char usage_line[] =
		"Usage: xdpong status [IFACE] [--json]\n"
		"\n"
		"Show where xdpong is attached in this network namespace: program id,\n"
		"mode, maps, pins and the prefixes it answers for. With IFACE, exits 1\n"
		"if xdpong is not attached there.\n"
		"\n"
		"Examples:\n"
		"  xdpong status\n"
		"  xdpong status eth0 --json\n";
	struct if_nameindex *ifs, *i;
	struct attachment a;
	const char *ifname;
	bool json = false;
	int found = 0;

	if (simple_args(argc, argv, usage_line, &json, &ifname, false))
		return EXIT_USAGE;
	if (require_root())
		return 1;
	if (ifname) {
		struct link_info li;
		__u32 other = 0;
		int ret;

		if (link_get(ifname, 0, &li)) {
			if (stale_pins_clean(ifname, json))
				return 1;
			iface_lookup(ifname, &li); /* it failed above: this explains why */
		return 1;
		}
		ret = attachment_find(li.ifindex, &a, &other);
		if (ret) {
			if (json) {
				printf("{\"interfaces\":[{\"iface\":");
				json_str(stdout, li.name);
				printf(",\"ifindex\":%d,\"attached\":false,\"other_prog_id\":%u}]}\n",
				       li.ifindex, other);
			} else if (other) {
				printf("%s: xdpong not attached (XDP program id %u is)\n",
				       li.name, other);
			} else {
				printf("%s: xdpong not attached\n", li.name);
			}
			return 1;
		}
		if (json)
			printf("{\"interfaces\":[");
		status_one(&a, json, true);
		if (json)
			printf("]}\n");
		attachment_close(&a);
		return 0;
	}

	stale_pins_sweep(json);
	ifs = if_nameindex();
	if (!ifs) {
		err("cannot list interfaces: %s", strerror(errno));
		return 1;
	}
	if (json)
		printf("{\"interfaces\":[");
	for (i = ifs; i->if_index; i++) {
		if (attachment_find(i->if_index, &a, NULL))
			continue;
		status_one(&a, json, !found);
		attachment_close(&a);
		found++;
	}
	if_freenameindex(ifs);
	if (json)
		printf("]}\n");
	else if (!found)
		printf("xdpong is not attached to any interface in this network namespace\n");
	return 0;
}
