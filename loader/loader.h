/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's shared machinery, a section per file. The subcommands
 * (attach.c, detach.c, status.c, stats.c, run.c, addr.c, trace.c,
 * config.c; main.c dispatches to them) call into these; these never call
 * a subcommand. Reading order, from the bottom up, as the sections below
 * (log.h, lib/prefix.h, lib/parse.h, opts.h and probe.h first): netlink,
 * privs, btfstore, owner, layout, pins, attachment, bss, addrmap,
 * counters, output, prom, chain, leftover, takeover, txwatch, hook, load
 * (bringup.h: its checks.c, hook.c and report.c), then the service's:
 * conffile, service, http, listen; readers (for trace).
 *
 * Returns, as each prototype says in these words:
 *   "0 or -errno"  (also "0, -errno"): the error is not said; the caller
 *                  words it. fds and counts likewise: >= 0, or -errno.
 *   "0 or -1"      the error is said already (log_error, on stderr):
 *                  the caller only stops ("said" in a comment).
 *   "-errno (said)" the exception, where the caller goes on without it.
 *   "0, -1 or 1"   bringup.h's phases: 1 is "libxdp's dispatcher cannot
 *                  be had here", and load_up tries alone.
 *   bool           a question answered; nothing said.
 *   NULL           with errno set, unless the comment says "said".
 */
#ifndef XDPONG_LOADER_H
#define XDPONG_LOADER_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <net/if.h>
#include <linux/types.h>
#include "xdpong.h"
#include "xdpong_names.h"
#include "log.h"
#include "prefix.h"
#include "parse.h"
#include "opts.h"

/* libbpf's and the skeleton's types, by pointer only. */
struct bpf_object;
struct bpf_map;
struct bpf_link;
struct btf;
struct xdp_program;
struct xdpong_bpf;
struct xdpong_bpf__rodata;
struct anchor_bpf;
struct json_object;

#define PIN_ROOT "/sys/fs/bpf/xdpong"
#define BPFFS_ROOT "/sys/fs/bpf"
/* libxdp's bpffs (its directory is xdp/ in it), if not BPFFS_ROOT. */
#define LIBXDP_BPFFS_ENV "LIBXDP_BPFFS"

/* Exit codes: 0 ok, 1 failure, 2 bad usage (as iproute2 and xdp-tools). */
#define EXIT_USAGE 2
/* status IFACE: xdpong is not attached there (as LSB's "not running"). */
#define EXIT_NOT_ATTACHED 3

/* ---- netlink.c: what the kernel says about interfaces ---- */
struct link_info {
	int ifindex;
	char name[IF_NAMESIZE];
	char kind[32];       /* "veth", "tun", "" for physical */
	unsigned short type; /* ARPHRD_* */
	__u8 mac[6];
	bool has_mac;
	unsigned int mtu;
	unsigned int flags; /* IFF_* */
	int link_ifindex;   /* veth peer, 0 if none */
	int master;         /* IFLA_MASTER (a bridge, bond or VRF), 0 if none */
	int link_netnsid;   /* peer's netns id, -1 if same netns */
	__u8 xdp_attached;  /* XDP_ATTACHED_* */
	__u32 xdp_prog_id;
	__u32 xdp_drv_prog_id; /* the native-mode program, 0 if none */
	__u32 xdp_skb_prog_id; /* the skb-mode one, when more than one is attached */
	__u32 xdp_hw_prog_id;  /* the offloaded one, likewise */
};
/* Look up IFACE by name (ifindex > 0: by index). 0, or -errno. */
int link_get(const char *name, int ifindex, struct link_info *out);
/* The veth peer's XDP state, even in another netns. 0, or -errno. */
int link_get_peer(const struct link_info *veth, struct link_info *peer);
/* link_get by name, each failure explained on stderr. 0 or -1. */
int iface_lookup(const char *name, struct link_info *li);
/* This process's network namespace, as the kernel numbers it (ns.inum):
 * an ifindex names an interface only within it. 0 if unknown. */
