// SPDX-License-Identifier: GPL-2.0
/*
 * Bringing xdpong up and down: load the skeleton, configure it from the
 * options, attach it (falling back from native to skb where the driver
 * cannot), fill the address maps and pin the maps. attach and run share
 * this; it never calls back into them. load_up runs its phases in the
 * order they are numbered here: 1 up_inspect, 2 up_choose_way, 3
 * up_choose_mode, 4 up_open, 5 up_load, 6 up_fill, 7 up_attach (hook.c
 * acts), 8 up_report (report.c); what they may do is checks.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if_arp.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "up.h"
#include "bringup.h"
#include "xdpong.skel.h"
#include "anchor.skel.h"

/* The skeleton's maps, in the order of enum xdpong_map_id. */
static void map_fds(struct attachment *a)
{
	struct bpf_map_info mi;
	__u32 len;

	for (int m = 0; m < MAP_COUNT; m++) {
		a->map_fd[m] = bpf_map__fd(skel_map(a->loaded->skel, m));
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(a->map_fd[m], &mi, &len))
			a->map_id[m] = mi.id;
	}
}

/* 1. What is on the interface, and whether we may touch it. 0 or -1. */
static int up_inspect(struct bringup *b, const char *ifname)
{
	struct link_info *li = &b->lv->li;
	int e;

	if (require_privileges(PRIVS_ATTACH) || iface_lookup(ifname, li))
		return -1;
	if (li->type == ARPHRD_LOOPBACK)
		return log_error("%s: xdpong does not attach to loopback: pings to local addresses "
				 "never cross a driver, and the kernel answers them itself",
				 li->name);
	if (li->type != ARPHRD_ETHER && li->type != ARPHRD_NONE)
		return log_error("%s: link type %u is not supported (Ethernet, TAP and TUN are)",
				 li->name, li->type);
	/* Without CAP_SYS_ADMIN its pins are how xdpong finds itself again. */
	if (!privs_by_id && !bpffs_here())
		return log_error("%s: there is no bpffs at %s for xdpong's pins, and without "
				 "CAP_SYS_ADMIN xdpong neither mounts one nor could find itself "
				 "again without them (under 'ip netns exec' each command has a "
				 "/sys of its own: use 'nsenter --net=/run/netns/NAME', or mount "
				 "one: mount -t bpf bpf %s)",
				 li->name, BPFFS_ROOT, BPFFS_ROOT);
	e = attachment_find(li->ifindex, &b->old, &b->foreign);
	if (e == -ENOPKG) /* no pins to tell (no CAP_SYS_ADMIN): a stranger */
		e = -ENOENT;
	if (e && e != -ENOENT)
		return log_error("cannot inspect the XDP program on %s: %s", li->name,
				 strerror(-e));
	b->have_old = !e;
	if (!b->have_old && !b->foreign)
		b->foreign = li->xdp_prog_id;
	e = chain_query(li->ifindex, &b->chain);
	if (e)
		return log_error("cannot inspect the XDP programs on %s: %s", li->name,
				 strerror(-e));
	return may_take(li, &b->old, b->have_old);
}

/*
 * 2. Alone, or in libxdp's dispatcher: a takeover keeps the way the old
 * program is attached (alone, the kernel swaps the two atomically); else
 * the dispatcher wherever libxdp can keep one. 0 or -1.
 */
static int up_choose_way(struct bringup *b)
{
	const char *name = b->lv->li.name;
	enum chain_way way;
	bool possible;

	if (!privs_by_id && b->have_old && b->old.dispatcher)
		return log_error("%s: xdpong (program id %u) runs in libxdp's dispatcher: taking "
				 "it over needs CAP_SYS_ADMIN (libxdp finds the dispatcher by "
				 "program id). Nothing was changed",
				 name, b->old.prog_id);
	if (b->o->stamp_driver)
		return check_stamp_driver(b);
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
			return log_error("%s: xdpong runs in libxdp's dispatcher with %s, and "
					 "cannot be taken over inside it here: %s. Nothing was "
					 "changed",
					 name,
					 others_list(&b->chain, others, sizeof(others))[0] ?
						 others :
						 "another xdpong",
					 b->alone_why);
		log_note("%s: the xdpong in libxdp's dispatcher cannot be taken over inside it "
			 "here: %s",
			 name, b->alone_why);
	}
	if (foreign_check(b))
		return -1;
	/* A refusal is news; no bpffs (ip netns exec) or the switch is not. */
	if (!b->have_old && !possible && (way == CHAIN_REFUSED || verbose))
		alone_say(name, b->alone_why);
	return 0;
}

/* 3. The mode, and what the kernel and a veth peer allow. 0 or -1. */
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
	if (o->stamp_driver) /* native only (checks.c) */
		b->mode = XDP_MODE_NATIVE;
	else if (b->have_old && b->mode == XDP_MODE_UNSPEC)
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

