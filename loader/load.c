// SPDX-License-Identifier: GPL-2.0
/*
 * Bringing xdpong up and down: load the skeleton, configure it from the
 * options, attach it (falling back from native to skb where the driver
 * cannot), fill the address maps and pin the maps. attach and run share
 * this; it never calls back into them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <net/if_arp.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "loader.h"
#include "skel.h"
#include "ratelimit.h"

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
			log_note("%s: cannot inspect the veth peer (%s); assuming it runs native XDP",
			     li->name, strerror(-ret));
		return 0;
	}
	if (peer.xdp_drv_prog_id)
		return 0;
	if (explicit_native)
		return log_error("%s is a veth whose peer %s (ifindex %d%s) has no native XDP program: in native mode the replies (XDP_TX) would be dropped silently. Load a native XDP program on the peer first, e.g. 'xdpong attach %s --mode native --no-iface-addrs' (answers for nothing, passes everything), or use --mode skb",
			   li->name, peer.name, peer.ifindex,
			   li->link_netnsid >= 0 ? " in another netns" : "", peer.name);
	log_note("%s: veth peer %s has no native XDP program, so native XDP_TX would be dropped: using skb mode",
	     li->name, peer.name);
	*use_skb = true;
	return 0;
}

/* --force on a foreign program: take it down (a gap: it is not ours). */
static int foreign_detach(const struct link_info *li, __u32 prog_id)
{
	struct xdp_multiprog *mp;
	int ret;

	/* Without CAP_SYS_ADMIN libxdp cannot look: the kernel detaches. */
	if (!privs_by_id) {
		ret = bpf_xdp_detach(li->ifindex, mode_flag(attached_mode(li)), NULL) ? -errno : 0;
		goto said;
	}
	mp = xdp_multiprog__get_from_ifindex(li->ifindex);
	ret = libxdp_get_error(mp);
	if (!ret) {
		ret = xdp_multiprog__detach(mp);
		xdp_multiprog__close(mp);
	}
said:
	if (ret)
		return log_error("cannot detach program id %u from %s: %s", prog_id, li->name,
				 strerror(-ret));
	log_note("%s: detached XDP program id %u (--force)", li->name, prog_id);
	return 0;
}

static const char *attach_hint(int e, enum xdp_attach_mode mode)
{
	if (mode == XDP_MODE_NATIVE && (e == EOPNOTSUPP || e == EINVAL))
		return " (the driver has no native XDP; try --mode skb)";
	if (e == EBUSY || e == EEXIST)
		return " (another XDP program is attached; use --force)";
	if (e == EPERM)
		return " (needs CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN)";
	if (e == ERANGE)
		return " (the MTU is too large for XDP on this driver)";
	if (e == E2BIG || e == EACCES)
		return " (the kernel's verifier rejected the program; 'xdpong -vv attach ...' prints its log)";
	return "";
}

/* The skeleton's maps, in the order of enum xdpong_map_id. */
static void map_fds(struct attachment *a)
{
	struct bpf_map_info mi;
	__u32 len;

	for (int m = 0; m < MAP_COUNT; m++) {
		a->map_fd[m] = bpf_map__fd(skel_map(a->skel, m));
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(a->map_fd[m], &mi, &len))
			a->map_id[m] = mi.id;
	}
}

/*
 * Refuse, without side effects, what must not be touched: an xdpong a live
 * `xdpong run` owns (another process: a run claims before it loads).
 */
static int may_take(const struct link_info *li, const struct attachment *old, bool have_old)
{
	struct owner_info who;

	if (have_old && !owner_query(li->ifindex, &who) && who.pid != getpid()) {
		char since[64] = "";

		if (who.since) {
			struct tm tm;

			localtime_r(&who.since, &tm);
			strftime(since, sizeof(since), ", running since %F %T", &tm);
		}
		return log_error("%s is owned by 'xdpong run' (pid %d%s; program id %u): stop that first (systemctl stop, or kill %d); --force does not take a live run's interface",
				 li->name, who.pid, since, old->prog_id, who.pid);
	}
	return 0;
}