__u32 netns_ino(void);
/* Set in ifa_flags for an IPv4 subnet's broadcast address (IFA_BROADCAST). */
#define ADDR_CB_BROADCAST (1U << 31)
/*
 * Every address on ifindex with its IFA_F_* flags, and with others set,
 * those of every other interface too, but not their host-scope ones
 * (127.0.0.1, ::1: martian from outside) nor their link-scope ones (an IPv6
 * link-local address belongs to its link; IPv4 ones are left to the
 * kernel). cb gets the address's ifindex and returns non-zero to stop.
 * 0, or -errno.
 */
int addr_dump(int ifindex, bool others,
	      int (*cb)(const struct prefix *addr, int ifindex, __u32 ifa_flags, void *arg),
	      void *arg);
/* A socket on the link and address multicast groups; fd or -errno. */
int monitor_open(void);
enum monitor_event {
	EV_NONE = 0,
	EV_ADDRS = 1,     /* an address of ifindex changed */
	EV_LINK_GONE = 2, /* ifindex was deleted */
	EV_OVERRUN = 4,   /* events were lost: resync everything */
	EV_LINK = 8,      /* ifindex changed (its MAC, perhaps) */
};
/* Drain the socket, calling cb(ifindex, EV_*) for every event (ifindex
 * 0 for EV_OVERRUN). How many messages. */
int monitor_read_all(int fd, void (*cb)(int ifindex, int ev, void *arg), void *arg);

/* ---- privs.c: capabilities ---- */
enum privs_need {
	PRIVS_READ,   /* status, stats, addr, trace: CAP_BPF */
	PRIVS_DETACH, /* detach: CAP_BPF, CAP_NET_ADMIN */
	PRIVS_ATTACH, /* attach, run: CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN */
};
/* Whether programs, maps and BTF can be had by id (CAP_SYS_ADMIN): else
 * xdpong finds itself through its pins. Set by require_privileges. */
extern bool privs_by_id;
/* Refuse early, naming the capabilities missing for need. 0 or -1. */
int require_privileges(enum privs_need need);

/* ---- btfstore.c: the BTF of loaded objects, for readers without
 * CAP_SYS_ADMIN ---- */
struct attachment;
/* Keep obj's BTF (loaded) under the kernel's id for it. 0 or -errno. */
int btfstore_save(const struct bpf_object *obj, int ifindex);
/* The kept BTF of kernel id btf_id, or NULL (errno). */
struct btf *btfstore_load(__u32 btf_id);
/* Drop the interface's kept BTF that a's maps no longer name (all: every
 * one, a's xdpong is gone). */
void btfstore_prune(const struct attachment *a, bool all);

/* ---- owner.c: which `xdpong run` owns an interface ---- */
/* Where the ownership locks live (owner.c says why). */
#define OWNER_TOP_DIR "/run/xdpong"
#define OWNER_DIR "/run/xdpong/owner"
/* /run/xdpong/SUB as a trusted directory (owner.c: ours, mode 0700, no
 * symbolic link), made if create and missing: an fd, or -errno with why
 * set (why may be NULL). */
int run_dir(const char *sub, bool create, char *why, size_t len);
struct owner_info {
	int pid;          /* in this pid namespace; 0 if unknown */
	time_t since;     /* when it took the interface, 0 if unknown */
	char version[32]; /* its xdpong version, "" if unknown */
};
/* Make OWNER_DIR (0700) if missing and check it is safe to use. 0, or
 * -errno with why set ("PATH is ...", unsaid). */
int owner_dir_ready(char *why, size_t len);
/* Take ifindex: a locked fd (keep it open: closing it, or dying, gives
 * ownership up), -EBUSY if another process owns it, or -errno with why
 * set (unsaid). */
int owner_claim(int ifindex, char *why, size_t len);
/* Give ifindex up: its lock file removed, fd closed. */
void owner_release(int fd, int ifindex);
/* 0 and who, if a live process owns ifindex; -ENOENT if none; -errno. */
int owner_query(int ifindex, struct owner_info *info);

