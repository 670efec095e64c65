/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's second floor, loader/up/: bringing xdpong up on an
 * interface and down again. It owns the skeleton (skel.c: the build the
 * kernel can load), the rate limits' rodata (ratelimit.c), sharing the
 * interface through libxdp's dispatcher (chain.c), libxdp's leftovers
 * (leftover.c), a takeover's state (takeover.c), the count of XDP_TX the
 * driver did not send (txwatch.c), the XDP hook (hook.c) and load_up's
 * phases (load.c, with checks.c and report.c: bringup.h, this floor's
 * own). Everything it changes on an interface it changes here, and
 * either completes or undoes (load_up: "nothing left" on failure).
 * It includes core/core.h only. Returns: core.h's legend.
 */
#ifndef XDPONG_UP_H
#define XDPONG_UP_H

#include "../core/core.h"

struct bpf_link;
struct xdp_program;
struct anchor_bpf;

/* ---- skel.c: xdpong's BPF object, in the build the kernel can load ----
 * The usual one, or where the kernel has no atomic compare-and-exchange
 * (FEAT_CMPXCHG) the one built without it (Makefile: xdpong_nocas). Both
 * have the same maps, programs and variables, so both go through struct
 * xdpong_bpf: only the ELF bytes differ.
 */
/* Like xdpong_bpf__open(): NULL with errno set on failure. */
struct xdpong_bpf *xdpong_skel_open(void);
/* --stamp-driver's build (bpf/rxts.h), its XDP program bound to ifindex
 * (BPF_F_XDP_DEV_BOUND_ONLY: native mode on that interface only, never in
 * libxdp's dispatcher), cfg_stamp_driver set. Linux 6.3 (FEAT_RXTS). */
struct xdpong_bpf *xdpong_skel_open_rxts(int ifindex);
/* Multi-buffer XDP where the kernel has it: the frags flag (which a kernel
 * without it refuses) and cfg_frags, behind which the program keeps the
 * helpers such a kernel lacks. Between open and load. */
void xdpong_skel_set_frags(struct xdpong_bpf *skel);
/* The count of replies the driver did not send (txwatch.c): its
 * tracepoint programs are loaded only where the kernel takes them, so
 * that the XDP program loads everywhere. Between open and load. */
void xdpong_skel_set_txwatch(struct xdpong_bpf *skel);

/* ---- ratelimit.c: the rate limits as the program's rodata ----
 * (bpf/xdpong.bpf.c, xdpong_rate_check; xdpong(8) says what they
 * guarantee). Shared by the loader and the unit tests, which configure
 * the program the same way.
 */
/*
 * Set the per-source (rate_pps, rate_burst) and global (global_pps,
 * global_burst) limits in ro, before load; a pps of 0 leaves that limit
 * off. ncpu: the CPUs that may run the program (possible CPUs). Each
 * limit's shared state is taken in batches of up to limits_batch() cells
 * per CPU, and what the CPUs may hold so is taken off the shared burst,
 * so that all CPUs together stay within pps and burst. Also draws the
 * seed of the per-source slots' hash.
 */
void limits_configure(struct xdpong_bpf__rodata *ro, unsigned long long rate_pps,
		      unsigned long long rate_burst, unsigned long long global_pps,
		      unsigned long long global_burst, int ncpu);

/* One limit's rodata, through pointers to its four variables: for
 * objects other than the product's that compile its program in
 * (tools/bench/xdpong_cost.bpf.c). */
void limits_set_one(unsigned long long pps, unsigned long long burst, int ncpu,
		    volatile __u64 *cost, volatile __u64 *tolerance, volatile __u32 *batch,
		    volatile __u64 *held);

/* A seed for the hash that picks a source's slot on a CPU (cfg_rl_seed). */
__u64 limits_seed(void);

/* Cells a CPU takes at once from a limit of burst on ncpu CPUs:
 * burst / (4 ncpu), from 1 to XDPONG_RL_BATCH_MAX. */
unsigned int limits_batch(unsigned long long burst, int ncpu);

/* ---- load.c: what this process loaded ---- */
/* Beside what a find would say of it (struct attachment, whose loaded
 * points here): undone by load_down. */
struct loaded {
	struct xdpong_bpf *skel; /* owns the attachment's prog_fd and map_fd[] */
	struct xdp_program *prog;
	bool attached_here; /* undone by load_down(..., true) */
	bool bound;         /* to the interface (--stamp-driver): attached by netlink */
	struct bpf_link *tx_link[TXWATCH_LINKS]; /* txwatch.c's, when this process made them */
	struct anchor_bpf *anchor;               /* chain.c's, from before load until after it */
};