/*
 * The loaded program handed to libxdp (chain_attach): alone, or into the
 * dispatcher if it is an extension. Auto mode: native, else skb. 0 or
 * -errno, unsaid.
 */
static int attach_auto(struct attachment *lv, enum xdp_attach_mode *mode)
{
	int e;

	if (*mode != XDP_MODE_UNSPEC)
		return chain_attach(lv, *mode);
	*mode = XDP_MODE_NATIVE;
	e = chain_attach(lv, *mode);
	/* Only "the driver cannot": any other error is reported as is. */
	if (e == -EOPNOTSUPP || e == -EINVAL || e == -ERANGE) {
		log_note("%s: native XDP not available (%s); using skb mode", lv->li.name,
			 strerror(-e));
		*mode = XDP_MODE_SKB;
		e = chain_attach(lv, *mode);
	}
	return e;
}

/* Attach a loaded program where nothing of ours is: libxdp, native else skb. */
static int attach_fresh(struct attachment *lv, enum xdp_attach_mode *mode)
{
	struct link_info *li = &lv->li;
	int e;

	/* Without CAP_SYS_ADMIN libxdp cannot read the program (its BTF by
	 * id): chain_attach attaches it alone through netlink. */
	lv->prog = privs_by_id ? xdp_program__from_fd(lv->prog_fd) : NULL;
	e = privs_by_id ? libxdp_get_error(lv->prog) : 0;
	if (e) {
		lv->prog = NULL;
		return log_error("%s: cannot hand the program to libxdp: %s", li->name, strerror(-e));
	}
	e = attach_auto(lv, mode);
	if (e)
		return log_error("failed to attach to %s in %s mode: %s%s", li->name,
				 mode_name(*mode), strerror(-e), attach_hint(-e, *mode));
	return 0;
}

/*
 * Put the new program where the old xdpong is, in one step: the kernel
 * swaps them (XDP_FLAGS_REPLACE) only if the old one is still there, so
 * not one packet meets no program. Through libxdp's dispatcher, or into
 * another mode, there is no such swap: detach, then attach.
 */
static int attach_replace(struct attachment *lv, const struct attachment *old,
			  enum xdp_attach_mode *mode)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = old->prog_fd);
	struct link_info *li = &lv->li;
	/* Found by its pins (no CAP_SYS_ADMIN), the old program has no
	 * descriptor here: the kernel still swaps the two in one step, and the
	 * owner lock keeps any other xdpong from changing it meanwhile. */
	__u32 replace = old->prog_fd >= 0 ? XDP_FLAGS_REPLACE : 0;
	int e;

	if (!old->dispatcher && (int)*mode == old->xdp_mode) {
		if (bpf_xdp_attach(li->ifindex, lv->prog_fd, replace | mode_flag(*mode),
				   replace ? &opts : NULL))
			return log_error("cannot replace program id %u on %s: %s%s", old->prog_id,
					 li->name, strerror(errno), attach_hint(errno, *mode));
		return 0;
	}
	log_note("%s: %s: the old program (id %u) is detached before the new one attaches, so pings in between go to the kernel",
		 li->name, old->dispatcher ? "attached through libxdp's dispatcher" :
					     "changing mode", old->prog_id);
	if (!privs_by_id) {
		e = bpf_xdp_detach(li->ifindex, mode_flag(old->xdp_mode), NULL) ? -errno : 0;
	} else {
		struct xdp_program *p = xdp_program__from_id(old->prog_id);

		e = libxdp_get_error(p);
		if (!e) {
			e = xdp_program__detach(p, li->ifindex, old->xdp_mode, 0);
			xdp_program__close(p);
		}
		if (e)
			return log_error("cannot detach program id %u from %s: %s", old->prog_id,
					 li->name, strerror(-e));
	}
	return attach_fresh(lv, mode);
}