/* ---- layout.c: map values as named fields, from BTF ---- */
#define LAYOUT_MAX_FIELDS 96
struct layout_field {
	char name[48];
	__u32 off, size;
};
struct layout {
	__u32 type, key_size, value_size, max_entries, flags;
	int n; /* 0: no BTF names (shape only) */
	struct layout_field f[LAYOUT_MAX_FIELDS];
};
/* A loaded map's layout (the kernel's BTF), or a skeleton map's. 0, -errno. */
int layout_of_fd(int map_fd, struct layout *l);
int layout_of_map(const struct bpf_object *obj, const struct bpf_map *map, struct layout *l);
/* Same shape and the same fields at the same places: reusable as it is. */
bool layout_same(const struct layout *a, const struct layout *b);
const struct layout_field *layout_find(const struct layout *l, const char *name);
/* Key 0 of an array map, every CPU's value for a per-CPU one; free(*buf). */
int layout_read_one(int map_fd, const struct layout *l, void **buf, int *ncpu);
void *layout_cpu(const struct layout *l, void *buf, int cpu);
/* Bytes between two CPUs' values in such a buffer. */
size_t layout_stride(const struct layout *l);
/* Copy the fields dst's layout shares with src's (same name and size),
 * except those named in skip (NULL-terminated, or NULL). How many. */
int layout_copy_fields(const struct layout *from, const void *src, const struct layout *to,
		       void *dst, const char *const *skip);
/* The same, adding: dst's 64-bit words += src's (counters). How many. */
int layout_add_fields(const struct layout *from, const void *src, const struct layout *to,
		      void *dst, const char *const *skip);

/* ---- pins.c: the maps' pins under /sys/fs/bpf/xdpong/IFACE ---- */
enum xdpong_map_id {
	MAP_STATS,
	MAP_LATENCY,
	MAP_ADDR4,
	MAP_ADDR6,
	MAP_RATELIM,
	MAP_TRACE,
	MAP_BSS,
	MAP_RODATA,
	MAP_CARRY,    /* counts carried over at an upgrade (not in older builds) */
	MAP_LATCARRY, /* the same for the histogram */
	MAP_TXFAIL,   /* XDP_TX the driver did not send (txwatch.c) */
	MAP_ACTIVE,   /* which xdpong acts in a shared chain (chain.c) */
	MAP_COUNT,
};
/* Map names in the object, and the file names they are pinned under. */
extern const char *const map_obj_names[MAP_COUNT];
extern const char *const map_pin_names[MAP_COUNT];
/* Where tracepoint link i (txwatch.c, 0 .. TXWATCH_LINKS - 1) is pinned. */
void pin_link_path(const char *ifname, int i, char *buf, size_t size);
/* Directory the maps of ifname are pinned in. */
void pin_dir(const char *ifname, char *buf, size_t size);
/* Make sure a bpffs is mounted at /sys/fs/bpf. 0 or -1 (said). */
int bpffs_ensure(void);
/* Whether a bpffs is mounted at BPFFS_ROOT. */
bool bpffs_here(void);
/* bpffs_ensure mounted it (a fresh ip netns exec): it dies with us. */
extern bool bpffs_mounted_here;
/* Remove ifname's pins and directory; how many pins there were. */
int pins_remove(const char *ifname);
/* Is the pinned map at path used by any loaded program (a live attach)? */
bool pinned_map_in_use(const char *path);
/* Pin every map (fds by enum xdpong_map_id). 0 or -1 (said). */
int pins_create(const char *ifname, const int map_fd[MAP_COUNT]);
/* Does ifname's pinned stats map have this id (the pins are the live ones)? */
bool pins_match(const char *ifname, __u32 stats_map_id);
/* Pins whose interface is gone and whose maps no program uses. */
bool pins_stale(const char *ifname);
/* The pinned maps of ifname, by bpf_obj_get (-1 where none). 0, or
 * -ENOENT without the maps every build has. Close them as attachment_close
 * does. */
int pins_open(const char *ifname, int map_fd[MAP_COUNT], __u32 map_id[MAP_COUNT]);
/* Remove ifname's pins if they are the program's whose stats map has this
 * id (0: none), or stale; never another live xdpong's (an interface of the
 * same name in another netns). How many were removed. */
int pins_release(const char *ifname, __u32 stats_map_id);
/* Remove ifname's pins unless they are its live program's (stats_map_id)
 * or another live xdpong's (an interface of the same name in another
 * netns: refused). 0 or -1 (said). */
int pins_prepare(const char *ifname, __u32 stats_map_id);

