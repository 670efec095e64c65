// SPDX-License-Identifier: GPL-2.0
/*
 * What load.c's phases may do, decided before anything on the interface
 * changes: a live run's interface is not taken, a foreign program is
 * joined, replaced (--force) or refused, the kernel and a veth peer are
 * asked what they allow. Each refusal is said, with the way out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xdp/libxdp.h>
#include "up.h"
#include "bringup.h"

/*
 * A veth hands XDP_TX frames only to a peer that runs native XDP (measured:
 * generic XDP or GRO on the peer is not enough), else drops them silently.
 */
int check_veth_peer(const struct link_info *li, bool explicit_native, bool *use_skb)
{
	struct link_info peer;
	int ret;

	if (strcmp(li->kind, "veth"))
		return 0;
	ret = link_get_peer(li, &peer);
	if (ret) {
		if (verbose)
			log_note("%s: cannot inspect the veth peer (%s); assuming it runs native "
				 "XDP",
				 li->name, strerror(-ret));
		return 0;
	}
	if (peer.xdp_drv_prog_id)
		return 0;
	if (explicit_native)
		return log_error("%s is a veth whose peer %s (ifindex %d%s) has no native XDP "
				 "program: in native mode the replies (XDP_TX) would be dropped "
				 "silently. Load a native XDP program on the peer first, e.g. "
				 "'xdpong attach %s --mode native --no-iface-addrs' (answers for "
				 "nothing, passes everything), or use --mode skb",
				 li->name, peer.name, peer.ifindex,
				 li->link_netnsid >= 0 ? " in another netns" : "", peer.name);
	log_note("%s: veth peer %s has no native XDP program, so native XDP_TX would be dropped: "
		 "using skb mode",
		 li->name, peer.name);
	*use_skb = true;
	return 0;
}

/*
 * Refuse, without side effects, what must not be touched: an xdpong a live
 * `xdpong run` owns (another process: a run claims before it loads).
 */
int may_take(const struct link_info *li, const struct attachment *old, bool have_old)
{
	struct owner_info who;

	if (have_old && !owner_query(li->ifindex, &who) && who.pid != getpid()) {
		char since[64] = "";

		if (who.since) {
			struct tm tm;

			localtime_r(&who.since, &tm);
			strftime(since, sizeof(since), ", running since %F %T", &tm);
		}
		return log_error("%s is owned by 'xdpong run' (pid %d%s; program id %u): stop that "
				 "first (systemctl stop, or kill %d); --force does not take a live "
				 "run's interface",
				 li->name, who.pid, since, old->prog_id, who.pid);
	}
	return 0;
}

/*
 * What this kernel cannot do for the options asked, each said with the
 * kernel's release and what is missing (core.h: found by trying, not
 * from the version). 0, or -1 when xdpong cannot run as asked.
 */
/* Whether this process runs under a seccomp filter (proc(5): Seccomp 2). */
static bool seccomp_filtered(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	bool filtered = false;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8))
			filtered = atoi(line + 8) == 2;
	if (f)
		fclose(f);
	return filtered;
}

int kernel_check(const struct link_info *li, const struct opts *o)
{
	static const enum feature needed[] = { FEAT_XDP, FEAT_BTF, FEAT_RINGBUF };

	/* EPERM for a program that uses nothing: refused to us, not missing. */
	if (feature_denied(FEAT_XDP))
		return log_error("the kernel refused bpf(2) to xdpong (%s): %s; xdpong needs "
				 "CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN, and bpf(2) allowed "
				 "(xdpong(8) SECURITY)",
				 strerror(EPERM),
				 seccomp_filtered() ? "this process runs under a seccomp filter, "
						      "which may deny it" :
						      "a capability is missing");
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		enum feature f = needed[i];

		if (!feature_have(f))
			return log_error("Linux %s cannot run xdpong: it lacks %s (Linux %s and "
					 "later have it): %s",
					 kernel_release(), feature_info[f].what,
					 feature_info[f].since, feature_why(f));
	}
	if ((o->rate_pps || o->global_pps) && !feature_have(FEAT_CMPXCHG))
		return log_error("%s: --rate-limit and --global-limit need %s, which Linux %s "
				 "lacks (Linux %s and later have it): %s",
				 li->name, feature_info[FEAT_CMPXCHG].what, kernel_release(),
				 feature_info[FEAT_CMPXCHG].since, feature_why(FEAT_CMPXCHG));
	return 0;
}