/*
 * What this kernel cannot do for the options asked, each said with the
 * kernel's release and what is missing (probe.h: found by trying, not
 * from the version). 0, or -1 when xdpong cannot run as asked.
 */
static int kernel_check(const struct link_info *li, const struct opts *o)
{
	static const enum feature needed[] = { FEAT_XDP, FEAT_BTF, FEAT_RINGBUF };

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		enum feature f = needed[i];

		if (!feature_have(f))
			return log_error("Linux %s cannot run xdpong: it lacks %s (Linux %s and later have it): %s",
					 kernel_release(), feature_info[f].what,
					 feature_info[f].since, feature_why(f));
	}
	if ((o->rate_pps || o->global_pps) && !feature_have(FEAT_CMPXCHG))
		return log_error("%s: --rate-limit and --global-limit need %s, which Linux %s lacks (Linux %s and later have it): %s",
				 li->name, feature_info[FEAT_CMPXCHG].what, kernel_release(),
				 feature_info[FEAT_CMPXCHG].since, feature_why(FEAT_CMPXCHG));
	return 0;
}

/* Pins are for bpftool; a failure here is said, and changes nothing else.
 * Whether the maps are pinned. */
static bool pins_refresh(const struct attachment *lv, __u32 old_stats_id)
{
	if (bpffs_ensure())
		goto not_pinned;
	/* An earlier xdpong whose dispatcher was detached without libxdp
	 * (`ip link set dev IFACE xdp off`, then a kill -9 or a watchdog's
	 * restart) is held by libxdp's pins alone, and would keep its maps'
	 * pins in use: they go first (leftover.c), its counters with them. */
	leftovers_release(lv->li.name, lv->li.ifindex, 0);
	if (pins_prepare(lv->li.name, old_stats_id))
		goto not_pinned;
	pins_remove(lv->li.name); /* the old program's, or none */
	if (!pins_create(lv->li.name, lv->map_fd)) {
		if (txwatch_pin(lv))
			log_note("%s: the XDP_TX failure count is not pinned: it stops when this process exits",
				 lv->li.name);
		return true;
	}
	pins_remove(lv->li.name);
not_pinned:
	log_note("%s: maps not pinned: every xdpong command still finds them through the attached program",
		 lv->li.name);
	return false;
}

/* Why xdpong attaches alone where it would share: said once per process. */
static void alone_say(const char *name, const char *why)
{
	static bool said;

	if (!said)
		log_note("%s: %s: attaching alone, so no other XDP program can share %s", name,
			 why, name);
	said = true;
}

/* What load_up's phases share, in the order they fill it. */
struct bringup {
	const struct opts *o;
	struct attachment *lv;   /* what is being brought up */
	struct attachment old;   /* xdpong already there (have_old) */
	bool have_old;
	__u32 foreign;           /* another program there, 0 if none */
	struct chain_info chain; /* what runs there now */
	bool share;              /* through libxdp's dispatcher (chain.c) */
	char alone_why[400];     /* why not, when not */
	enum xdp_attach_mode mode;
	struct takeover tk;
	int n4, n6;              /* prefixes answered for */
};

/* The programs of the chain that are not xdpong, for messages:
 * "xdp-filter (id 12), xdp_pass (id 19)". */
static const char *others_list(const struct chain_info *c, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < c->n && len < size; i++)
		if (!c->p[i].xdpong)
			len += snprintf(buf + len, size - len, "%s%s (id %u)", len ? ", " : "",
					c->p[i].name, c->p[i].id);
	return buf;
}

/*
 * Another program there: join it in its dispatcher, or replace it with
 * --force, or refuse, saying which choices there are. 0 or -1.
 */