/* ---- attachment.c: one attached xdpong, found or loaded ---- */
struct attachment {
	struct link_info li;
	__u32 prog_id; /* xdpong's program id */
	int prog_fd;
	const char *mode; /* "native", "skb", "hw" */
	int xdp_mode;     /* enum xdp_attach_mode */
	bool dispatcher;  /* attached through libxdp's dispatcher */
	int map_fd[MAP_COUNT];
	__u32 map_id[MAP_COUNT];
	/* Set by load.c when this process loaded the program: */
	struct xdpong_bpf *skel; /* owns prog_fd and map_fd[] */
	struct xdp_program *prog;
	bool attached_here;          /* undone by load_down(..., true) */
	struct bpf_link *tx_link[2]; /* txwatch.c's, when this process made them */
	struct anchor_bpf *anchor;   /* chain.c's, from before load until after it */
};
/*
 * Find xdpong on ifindex through the attached program (works in a fresh
 * `ip netns exec`, where pins are not visible). 0, -ENOENT if xdpong is
 * not attached (*other_id set to a foreign program's id, if any), -errno.
 */
int attachment_find(int ifindex, struct attachment *a, __u32 *other_id);
/* Without CAP_SYS_ADMIN attachment_find may also say -ENOPKG: a program
 * is attached (*other_id) and there are no pins to tell whether it is
 * xdpong; this says so, with what would help. */
void attachment_no_pins(const struct link_info *li);
/* Whether attachment_find's failure ret has been said (or is now, with
 * attachment_no_pins): the caller says nothing more. */
bool attachment_said(int ret, const struct link_info *li);
/* Program prog_id and its maps, found by name as attachment_find does,
 * wherever (or whether) it is attached: a->li is left empty. 0, -errno. */
int attachment_of_prog(__u32 prog_id, struct attachment *a);
void attachment_close(struct attachment *a);
/* Write down in a's .bss that its program is the one attached now (for
 * find_by_pins). 0 or -errno. */
int self_record(const struct attachment *a);
/* Privilege check, IFACE lookup and attachment_find, each failure
 * explained (the commands that need a live xdpong). 0 or -1. */
int attachment_open(const char *ifname, struct attachment *a);
/* "native" for XDP_MODE_NATIVE, and so on. */
const char *mode_name(int xdp_mode);
/* XDP_FLAGS_DRV_MODE for XDP_MODE_NATIVE, and so on (netlink's flags). */
__u32 mode_flag(int xdp_mode);
/* The XDP_MODE_* of what li shows attached (native if nothing is). */
int attached_mode(const struct link_info *li);
/* Whether map (enum xdpong_map_id) is newer than some builds, so an
 * xdpong may lack it. */
bool map_optional(int map);
/*
 * The attached program's .rodata or .bss (map) in this build's own struct
 * (struct xdpong_bpf__rodata, __bss), field by field by name: another
 * build's is read right. 0; -EPROTO if it lacks some of our fields (those
 * stay zero, the rest are read); -errno.
 */
int map_read_own(const struct attachment *a, int map, void *out, size_t size);
int rodata_read(const struct attachment *a, struct xdpong_bpf__rodata *ro);

/* ---- bss.c: the .bss map, one field at a time ---- */
/*
 * Written one field at a time through an mmap (so counters the program
 * updates are never clobbered); lookup+update if mmap fails.
 */
struct bss_access {
	int fd;
	void *mem; /* mmap of the map, NULL if that failed */
	size_t len;
	struct layout layout; /* the attached build's, from its BTF */
};
/* 0; -EPROTO if the map has no BTF to find fields by; -errno. */
int bss_open(struct bss_access *b, int fd);
void bss_close(struct bss_access *b);
/* One field by name (trace_enabled: 32 bits, the rest 64); -EPROTO if
 * the attached build has no such field. */
int bss_get(const struct bss_access *b, const char *name, __u64 *out);
int bss_set(const struct bss_access *b, const char *name, __u64 value);
int bss_set_mac(const struct bss_access *b, const __u8 mac[6]);
/* The program's exact own-address lists (NULL: none); -EPROTO if the
 * attached build has none. */
int bss_set_own(const struct bss_access *b, const struct xdpong_own_addrs *own);