/*
 * The address maps' size, set before load: --max-prefixes where it is
 * given, else the running xdpong's (a takeover keeps the size, and so can
 * reuse its maps), else the default. Another size than the running one
 * takes fresh maps, which takeover_migrate fills with every entry: a
 * smaller one is refused here, before anything changes, where those
 * entries would not fit, as is one smaller than the --addr list. 0 or -1.
 */
static int up_size(struct bringup *b)
{
	static const char *const fam[2] = { "IPv4", "IPv6" };
	bool asked = opts_seen(b->o, "max-prefixes");
	const char *name = b->lv->li.name;

	for (int f = 0; f < 2; f++) {
		int m = f ? MAP_ADDR6 : MAP_ADDR4, fd = b->old.map_fd[m];
		__u32 want = b->o->max_prefixes, old_max = 0, used = 0;
		int n_addrs = opts_addrs_of(b->o, f ? AF_INET6 : AF_INET);

		if (b->have_old && fd >= 0 && !addr_map_room(fd, NULL, &old_max)) {
			if (!asked)
				want = old_max;
			else if (want < old_max && !addr_map_room(fd, &used, NULL) && used > want)
				return log_error("%s: the running xdpong answers for %u %s "
						 "prefixes, "
						 "more than --max-prefixes %u holds. Nothing was "
						 "changed: remove some first ('xdpong addr %s "
						 "del')",
						 name, used, fam[f], want, name);
		}
		if ((__u32)n_addrs > want)
			return log_error("%s: %d %s --addr prefixes, more than the address maps "
					 "hold (%u): raise --max-prefixes. Nothing was changed",
					 name, n_addrs, fam[f], want);
		b->room[f] = want;
		b->old_room[f] = old_max;
		if (bpf_map__set_max_entries(skel_map(b->lv->loaded->skel, m), want))
			return log_error("%s: cannot size the %s address map: %s", name, fam[f],
					 strerror(errno));
	}
	return 0;
}

/* --stamp-driver: the NIC's PTP hardware clock into rodata, for status
 * and run to find (cfg_stamp_phc). 0 or -1 (said). */
static int stamp_phc_find(struct xdpong_bpf *skel, const char *ifname)
{
	int phc, e = phc_index(ifname, &phc);

	if (e)
		return log_error("%s: cannot ask the driver for its PTP hardware clock: %s", ifname,
				 strerror(-e));
	if (phc < 0)
		log_note("%s has no PTP hardware clock to read its timestamps by: every STAMP T2 "
			 "comes from the system clock, as without --stamp-driver",
			 ifname);
	skel->rodata->cfg_stamp_phc = phc;
	return 0;
}

/* 4. The BPF object, opened and configured (rodata: frozen at load). */
static int up_open(struct bringup *b)
{
	const struct opts *o = b->o;
	struct attachment *lv = b->lv;
	struct link_info *li = &lv->li;

	lv->loaded->skel = o->stamp_driver ? xdpong_skel_open_rxts(li->ifindex) :
					     xdpong_skel_open();
	lv->loaded->bound = o->stamp_driver;
	if (!lv->loaded->skel)
		return log_error("%s: cannot open the BPF object: %s (run with -vv for libbpf's "
				 "log)",
				 li->name, strerror(errno));
	/* TUN frames start at the IP header: decided once, not per packet. */
	lv->loaded->skel->rodata->cfg_framing = li->type == ARPHRD_NONE ? XDPONG_FRAMING_IP :
									  XDPONG_FRAMING_ETH;
	lv->loaded->skel->rodata->cfg_check_mac = li->type == ARPHRD_ETHER && li->has_mac;
	lv->loaded->skel->rodata->cfg_latency_sample = o->latency_sample;
	lv->loaded->skel->rodata->cfg_ifindex = li->ifindex;
	lv->loaded->skel->rodata->cfg_netns_ino = netns_ino();
	lv->loaded->skel->rodata->cfg_gen = chain_new_gen();
	xdpong_skel_set_frags(lv->loaded->skel);
	xdpong_skel_set_txwatch(lv->loaded->skel);
	limits_configure(lv->loaded->skel->rodata, o->rate_pps, o->rate_burst, o->global_pps,
			 o->global_burst, libbpf_num_possible_cpus());
	/* STAMP (0: off, and the verifier drops its path), on the best
	 * clock the kernel gives a program. */
	lv->loaded->skel->rodata->cfg_stamp_port = o->stamp_port;
	if (o->stamp_port)
		lv->loaded->skel->rodata->cfg_stamp_clock = stamp_clock_source();
	if (o->stamp_driver && stamp_phc_find(lv->loaded->skel, li->name))
		return -1;
	if (up_size(b))
		return -1;
	if (b->share) {
		int e = chain_prepare(lv, o->priority);

		if (e)
			return log_error("%s: cannot prepare xdpong for libxdp's dispatcher: %s",
					 li->name, strerror(-e));
	}
	return 0;
}