static int foreign_check(const struct bringup *b)
{
	const char *name = b->lv->li.name;
	char others[256];

	if (b->have_old || !b->foreign || (b->share && b->chain.dispatcher) || b->o->force)
		return 0;
	others_list(&b->chain, others, sizeof(others));
	if (!privs_by_id)
		return log_error("%s already has an XDP program (id %u), which xdpong can neither identify without CAP_SYS_ADMIN (no xdpong pins name it) nor share the interface with (%s). --force replaces it",
				 name, b->foreign, b->alone_why);
	if (b->chain.dispatcher)
		return log_error("%s runs %s through libxdp's dispatcher, but xdpong cannot join it here: %s. --force replaces them all",
				 name, others, b->alone_why);
	if (b->share)
		return log_error("%s already has an XDP program, %s, attached alone rather than through libxdp's dispatcher, so it cannot share the interface. --force replaces it; loaded with xdp-loader or another libxdp tool, it would share %s with xdpong",
				 name, others, name);
	return log_error("%s already has an XDP program, %s, and xdpong cannot share the interface with it: %s. --force replaces it; a kernel that allows libxdp's dispatcher (Debian 12's and 13's do) lets them share",
			 name, others, b->alone_why);
}

/* 1. What is on the interface, and whether we may touch it. 0 or -1. */
static int up_inspect(struct bringup *b, const char *ifname)
{
	struct link_info *li = &b->lv->li;
	int e;

	if (require_privileges(PRIVS_ATTACH) || iface_lookup(ifname, li))
		return -1;
	if (li->type == ARPHRD_LOOPBACK)
		return log_error("%s: xdpong does not attach to loopback: pings to local addresses never cross a driver, and the kernel answers them itself",
				 li->name);
	if (li->type != ARPHRD_ETHER && li->type != ARPHRD_NONE)
		return log_error("%s: link type %u is not supported (Ethernet, TAP and TUN are)",
				 li->name, li->type);
	/* Without CAP_SYS_ADMIN its pins are how xdpong finds itself again. */
	if (!privs_by_id && !bpffs_here())
		return log_error("%s: there is no bpffs at %s for xdpong's pins, and without CAP_SYS_ADMIN xdpong neither mounts one nor could find itself again without them (under 'ip netns exec' each command has a /sys of its own: use 'nsenter --net=/run/netns/NAME', or mount one: mount -t bpf bpf %s)",
				 li->name, BPFFS_ROOT, BPFFS_ROOT);
	e = attachment_find(li->ifindex, &b->old, &b->foreign);
	if (e == -ENOPKG) /* no pins to tell (no CAP_SYS_ADMIN): a stranger */
		e = -ENOENT;
	if (e && e != -ENOENT)
		return log_error("cannot inspect the XDP program on %s: %s", li->name, strerror(-e));
	b->have_old = !e;
	if (!b->have_old && !b->foreign)
		b->foreign = li->xdp_prog_id;
	e = chain_query(li->ifindex, &b->chain);
	if (e)
		return log_error("cannot inspect the XDP programs on %s: %s", li->name, strerror(-e));
	return may_take(li, &b->old, b->have_old);
}

/*
 * 2a. Alone, or in libxdp's dispatcher: a takeover keeps the way the old
 * program is attached (alone, the kernel swaps the two atomically); else
 * the dispatcher wherever libxdp can keep one. 0 or -1.
 */