/* ---- addrmap.c: the address maps ---- */
int addr_map_put(int fd4, int fd6, const struct prefix *p, __u32 origin);
int addr_map_del(int fd4, int fd6, const struct prefix *p);
int addr_map_walk(int fd4, int fd6, int (*cb)(const struct prefix *p, __u32 origin, void *arg),
		  void *arg);
/* Make the interface-origin entries equal li's usable addresses (li NULL:
 * none, for --no-iface-addrs), and with host those of the host's other
 * interfaces that are up (--host-addrs); n4, n6: how many, if not NULL. */
int addr_sync(int fd4, int fd6, const struct link_info *li, bool host, bool quiet, int *n4,
	      int *n6);
/* Make the config-origin entries equal addrs (--addr, the config file). */
int addr_sync_config(int fd4, int fd6, const struct prefix *addrs, int n);
/*
 * Mirror the tries' interface addresses and subnet broadcasts into the
 * program's exact lists (.bss). Call after every change of the tries.
 * 0, or -errno; a build without the lists is left alone (0).
 */
int addr_own_sync(int fd4, int fd6, int bss_fd);
/* "iface", "config", "operator", "broadcast". */
const char *addr_origin_name(__u32 origin);
/* The prefixes, as text lines under a heading (status, addr list). */
void addr_print_text(FILE *f, const struct attachment *a);

/* ---- counters.c: counters summed over CPUs ---- */
#define SNAPSHOT_MAX_EXTRA 16
struct snapshot {
	struct timespec mono, wall;
	__u64 reason[XDPONG_R_MAX];
	/* Reasons of the attached build that this build does not know (it
	 * is another version): named, counted, and in their outcome. */
	int n_extra;
	char extra_name[SNAPSHOT_MAX_EXTRA][48];
	int extra_outcome[SNAPSHOT_MAX_EXTRA];
	__u64 extra[SNAPSHOT_MAX_EXTRA];
	__u64 outcome[3]; /* enum xdpong_outcome */
	__u64 received;
	__u64 slots[XDPONG_LAT_SLOTS];
	__u64 lat_sum_ns, lat_count;
	/* Replies the driver did not send (txwatch.c); tx_watch: live
	 * tracepoint links counting them (TXWATCH_LINKS: all), or -errno
	 * (-ENOENT: the attached build has no such count). */
	__u64 tx_failed;
	int tx_watch;
};
/* reason_names, reason_descs, reason_outcomes, outcome_names: xdpong_names.h */
/* Sum the counters and histogram over CPUs, by field name (BTF), so a
 * program of another build is read right. 0, -EPROTO if its maps cannot
 * be read by name, -errno. */
int snapshot_read(const struct attachment *a, struct snapshot *s);
double seconds_between(const struct timespec *a, const struct timespec *b);

/* ---- output.c: JSON, through json-c ---- */
/* Print o as one line on f and free it. 0, or -1 if f failed. */
int json_print(FILE *f, struct json_object *o);
/* The stats object: counters, histogram, and rates since prev if given. */
struct json_object *json_stats(const struct attachment *a, const struct snapshot *s,
			       const struct snapshot *prev, __u32 sample_every);
/* [{"prefix": ..., "origin": ...}, ...] */
struct json_object *json_addresses(const struct attachment *a);

/* ---- prom.c: Prometheus text format ---- */
/* One interface to report: a and s NULL when it is configured but not
 * attached (it gets xdpong_up 0 and nothing else). */
struct prom_iface {
	const char *name;
	const struct attachment *a;
	const struct snapshot *s;
};
int prom_print_all(FILE *f, const struct prom_iface *v, int n);
int prom_print(FILE *f, const struct attachment *a, const struct snapshot *s);
/* Rewrite path atomically; errors are printed once, not every interval. */
int prom_update_file(const char *path, const struct prom_iface *v, int n);