/* Why xdpong attaches alone where it would share: said once per process. */
void alone_say(const char *name, const char *why)
{
	static bool said;

	if (!said)
		log_note("%s: %s: attaching alone, so no other XDP program can share %s", name, why,
			 name);
	said = true;
}

/* The programs of the chain that are not xdpong, for messages:
 * "xdp-filter (id 12), xdp_pass (id 19)". */
const char *others_list(const struct chain_info *c, char *buf, size_t size)
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
int foreign_check(const struct bringup *b)
{
	const char *name = b->lv->li.name;
	char others[256];

	if (b->have_old || !b->foreign || (b->share && b->chain.dispatcher) || b->o->force)
		return 0;
	others_list(&b->chain, others, sizeof(others));
	if (!privs_by_id)
		return log_error("%s already has an XDP program (id %u), which xdpong can neither "
				 "identify without CAP_SYS_ADMIN (no xdpong pins name it) nor "
				 "share the interface with (%s). --force replaces it",
				 name, b->foreign, b->alone_why);
	if (b->chain.dispatcher)
		return log_error("%s runs %s through libxdp's dispatcher, but xdpong cannot join "
				 "it here: %s. --force replaces them all",
				 name, others, b->alone_why);
	if (b->share)
		return log_error("%s already has an XDP program, %s, attached alone rather than "
				 "through libxdp's dispatcher, so it cannot share the interface. "
				 "--force replaces it; loaded with xdp-loader or another libxdp "
				 "tool, it would share %s with xdpong",
				 name, others, name);
	return log_error("%s already has an XDP program, %s, and xdpong cannot share the interface "
			 "with it: %s. --force replaces it; a kernel that allows libxdp's "
			 "dispatcher (Debian 12's and 13's do) lets them share",
			 name, others, b->alone_why);
}

/*
 * --stamp-driver: xdpong's build bound to the interface (skel.c), which
 * the kernel runs only in native mode and only alone (libxdp's dispatcher
 * is a program of its own, not bound: it cannot call the driver's
 * timestamp for an extension). Refused here, before anything changes,
 * where that cannot be had. 0 or -1.
 */
int check_stamp_driver(struct bringup *b)
{
	const struct opts *o = b->o;
	const char *name = b->lv->li.name;

	if (!o->stamp_port)
		return log_error("%s: --stamp-driver is STAMP's: it needs --stamp", name);
	if (!feature_have(FEAT_RXTS))
		return log_error("%s: --stamp-driver needs %s, which Linux %s lacks (Linux %s and "
				 "later have it): %s",
				 name, feature_info[FEAT_RXTS].what, kernel_release(),
				 feature_info[FEAT_RXTS].since, feature_why(FEAT_RXTS));
	if (o->mode == MODE_SKB)
		return log_error("%s: --stamp-driver needs native mode: in skb mode the kernel "
				 "runs no program bound to the device. Nothing was changed",
				 name);
	if (b->have_old && b->old.dispatcher)
		return log_error("%s: xdpong runs in libxdp's dispatcher, and --stamp-driver runs "
				 "it alone: detach it first ('xdpong detach %s'). Nothing was "
				 "changed",
				 name, name);
	b->share = false;
	snprintf(b->alone_why, sizeof(b->alone_why),
		 "--stamp-driver binds xdpong to %s, and libxdp's dispatcher cannot run a "
		 "program bound so",
		 name);
	return foreign_check(b);
}