static int up_choose_way(struct bringup *b)
{
	const char *name = b->lv->li.name;
	enum chain_way way;
	bool possible;

	if (!privs_by_id && b->have_old && b->old.dispatcher)
		return log_error("%s: xdpong (program id %u) runs in libxdp's dispatcher: taking it over needs CAP_SYS_ADMIN (libxdp finds the dispatcher by program id). Nothing was changed",
				 name, b->old.prog_id);
	/* A lone xdpong is taken over alone: the dispatcher is not asked. */
	if (b->have_old && !b->old.dispatcher) {
		b->share = false;
		return 0;
	}
	way = chain_possible(b->alone_why, sizeof(b->alone_why));
	possible = way == CHAIN_OK;
	if (way == CHAIN_ERROR)
		return log_error("%s: %s", name, b->alone_why);
	b->share = possible;
	if (b->have_old && b->old.dispatcher && !possible) {
		char others[256];

		/* Out of the chain and back alone works only where xdpong is all
		 * the chain holds: else the others keep the dispatcher there. */
		if (b->chain.n > 1)
			return log_error("%s: xdpong runs in libxdp's dispatcher with %s, and cannot be taken over inside it here: %s. Nothing was changed",
					 name, others_list(&b->chain, others, sizeof(others))[0] ?
					 others : "another xdpong", b->alone_why);
		log_note("%s: the xdpong in libxdp's dispatcher cannot be taken over inside it here: %s",
			 name, b->alone_why);
	}
	if (foreign_check(b))
		return -1;
	/* A refusal is news; no bpffs (ip netns exec) or the switch is not. */
	if (!b->have_old && !possible && (way == CHAIN_REFUSED || verbose))
		alone_say(name, b->alone_why);
	return 0;
}

/* 2. The mode, and what the kernel and a veth peer allow. 0 or -1. */
static int up_choose_mode(struct bringup *b)
{
	const struct opts *o = b->o;
	struct link_info *li = &b->lv->li;
	bool use_skb = false, any_addrs = !o->no_iface_addrs || o->n_addrs;

	b->mode = o->mode == MODE_NATIVE ? XDP_MODE_NATIVE :
		  o->mode == MODE_SKB    ? XDP_MODE_SKB :
					   XDP_MODE_UNSPEC;
	/* Auto takes over in the mode the old program has: no gap; and joins
	 * a dispatcher in its mode. */
	if (b->have_old && b->mode == XDP_MODE_UNSPEC)
		b->mode = b->old.xdp_mode;
	else if (b->share && b->chain.dispatcher && b->mode == XDP_MODE_UNSPEC)
		b->mode = b->chain.mode;
	/* A program that answers for nothing never transmits: no peer needed. */
	if (b->mode != XDP_MODE_SKB && any_addrs &&
	    check_veth_peer(li, b->mode == XDP_MODE_NATIVE, &use_skb))
		return -1;
	if (use_skb)
		b->mode = XDP_MODE_SKB;
	return kernel_check(li, o);
}

/* 3. The BPF object, opened and configured (rodata: frozen at load). */
static int up_open(struct bringup *b)
{
	const struct opts *o = b->o;
	struct attachment *lv = b->lv;
	struct link_info *li = &lv->li;

	lv->skel = xdpong_skel_open();
	if (!lv->skel)
		return log_error("%s: cannot open the BPF object: %s (run with -vv for libbpf's log)",
				 li->name, strerror(errno));
	/* TUN frames start at the IP header: decided once, not per packet. */
	lv->skel->rodata->cfg_framing = li->type == ARPHRD_NONE ?
						XDPONG_FRAMING_IP : XDPONG_FRAMING_ETH;
	lv->skel->rodata->cfg_check_mac = li->type == ARPHRD_ETHER && li->has_mac;
	lv->skel->rodata->cfg_latency_sample = o->latency_sample;
	lv->skel->rodata->cfg_ifindex = li->ifindex;
	lv->skel->rodata->cfg_netns_ino = netns_ino();
	lv->skel->rodata->cfg_gen = chain_new_gen();
	xdpong_skel_set_frags(lv->skel);
	xdpong_skel_set_txwatch(lv->skel);
	limits_configure(lv->skel->rodata, o->rate_pps, o->rate_burst, o->global_pps,
			 o->global_burst, libbpf_num_possible_cpus());
	if (b->share) {
		int e = chain_prepare(lv, o->priority);

		if (e)
			return log_error("%s: cannot prepare xdpong for libxdp's dispatcher: %s",
					 li->name, strerror(-e));
	}
	return 0;
}