/* ---- chain.c: sharing the interface through libxdp's dispatcher ---- */
#define CHAIN_MAX 10              /* libxdp's dispatcher has 10 slots */
#define CHAIN_DEFAULT_PRIORITY 50 /* libxdp's default; xdp-filter runs at 10 */
#define CHAIN_PRIORITY_MAX 1000000
struct chain_prog {
	__u32 id;
	char name[16];
	unsigned int priority;
	bool pass_continues; /* its XDP_PASS goes on to the next program */
	bool xdpong;
};
/* What runs on an interface, in run order. */
struct chain_info {
	bool dispatcher; /* through libxdp's dispatcher; else one program alone */
	__u32 dispatcher_id;
	int mode; /* enum xdp_attach_mode */
	int n;    /* 0: nothing attached */
	struct chain_prog p[CHAIN_MAX];
};
/* 0 (c->n 0 if nothing is attached), -errno. */
int chain_query(int ifindex, struct chain_info *c);
/* The index of program prog_id in c, in run order; -1 if it is not there. */
int chain_position(const struct chain_info *c, __u32 prog_id);
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
#define TXWATCH_LINKS 2 /* xdp:xdp_exception, xdp:xdp_bulk_tx */
/* Attach the tracepoint programs of a's skeleton (after the XDP program).
 * 0, or -errno (said: xdpong runs on, without the count). */
int txwatch_start(struct attachment *a);
/* Close this process's links (pinned ones live on). */
void txwatch_stop(struct attachment *a);
/* Pin the links beside the maps, replacing an old program's. 0, -errno. */
int txwatch_pin(const struct attachment *a);
/* How many live links count into a's txfail map; -ENOENT if it has none. */
int txwatch_count(const struct attachment *a);
/* The count in a txfail map, summed over CPUs. 0, or -errno. */
int txwatch_read(int fd, __u64 *tx_failed);

/* ---- hook.c: the XDP hook, by program ---- */
/* Hand the loaded program to libxdp: an extension joins the dispatcher on
 * the interface, or starts one; an XDP program is attached alone (without
 * CAP_SYS_ADMIN: through netlink). 0, -errno (unsaid). */
int hook_attach(struct attachment *lv, int mode);
/* Take program prog_id off ifindex, out of the dispatcher if it is in
 * one (without CAP_SYS_ADMIN: what is attached in mode). 0, -errno. */
int hook_detach_id(int ifindex, __u32 prog_id, int mode);

/* ---- load.c (and bringup.h's checks.c, hook.c, report.c): bringing
 * xdpong up and down ---- */
/* Load, configure and attach xdpong as o says, fill its address maps,
 * pin its maps; a holds it. 0 or -1 (said; nothing left). */
int load_up(const char *ifname, const struct opts *o, struct attachment *lv);
/* Close; with detach, also detach and remove the pins. */
void load_down(struct attachment *lv, bool detach);

/* ---- conffile.c: /etc/xdpong/xdpong.conf ---- */
#define CONFIG_DEFAULT "/etc/xdpong/xdpong.conf"
#define CONFIG_MAX_IFACES 64
#define CONFIG_MAX_STRINGS 64
struct config_iface {
	char name[IF_NAMESIZE];
	char file[256]; /* where its section is, for messages */
	int line;
	struct opts o; /* [global] merged with its own keys */
};
struct config {
	struct opts global;
	int n_ifaces;
	struct config_iface ifaces[CONFIG_MAX_IFACES];
	char *strings[CONFIG_MAX_STRINGS]; /* values the opts point into */
	int n_strings;
	char error[512]; /* "FILE:LINE: what, and the fix" */
};
/* Parse path (and its includes) into c. 0, or -1 with c->error set.
 * Changes nothing but c. */
int config_load(const char *path, struct config *c);
void config_free(struct config *c);

/* ---- service.c: the interfaces `xdpong run` serves ---- */
struct served {
	char name[IF_NAMESIZE];
	struct opts o; /* its settings */
	int owner_fd;  /* owner.c's claim, -1 if none */
	int owned_ifindex;
	bool up;             /* attached by this run */
	struct attachment a; /* when up */
	time_t since;        /* attached since */
	char why[256];       /* why not up */
	bool missing;        /* not up because the interface does not exist */
	struct snapshot prev, cur;
	bool have_stats;
	bool resync;       /* addresses changed: service_flush() resyncs */
	bool lost;         /* detached behind our back: service_lost() released it */
	__u32 self_xdp_id; /* the dispatcher's id self_record() last wrote */
};
struct service {
	struct served v[CONFIG_MAX_IFACES];
	int n;
	bool wait_for_ifaces; /* config mode: a missing interface is waited for */
	bool lost_one;        /* an interface was deleted (ends a CLI-mode run) */
};
/* Claim, then load or take over. 0, or -1 with why set (and said, except
 * a missing interface: v->missing, which the caller may wait for). */
