/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load_up's insides, shared by the files it is split into: load.c (the
 * phases, in the order they run), checks.c (what they may do), hook.c
 * (attaching) and report.c (what was done, said). Nothing else includes
 * this; the rest of the loader sees load_up and load_down (up.h).
 * Returns as core.h's legend says; "0, -1 or 1": 1 is "the dispatcher
 * cannot be had here: try alone" (b->alone_why says why).
 */
#ifndef XDPONG_BRINGUP_H
#define XDPONG_BRINGUP_H

#include <xdp/libxdp.h>
#include "up.h"

/* What load_up's phases share, in the order they fill it. */
struct bringup {
	const struct opts *o;
	struct attachment *lv; /* what is being brought up */
	struct attachment old; /* xdpong already there (have_old) */
	bool have_old;
	__u32 foreign;           /* another program there, 0 if none */
	struct chain_info chain; /* what runs there now */
	bool share;              /* through libxdp's dispatcher (chain.c) */
	char alone_why[400];     /* why not, when not */
	enum xdp_attach_mode mode;
	struct takeover tk;
	int n4, n6; /* prefixes answered for */
	/* The address maps' size (IPv4, IPv6), and the running xdpong's
	 * (0: none); up_size (load.c). */
	__u32 room[2], old_room[2];
};

/* ---- checks.c: what may be done (0 or -1, said) ---- */
/* A veth whose peer has no native XDP: native refused when explicit, else
 * *use_skb set. */
int check_veth_peer(const struct link_info *li, bool explicit_native, bool *use_skb);
/* Refuse an xdpong a live `xdpong run` of another process owns. */
int may_take(const struct link_info *li, const struct attachment *old, bool have_old);
/* What this kernel lacks for the options asked (core.h). */
int kernel_check(const struct link_info *li, const struct opts *o);
/* Another program there: joined, replaced (--force) or refused. */
int foreign_check(const struct bringup *b);
/* --stamp-driver: what it needs (--stamp, the kernel's kfunc, native
 * mode, alone: b->share cleared), or refused. */
int check_stamp_driver(struct bringup *b);
/* Why xdpong attaches alone where it would share: said once per process. */
void alone_say(const char *name, const char *why);
/* The chain's programs that are not xdpong, for messages, into buf. */
const char *others_list(const struct chain_info *c, char *buf, size_t size);

/* ---- hook.c: attaching (0 or -1 said, except attach_auto) ---- */
/* What to try after attach error e (positive) in mode, or "". */
const char *attach_hint(int e, enum xdp_attach_mode mode);
/* hook_attach in *mode; auto: native, else skb (*mode says which). 0 or
 * -errno, unsaid. */
int attach_auto(struct attachment *lv, enum xdp_attach_mode *mode);
/* Where nothing of ours is: libxdp, native else skb. */
int attach_fresh(struct attachment *lv, enum xdp_attach_mode *mode);
/* Where old is: swapped in one step where the kernel can, else detach
 * then attach (the gap said). */
int attach_replace(struct attachment *lv, const struct attachment *old, enum xdp_attach_mode *mode);
/* Into libxdp's dispatcher. 0, -1, or 1: libxdp could not build one and
 * nothing else is on the interface. */
int attach_shared(struct bringup *b);
/* --force on a foreign program prog_id: every program there detached. */
int hook_detach_foreign(const struct link_info *li, __u32 prog_id);

/* ---- report.c ---- */
/* 8. Pins, and what was done, said. */
void up_report(struct bringup *b);

#endif /* XDPONG_BRINGUP_H */