/* 4. Loaded, with the old program's maps reused or copied over. 0, -1,
 * or 1: the kernel refuses the extension program the dispatcher needs. */
static int up_load(struct bringup *b)
{
	struct attachment *lv = b->lv;
	struct link_info *li = &lv->li;
	int e;

	if (b->have_old && takeover_prepare(&b->old, lv->skel, &b->tk))
		return -1;
	e = xdpong_bpf__load(lv->skel);
	chain_anchor_free(lv);
	if (e && b->share && chain_refused(-e)) {
		/* Linux 5.10 takes extensions, but its verifier cannot check
		 * one whose global functions take the context, as xdpong's do. */
		snprintf(b->alone_why, sizeof(b->alone_why),
			 "this kernel cannot load xdpong as the extension program libxdp's dispatcher needs (%s; 'xdpong -vv attach' prints the verifier's log)",
			 strerror(-e));
		return 1;
	}
	if (e)
		return log_error("%s: cannot load the BPF program: %s%s", li->name, strerror(-e),
				 attach_hint(-e, b->mode));
	lv->prog_fd = bpf_program__fd(lv->skel->progs.xdpong);
	map_fds(lv);
	/* For the commands without CAP_SYS_ADMIN, which read the maps by it. */
	e = btfstore_save(lv->skel->obj, li->ifindex);
	if (e)
		log_note("%s: cannot keep the program's BTF in /run/xdpong/btf (%s): commands without CAP_SYS_ADMIN cannot read these maps",
			 li->name, strerror(-e));
	/* The MAC, live in .bss (a reused .bss holds the old one). */
	if (li->type == ARPHRD_ETHER && li->has_mac)
		memcpy((void *)&lv->skel->bss->if_mac, li->mac, 6);
	return b->have_old ? takeover_migrate(&b->old, lv, &b->tk) : 0;
}

/* 5. The addresses to answer for: the configuration's prefixes, and the
 * interface's (or none). A reused map keeps the operator's runtime
 * prefixes as they are. */
static int up_fill(struct bringup *b)
{
	const struct opts *o = b->o;
	struct attachment *lv = b->lv;
	int e, i4 = 0, i6 = 0;

	e = addr_sync_config(lv->map_fd[MAP_ADDR4], lv->map_fd[MAP_ADDR6], o->addrs, o->n_addrs);
	if (e)
		return log_error("%s: cannot fill the address map: %s", lv->li.name, strerror(-e));
	for (int i = 0; i < o->n_addrs; i++)
		*(o->addrs[i].family == AF_INET ? &b->n4 : &b->n6) += 1;
	e = addr_sync(lv->map_fd[MAP_ADDR4], lv->map_fd[MAP_ADDR6],
		      o->no_iface_addrs ? NULL : &lv->li, o->host_addrs, false, &i4, &i6);
	if (e)
		return log_error("cannot read the addresses of %s: %s", lv->li.name, strerror(-e));
	b->n4 += i4;
	b->n6 += i6;
	e = addr_own_sync(lv->map_fd[MAP_ADDR4], lv->map_fd[MAP_ADDR6], lv->map_fd[MAP_BSS]);
	if (e)
		return log_error("%s: cannot write the program's address lists: %s", lv->li.name,
				 strerror(-e));
	return 0;
}

/*
 * Into libxdp's dispatcher: the one there, or a new one. Auto mode tries
 * native, then skb, as attach_fresh does. 0, -1 said, or 1: libxdp could
 * not build a dispatcher here, and nothing else is on the interface.
 */
static int attach_shared(struct bringup *b)
{
	struct link_info *li = &b->lv->li;
	int e = attach_auto(b->lv, &b->mode);

	if (!e)
		return 0;
	/* libxdp says EOPNOTSUPP where it cannot build a dispatcher, and the
	 * kernel EINVAL where libxdp then attaches the extension alone. */
	if (!b->foreign && (e == -EOPNOTSUPP || e == -EINVAL)) {
		snprintf(b->alone_why, sizeof(b->alone_why),
			 "libxdp could not build a dispatcher here (%s)", strerror(-e));
		return 1;
	}
	return log_error("failed to attach to %s through libxdp's dispatcher in %s mode: %s%s",
			 li->name, mode_name(b->mode), strerror(-e), attach_hint(-e, b->mode));
}