int served_up(struct served *v);
void served_down(struct served *v, bool detach);
/* Make the interface-origin addresses equal the interface's. */
void served_resync(struct served *v, bool quiet);
/* Is our program still the one on the interface? */
bool served_answering(const struct served *v);
/* How many attached interfaces' programs are no longer on them (detached
 * behind our back); what would outlive us of each is released: libxdp's
 * pins of a dispatcher detached without it, and our pins. */
int service_lost(struct service *svc);
/* A netlink event (monitor_read_all's callback). Address changes are
 * only marked: service_flush() resyncs once the socket is drained. */
void service_event(struct service *svc, int ifindex, int ev);
void service_flush(struct service *svc);
/* Read every attached interface's counters (prev keeps the last ones). */
void service_tick(struct service *svc);
/* /metrics and the metrics file: every interface, attached or not. */
int service_prom(struct service *svc, FILE *f);
/* The metrics file (--metrics-file) rewritten: every interface. */
void service_write_metrics(struct service *svc, const char *path);
/* systemd's STATUS= line: what is answered, and busy (the --metrics-listen
 * address another process holds; NULL if none). */
void service_notify_status(const struct service *svc, const char *busy);
/* A new configuration: interfaces added, removed, changed; the rest
 * untouched. 0, -errno. */
int service_apply(struct service *svc, const struct config *c);

/* ---- http.c: GET /metrics and /healthz ---- */
struct http;
/* Listen on addr ("127.0.0.1:9435"). NULL with the reason said; with
 * busy, a port another process holds sets *busy and is not said. */
struct http *http_start(const char *addr, struct service *svc, bool *busy);
/* The fd to poll for it, and how long to wait at most (ms, -1: forever). */
int http_fd(const struct http *h);
int http_timeout_ms(const struct http *h);
/* Serve what is ready; call when its fd is readable or the timeout passed. */
void http_run(struct http *h);
void http_stop(struct http *h);

/* ---- listen.c: --metrics-listen, tried again while the port is taken ---- */
#define LISTEN_RETRY_S 5
struct listener {
	const char *addr; /* NULL: none asked for */
	struct http *h;   /* NULL while not listening */
	int retry_fd;     /* a timerfd while waiting for the port, else -1 */
};
/* Listen on addr (NULL: none). 0 when listening, or when another process
 * holds the port (said once; listener_retry tries again), -1 when addr
 * cannot be listened on at all (said). l is untouched on -1. */
int listener_open(struct listener *l, const char *addr, struct service *svc);
/* retry_fd is readable: one more try. */
void listener_retry(struct listener *l, struct service *svc);
/* Still waiting for the port? */
bool listener_waiting(const struct listener *l);
void listener_close(struct listener *l);

/* ---- readers.c: who is tracing a program, across processes ---- */
#define TRACE_LOCK_DIR "/run/xdpong"
/*
 * TRACE_LOCK_DIR/trace-PROGID.lock. OFD locks, released by the kernel when
 * the process dies: byte 0 is a mutex around switching the flag, byte 1
 * is read-locked by every running trace.
 */
struct readers {
	int fd;
	char path[64];
};
/* Lock (F_RDLCK, F_WRLCK) or unlock (F_UNLCK) byte start of fd; with
 * wait, until it can. 0 or -errno. */
int readers_lock(int fd, short type, long start, bool wait);
/* True if another open file description holds byte 1 (a live trace). */
bool readers_others(int fd);
/* Open the lock file and hold its mutex (byte 0). 0 or -errno. */
int readers_enter(struct readers *r, __u32 prog_id);
/* Let the mutex go (the file stays open). */
void readers_leave(struct readers *r);

/* ---- the subcommands, one file each ---- */
extern const struct cmd_def cmd_attach, cmd_detach, cmd_status, cmd_stats, cmd_run, cmd_addr,
	cmd_trace, cmd_config;

#endif /* XDPONG_LOADER_H */