/* STAMP's clock into the loaded program's .bss: its offset to UTC and
 * the Error Estimate its replies carry, which run keeps in step (service.c)
 * and attach cannot. 0 or -1 (said). */
static int stamp_clock_write(struct xdpong_bpf *skel, const char *ifname, bool followed)
{
	struct stamp_clock c;
	int e = stamp_clock_read(skel->rodata->cfg_stamp_clock, followed, &c);

	if (e)
		return log_error("%s: cannot read the clock for STAMP's timestamps: %s", ifname,
				 strerror(-e));
	skel->bss->stamp_clock_off_ns = c.off_ns;
	skel->bss->stamp_errest = c.errest;
	return 0;
}

/* --stamp-driver: the NIC's clock's offset to UTC into .bss, which run
 * keeps in step (service.c); where it cannot be read, T2 stays the
 * system clock's (bpf/rxts.h). */
static void stamp_phc_write(struct xdpong_bpf *skel, const char *ifname)
{
	long long off;
	int phc = skel->rodata->cfg_stamp_phc, e;

	if (!skel->rodata->cfg_stamp_driver)
		return;
	skel->bss->stamp_phc_ok = 0; /* a .bss taken over may hold an old one */
	if (phc < 0)
		return;
	e = phc_offset(phc, &off);
	if (e) {
		log_note("%s: cannot read /dev/ptp%d against the system clock (%s): STAMP's T2 "
			 "comes from the system clock until it can",
			 ifname, phc, strerror(-e));
		return;
	}
	skel->bss->stamp_phc_off_ns = off;
	skel->bss->stamp_phc_ok = 1;
}

/* 5. Loaded, with the old program's maps reused or copied over. 0, -1,
 * or 1: the kernel refuses the extension program the dispatcher needs. */
static int up_load(struct bringup *b)
{
	struct attachment *lv = b->lv;
	struct link_info *li = &lv->li;
	int e;

	if (b->have_old && takeover_prepare(&b->old, lv->loaded->skel, &b->tk))
		return -1;
	e = xdpong_bpf__load(lv->loaded->skel);
	chain_anchor_free(lv);
	if (e && b->share && chain_refused(-e)) {
		/* Linux 5.10 takes extensions, but its verifier cannot check
		 * one whose global functions take the context, as xdpong's do. */
		snprintf(b->alone_why, sizeof(b->alone_why),
			 "this kernel cannot load xdpong as the extension program libxdp's "
			 "dispatcher needs (%s; 'xdpong -vv attach' prints the verifier's log)",
			 strerror(-e));
		return 1;
	}
	/* Before 5.11 a map's size counts against RLIMIT_MEMLOCK, which
	 * libbpf raises only where it may (CAP_SYS_RESOURCE). */
	if (e == -EPERM && b->room[0] + b->room[1] > 2 * MAX_PREFIXES_DEFAULT)
		return log_error("%s: cannot load the BPF program: %s (on kernels before 5.11 the "
				 "address maps' --max-prefixes count against RLIMIT_MEMLOCK: "
				 "raise it, e.g. ulimit -l unlimited)",
				 li->name, strerror(-e));
	/* Bound to the device, it loads only where the driver has native XDP. */
	if (e && b->o->stamp_driver)
		return log_error("%s: cannot load xdpong bound to it (--stamp-driver): %s%s",
				 li->name, strerror(-e),
				 e == -EOPNOTSUPP ? " (its driver has no native XDP)" : "");
	if (e)
		return log_error("%s: cannot load the BPF program: %s%s", li->name, strerror(-e),
				 attach_hint(-e, b->mode));
	lv->prog_fd = bpf_program__fd(lv->loaded->skel->progs.xdpong);
	map_fds(lv);
	/* For the commands without CAP_SYS_ADMIN, which read the maps by it. */
	e = btfstore_save(lv->loaded->skel->obj, li->ifindex);
	if (e)
		log_note("%s: cannot keep the program's BTF in /run/xdpong/btf (%s): commands "
			 "without CAP_SYS_ADMIN cannot read these maps",
			 li->name, strerror(-e));
	/* The MAC, live in .bss (a reused .bss holds the old one). */
	if (li->type == ARPHRD_ETHER && li->has_mac)
		memcpy((void *)&lv->loaded->skel->bss->if_mac, li->mac, 6);
	/* STAMP's clock, live in .bss likewise: never a stale offset. */
	if (b->o->stamp_port && stamp_clock_write(lv->loaded->skel, li->name, b->o->cmd == CMD_RUN))
		return -1;
	stamp_phc_write(lv->loaded->skel, li->name);
	return b->have_old ? takeover_migrate(&b->old, lv, &b->tk) : 0;
}