/* 6. Everything is ready: only now does anything on the interface change.
 * 0, -1, or 1 (attach_shared's). */
static int up_attach(struct bringup *b)
{
	struct attachment *lv = b->lv;
	int e;

	/* A foreign program goes only where xdpong cannot join it (--force). */
	if (!b->have_old && b->foreign && !(b->share && b->chain.dispatcher)) {
		if (foreign_detach(&lv->li, b->foreign))
			return -1;
		b->foreign = 0; /* gone: a retry alone has nothing to replace */
	}
	if (b->share && b->have_old) {
		struct xdpong_bpf__rodata old_ro;
		/* The protocol needs the word shared (reused) and the old
		 * program's generation (a build without it has none). */
		bool proto = b->tk.reused[MAP_ACTIVE] && !rodata_read(&b->old, &old_ro);

		e = chain_takeover(lv, &b->old, proto ? old_ro.cfg_gen : 0,
				   proto ? lv->skel->rodata->cfg_gen : 0, b->mode, &b->tk);
	} else if (b->share) {
		e = attach_shared(b);
	} else {
		/* Alone, every xdpong acts (a killed takeover in a chain may
		 * have left the word naming another). */
		chain_active_set(lv->map_fd[MAP_ACTIVE], 0);
		e = b->have_old ? attach_replace(lv, &b->old, &b->mode) : attach_fresh(lv, &b->mode);
		if (!e && b->have_old)
			takeover_settle(&b->old, lv, &b->tk);
	}
	if (e)
		return e;
	lv->attached_here = true;
	lv->dispatcher = b->share;
	/* Before the old program's pins (and its links) go: no failure is
	 * missed, and one in that instant may be counted twice. */
	txwatch_start(lv);
	lv->xdp_mode = b->mode;
	lv->mode = mode_name(b->mode);
	{
		struct bpf_prog_info pi = { 0 };
		__u32 len = sizeof(pi);

		if (!bpf_obj_get_info_by_fd(lv->prog_fd, &pi, &len))
			lv->prog_id = pi.id;
	}
	e = self_record(lv);
	if (e)
		log_note("%s: cannot write the program's ids into its .bss (%s): commands without CAP_SYS_ADMIN cannot find it",
			 lv->li.name, strerror(-e));
	return 0;
}

/* Where xdpong sits in the dispatcher's chain, said in one line. */
static void chain_report(const struct link_info *li, __u32 prog_id)
{
	struct chain_info c;
	char list[512];
	size_t len = 0;
	int pos;

	if (chain_query(li->ifindex, &c) || !c.dispatcher)
		return;
	pos = chain_position(&c, prog_id);
	list[0] = 0;
	for (int i = 0; i < c.n && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s (id %u, priority %u)",
				i ? ", " : "", c.p[i].name, c.p[i].id, c.p[i].priority);
	if (pos >= 0)
		log_note("%s: runs in libxdp's dispatcher (program id %u), %d of %d, at priority %u: %s",
			 li->name, c.dispatcher_id, pos + 1, c.n, c.p[pos].priority, list);
}