/* ---- chain.c: sharing the interface through libxdp's dispatcher ---- */
#define CHAIN_DEFAULT_PRIORITY 50 /* libxdp's default; xdp-filter runs at 10 */
#define CHAIN_PRIORITY_MAX 1000000
/* Whether xdpong may use the dispatcher here; why not, in why. */
enum chain_way {
	CHAIN_OK,
	CHAIN_SKIPPED,  /* LIBXDP_SKIP_DISPATCHER=1 */
	CHAIN_NO_BPFFS, /* none for libxdp's links (a fresh ip netns exec) */
	CHAIN_NO_ADMIN, /* no CAP_SYS_ADMIN: libxdp cannot find a dispatcher */
	CHAIN_REFUSED,  /* the kernel refuses extension programs */
	CHAIN_ERROR,    /* asking the kernel failed otherwise */
};
enum chain_way chain_possible(char *why, size_t size);
/* Whether libxdp has a bpffs to keep the dispatcher's links in. */
bool chain_possible_bpffs(void);
/* Whether a load error says the kernel refuses extension programs. */
bool chain_refused(int err);
/* A fresh nonzero generation for cfg_gen (the chain's active word). */
__u64 chain_new_gen(void);
/* xdp-tools' run configuration (priority, XDP_PASS goes on), added to the
 * object's BTF between open and load, where libxdp reads it. 0, -errno. */
int chain_run_config_add(struct bpf_object *obj, unsigned int priority);
/* Between open and load: lv's XDP program becomes an extension verified
 * against the anchor, with its run configuration. 0, -errno. */
int chain_prepare(struct attachment *lv, unsigned int priority);
/* After load: the anchor is no longer needed. */
void chain_anchor_free(struct attachment *a);
/* Set the chain's active word (map fd): which generation acts, 0 all. */
int chain_active_set(int fd, __u64 gen);
struct takeover;
/* Take over from old inside the chain: lv joins next to it, the active
 * word moves from old_gen to new_gen (0 for either: the two share no
 * word, and both act until old leaves), old and any other xdpong leave.
 * 0, or -1 said (nothing changed on the interface). */
int chain_takeover(struct attachment *lv, const struct attachment *old, __u64 old_gen,
		   __u64 new_gen, int mode, struct takeover *tk);

/* ---- leftover.c: what libxdp leaves of a dispatcher detached without it ---- */
/*
 * Remove libxdp's pin directories of dispatchers that were attached to
 * ifindex in this network namespace and no longer are, and that hold
 * xdpong program prog_id (run's own), or with prog_id 0 any xdpong loaded
 * for ifindex here that is not on it still (its .rodata says which); then,
 * with prog_id 0, wait for the programs they held to leave the kernel.
 * Each removal is said (ifname: for messages). How many directories;
 * -EBUSY if prog_id is still on the interface; -ENODEV if ifindex is gone
 * from this namespace (nothing is touched: it may have moved); -errno.
 */
int leftovers_release(const char *ifname, int ifindex, __u32 prog_id);

/* ---- takeover.c: keeping an attached xdpong's state ---- */
struct takeover {
	bool reused[MAP_COUNT]; /* handed over as it is */
	int n_reused;
	/* Not reused (another layout): the old per-CPU counters and histogram
	 * as copied, so that takeover_settle can carry what came after. */
	void *copied[MAP_COUNT];
	int ncpu[MAP_COUNT];
};
/* The skeleton's map for an enum xdpong_map_id. */
struct bpf_map *skel_map(struct xdpong_bpf *skel, int m);
/* Before load: reuse the old maps whose layout matches this build's. */
int takeover_prepare(const struct attachment *old, struct xdpong_bpf *skel, struct takeover *t);
/* After load, before attach: copy the others' contents over by name. */
int takeover_migrate(const struct attachment *old, const struct attachment *new,
		     struct takeover *t);
/* After the replace: what the old program counted since the copy goes
 * into the new one's carry maps, so no count is lost. Frees t's copies. */
void takeover_settle(const struct attachment *old, const struct attachment *new,
		     struct takeover *t);

/* ---- txwatch.c: XDP_TX the driver did not send ---- */
/* Attach the tracepoint programs of a's skeleton (after the XDP program).
 * 0, or -errno (said: xdpong runs on, without the count). */
int txwatch_start(struct attachment *a);
/* Close this process's links (pinned ones live on). */
void txwatch_stop(struct loaded *l);
/* Pin the links beside the maps, replacing an old program's. 0, -errno. */
int txwatch_pin(const struct attachment *a);

/* ---- hook.c: the XDP hook, by program ---- */
/* Hand the loaded program to libxdp: an extension joins the dispatcher on
 * the interface, or starts one; an XDP program is attached alone (without
 * CAP_SYS_ADMIN: through netlink). 0, -errno (unsaid). */
int hook_attach(struct attachment *lv, int mode);
/* Take program prog_id off ifindex, out of the dispatcher if it is in
 * one (without CAP_SYS_ADMIN: what is attached in mode). 0, -errno. */
int hook_detach_id(int ifindex, __u32 prog_id, int mode);

/* ---- load.c (and bringup.h's checks.c, hook.c, report.c): up and down ---- */
/* Load, configure and attach xdpong as o says, fill its address maps,
 * pin its maps; a holds it. 0 or -1 (said; nothing left). */
int load_up(const char *ifname, const struct opts *o, struct attachment *lv);
/* Close; with detach, also detach and remove the pins. */
void load_down(struct attachment *lv, bool detach);

#endif /* XDPONG_UP_H */