/* 6. The addresses to answer for: the configuration's prefixes, and the
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

/* 7. Everything is ready: only now does anything on the interface change.
 * 0, -1, or 1 (attach_shared's). */
static int up_attach(struct bringup *b)
{
	struct attachment *lv = b->lv;
	int e;

	/* A foreign program goes only where xdpong cannot join it (--force). */
	if (!b->have_old && b->foreign && !(b->share && b->chain.dispatcher)) {
		if (hook_detach_foreign(&lv->li, b->foreign))
			return -1;
		b->foreign = 0; /* gone: a retry alone has nothing to replace */
	}
	if (b->share && b->have_old) {
		struct xdpong_bpf__rodata old_ro;
		/* The protocol needs the word shared (reused) and the old
		 * program's generation (a build without it has none). */
		bool proto = b->tk.reused[MAP_ACTIVE] && !rodata_read(&b->old, &old_ro);

		e = chain_takeover(lv, &b->old, proto ? old_ro.cfg_gen : 0,
				   proto ? lv->loaded->skel->rodata->cfg_gen : 0, b->mode, &b->tk);
	} else if (b->share) {
		e = attach_shared(b);
	} else {
		/* Alone, every xdpong acts (a killed takeover in a chain may
		 * have left the word naming another). */
		chain_active_set(lv->map_fd[MAP_ACTIVE], 0);
		e = b->have_old ? attach_replace(lv, &b->old, &b->mode) :
				  attach_fresh(lv, &b->mode);
		if (!e && b->have_old)
			takeover_settle(&b->old, lv, &b->tk);
	}
	if (e)
		return e;
	lv->loaded->attached_here = true;
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
		log_note("%s: cannot write the program's ids into its .bss (%s): commands without "
			 "CAP_SYS_ADMIN cannot find it",
			 lv->li.name, strerror(-e));
	return 0;
}

/* An empty attachment, with what this process will load. 0 or -1 (said). */
static int lv_reset(struct attachment *lv)
{
	memset(lv, 0, sizeof(*lv));
	lv->prog_fd = -1;
	for (int m = 0; m < MAP_COUNT; m++)
		lv->map_fd[m] = -1;
	lv->loaded = calloc(1, sizeof(*lv->loaded));
	return lv->loaded ? 0 : log_error("out of memory");
}

static void tk_free(struct takeover *tk)
{
	for (int m = 0; m < MAP_COUNT; m++) {
		free(tk->copied[m]);
		tk->copied[m] = NULL;
	}
}

/*
 * Where the kernel or libxdp refuses the dispatcher (phases 5 and 7 say
 * 1), xdpong attaches alone, as it does where there is none, and says so
 * once per process. Another program there then needs --force.
 */
static int up_alone(struct bringup *b, enum xdp_attach_mode mode)
{
	struct link_info li = b->lv->li;

	load_down(b->lv, false);
	if (lv_reset(b->lv))
		return -1;
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

	if (lv_reset(lv))
		return -1;
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
	if (ret && lv->loaded)
		load_down(lv, false); /* nothing loaded yet: what was made for it */
	return ret;
}

/* What this process loaded, closed: the skeleton takes a's fds with it. */
static void loaded_close(struct attachment *a)
{
	struct loaded *l = a->loaded;

	attachment_close(a);            /* forgets the fds: they are the skeleton's */
	anchor_bpf__destroy(l->anchor); /* chain.c's, if a load failed */
	txwatch_stop(l);
	xdp_program__close(l->prog);
	xdpong_bpf__destroy(l->skel);
	free(l);
	a->loaded = NULL;
}

void load_down(struct attachment *lv, bool detach)
{
	if (!lv->loaded) {
		attachment_close(lv);
		return;
	}
	if (detach && lv->loaded->attached_here) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = lv->prog_fd);

		/* Only our program: if another took its place, leave that one be. */
		if (bpf_xdp_detach(lv->li.ifindex, mode_flag(lv->xdp_mode), &opts) &&
		    lv->loaded->prog)
			xdp_program__detach(lv->loaded->prog, lv->li.ifindex, lv->xdp_mode, 0);
		/* Its dispatcher detached without libxdp: what libxdp left of it
		 * holds our program (leftover.c). */
		if (lv->dispatcher)
			leftovers_release(lv->li.name, lv->li.ifindex, lv->prog_id);
		/* Ours or stale; never another namespace's live ones. */
		pins_release(lv->li.name, lv->map_id[MAP_STATS]);
		btfstore_prune(lv, true);
		lv->loaded->attached_here = false;
	}
	loaded_close(lv);
}