/* 7. Pins, and what was done, said. */
static void up_report(struct bringup *b)
{
	struct attachment *lv = b->lv;
	const struct link_info *li = &lv->li;
	char dir[256];
	bool pinned = pins_refresh(lv, b->have_old ? b->old.map_id[MAP_STATS] : 0);

	pin_dir(li->name, dir, sizeof(dir));
	/* attach's result goes to stdout; run's stdout is for its samples. */
	fprintf(b->o->cmd == CMD_RUN ? stderr : stdout,
		"xdpong: attached to %s in %s mode (program id %u), answering for %d IPv4 and %d IPv6 prefixes%s%s\n",
		li->name, lv->mode, lv->prog_id, b->n4, b->n6,
		pinned ? "; maps pinned in " : "", pinned ? dir : "");
	btfstore_prune(lv, false); /* what no map of it names any more */
	if (b->have_old)
		log_note("%s: took over from program id %u%s: %d of its maps kept as they are, the rest carried over by name",
			 li->name, b->old.prog_id,
			 !b->share && (b->old.dispatcher || (int)b->mode != b->old.xdp_mode) ?
			 " (with the gap said above)" : " without a gap", b->tk.n_reused);
	if (lv->dispatcher)
		chain_report(li, lv->prog_id);
	if (!b->n4 && !b->n6 && !b->tk.reused[MAP_ADDR4] && !b->tk.reused[MAP_ADDR6])
		log_note("%s: no addresses to answer for: every ping goes to the kernel (add some with --addr)",
			 li->name);
	fflush(stdout);
}

static void lv_reset(struct attachment *lv)
{
	memset(lv, 0, sizeof(*lv));
	lv->prog_fd = -1;
	for (int m = 0; m < MAP_COUNT; m++)
		lv->map_fd[m] = -1;
}

static void tk_free(struct takeover *tk)
{
	for (int m = 0; m < MAP_COUNT; m++) {
		free(tk->copied[m]);
		tk->copied[m] = NULL;
	}
}

/*
 * Where the kernel or libxdp refuses the dispatcher (phases 4 and 6 say
 * 1), xdpong attaches alone, as it does where there is none, and says so
 * once per process. Another program there then needs --force.
 */
static int up_alone(struct bringup *b, enum xdp_attach_mode mode)
{
	struct link_info li = b->lv->li;

	load_down(b->lv, false);
	lv_reset(b->lv);
	b->lv->li = li;
	tk_free(&b->tk);
	b->share = false;
	b->mode = mode;
	b->n4 = b->n6 = 0;
	if (foreign_check(b))
		return -1;
	alone_say(li.name, b->alone_why);
	return 0;
}

int load_up(const char *ifname, const struct opts *o, struct attachment *lv)
{
	struct bringup b = { .o = o, .lv = lv };
	enum xdp_attach_mode mode;
	int ret = -1, r;

	lv_reset(lv);
	if (up_inspect(&b, ifname) || up_choose_way(&b) || up_choose_mode(&b))
		goto out;
	mode = b.mode;
	for (int tries = 0; tries < 2; tries++) {
		r = up_open(&b);
		r = r ?: up_load(&b);
		r = r ?: up_fill(&b);
		r = r ?: up_attach(&b);
		if (r <= 0 || !b.share)
			break;
		if (up_alone(&b, mode))
			goto out;
	}
	if (r) {
		load_down(lv, true);
		goto out;
	}
	up_report(&b);
	ret = 0;
out:
	tk_free(&b.tk);
	if (b.have_old)
		attachment_close(&b.old);
	return ret;
}

void load_down(struct attachment *lv, bool detach)
{
	if (detach && lv->attached_here) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = lv->prog_fd);

		/* Only our program: if another took its place, leave that one be. */
		if (bpf_xdp_detach(lv->li.ifindex, mode_flag(lv->xdp_mode), &opts) && lv->prog)
			xdp_program__detach(lv->prog, lv->li.ifindex, lv->xdp_mode, 0);
		/* Its dispatcher detached without libxdp: what libxdp left of it
		 * holds our program (leftover.c). */
		if (lv->dispatcher)
			leftovers_release(lv->li.name, lv->li.ifindex, lv->prog_id);
		/* Ours or stale; never another namespace's live ones. */
		pins_release(lv->li.name, lv->map_id[MAP_STATS]);
		btfstore_prune(lv, true);
		lv->attached_here = false;
	}
	attachment_close(lv);
}
