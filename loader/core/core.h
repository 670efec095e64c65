/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's ground floor, loader/core/: what the kernel and the
 * running system say, and xdpong's own records of it. It owns the
 * command-line vocabulary every floor reads (struct opts, opts.c), the
 * messages (log.c), the kernel's features (probe.c), interfaces and
 * addresses (netlink.c), capabilities (privs.c), who owns an interface
 * (owner.c), the BTF kept for readers (btfstore.c), map values by field
 * name (layout.c), the maps' pins and bpffs (pins.c), the .bss map
 * (bss.c), what runs on an interface (dispatcher.c), finding an attached
 * xdpong (attachment.c) and whether pins are live (liveness.c), the
 * address maps (addrmap.c), the counters (counters.c), trace's reader
 * locks (readers.c) and the prober of `probe` and run's [probe] sections
 * (prober.c, probestats.c).
 *
 * It promises to change nothing on an interface: it reads, pins, and
 * writes map values. It includes no header of the floors above it
 * (up/, service/, cmd/, main.c), which tests/style/layers.sh checks.
 * Reading order, from the bottom up: the sections below, in order.
 *
 * Returns, as each prototype of every floor says in these words:
 *   "0 or -errno"  (also "0, -errno"): the error is not said; the caller
 *                  words it. fds and counts likewise: >= 0, or -errno.
 *   "0 or -1"      the error is said already (log_error, on stderr):
 *                  the caller only stops ("said" in a comment).
 *   "-errno (said)" the exception, where the caller goes on without it.
 *   "0, -1 or 1"   up/bringup.h's phases: 1 is "libxdp's dispatcher
 *                  cannot be had here", and load_up tries alone.
 *   bool           a question answered; nothing said.
 *   NULL           with errno set, unless the comment says "said".
 */
#ifndef XDPONG_CORE_H
#define XDPONG_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/types.h>
#include "xdpong.h"
#include "xdpong_names.h"
#include "prefix.h"
#include "parse.h"

/* libbpf's and the skeleton's types, by pointer only. */
struct bpf_object;
struct bpf_map;
struct btf;
struct xdpong_bpf;
struct xdpong_bpf__rodata;
struct loaded;

struct attachment;

#define PIN_ROOT "/sys/fs/bpf/xdpong"
#define BPFFS_ROOT "/sys/fs/bpf"
/* libxdp's bpffs (its directory is xdp/ in it), if not BPFFS_ROOT. */
#define LIBXDP_BPFFS_ENV "LIBXDP_BPFFS"

/* Exit codes: 0 ok, 1 failure, 2 bad usage (as iproute2 and xdp-tools). */
#define EXIT_USAGE 2
/* status IFACE: xdpong is not attached there (as LSB's "not running"). */
#define EXIT_NOT_ATTACHED 3

/* ---- log.c: messages on stderr, and how much libbpf and libxdp may say ---- */
/* -v: 1 says more, 2 adds libbpf's and libxdp's debug output. */
extern int verbose;

/*
 * "xdpong: <message>" on stderr. log_error returns -1, so that an error
 * path reads `return log_error(...)`; log_note is for what is not a
 * failure (a fallback taken, a warning) and returns nothing.
 */
int log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Route libbpf's and libxdp's messages through -v. */
void log_setup_libs(void);

/* ---- opts.c: the command line, declared once ----
 * Every option of every subcommand is one row of opt_table: its names,
 * its argument type, the commands that take it, whether a config file may
 * set it, and its help text. The parser, each command's --help and
 * `xdpong options` (main.c; the tests compare it with the man page and
 * the bash completion) all read that table.
 */
/* The subcommands, as bits: an option lists the commands that take it. */
enum cmd_id {
	CMD_ATTACH,
	CMD_DETACH,
	CMD_STATUS,
	CMD_STATS,
	CMD_RUN,
	CMD_ADDR,
	CMD_TRACE,
	CMD_CONFIG,
	CMD_PROBE,
	CMD_COUNT,
};
#define CMD_BIT(c) (1U << (c))

/* What an option's value is; each type has one parser in opts.c, which
 * stores the value where the option's row says (struct opt_def). */
enum opt_arg {
	ARG_NONE,    /* a flag: a bool, set true */
	ARG_COUNT,   /* a flag that counts: an int, one more each time (-vv) */
	ARG_HELP,    /* --help: prints the command's help, stores nothing */
	ARG_MODE,    /* auto | native | skb: an enum opts_mode */
	ARG_PREFIX,  /* ADDR[/LEN], IPv4 or IPv6, repeatable: an array of struct
		      * prefix, and its count (an int) at off2 */
	ARG_UINT,    /* plain decimal, in [min, max]: an unsigned long long */
	ARG_RATE,    /* PPS[:BURST]: two unsigned long longs, BURST at off2 */
	ARG_SECONDS, /* decimal seconds, fractions allowed, in [0.01, 86400]: a double */
	ARG_PATH,    /* a non-empty path: a const char * into the text */
	ARG_LISTEN,  /* ADDR:PORT, [IPV6]:PORT, a local TCP address: the same */
	ARG_OPTPORT, /* [=PORT]: a port, 1 to 65535, or the row's dflt without
		      * one (in a config file: yes); an unsigned long long */
	ARG_SOURCE,  /* IFACE|ADDR: an interface name or an IP address: a
		      * const char * into the text */
};

/* Where a config file may set an option. */
enum opt_config {
	CFG_NONE,   /* command line only */
	CFG_ANY,    /* [global] or [interface NAME] */
	CFG_GLOBAL, /* [global] only: it is the whole service's */
};

/* Options a config section sets together: an interface's choice of
 * addresses replaces the global one whole (conffile.c). */
enum opt_group {
	GROUP_NONE,
	GROUP_ADDRS, /* --no-iface-addrs, --host-addrs */
};

/*
 * One option, declared once, as xdp-tools declares its parameters: its
 * value lives in struct opts at off (OPT_FIELD), and a new option is a
 * row of opt_table plus its field there.
 */
struct opt_def {
	const char *name; /* long name, and the config file key */
	char short_name;  /* 0: long only */
	enum opt_arg arg;
	const char *metavar;         /* shown in --help: --rate-limit PPS[:BURST] */
	unsigned int cmds;           /* CMD_BIT()s of the commands that take it */
	enum opt_config config;      /* where a config file may set it */
	size_t off, size;            /* the value in struct opts (size 0: none) */
	size_t off2, size2;          /* the second value: ARG_RATE, ARG_PREFIX */
	unsigned long long min, max; /* ARG_UINT */
	unsigned long long dflt;     /* ARG_OPTPORT: the value without one */
	enum opt_group group;
	const char *help; /* one or more lines, no trailing newline */
};
#define OPT_FIELD(f) .off = offsetof(struct opts, f), .size = sizeof(((struct opts *)0)->f)
#define OPT_FIELD2(f) .off2 = offsetof(struct opts, f), .size2 = sizeof(((struct opts *)0)->f)

#define OPTS_MAX 48 /* room for opt_table's rows */
extern const struct opt_def opt_table[];
extern const int opt_count;
/* A row's index, for struct opts' seen[]. */
#define opt_index(d) ((int)((d)-opt_table))

/* --max-prefixes: what each address map (IPv4, IPv6) holds, as loaded. */
#define MAX_PREFIXES_DEFAULT XDPONG_PREFIXES_DEFAULT
#define MAX_PREFIXES_MAX 16777216

enum opts_mode {
	MODE_AUTO = 0, /* native, else skb */
	MODE_NATIVE,
	MODE_SKB,
};
/* "auto", "native", "skb": --mode's word for it. */
const char *opts_mode_name(enum opts_mode mode);

/*
 * Every option's value, whichever command is parsed. The --addr list is
 * on the heap, as long as the command line or the config file makes it:
 * the struct that opts_parse or config_load filled owns it (opts_free),
 * and a copy by assignment only borrows it (opts_own_addrs makes it the
 * copy's own).
 */
struct opts {
	enum cmd_id cmd;
	bool seen[OPTS_MAX]; /* by opt_index(): given on the line or in the file */
	int verbose;
	enum opts_mode mode;
	struct prefix *addrs; /* --addr, n_addrs of them (see above) */
	int n_addrs;
	bool no_iface_addrs;
	bool host_addrs;
	bool force;
	unsigned long long latency_sample;
	unsigned long long priority;
	unsigned long long max_prefixes; /* per family: the address maps' size */
	unsigned long long rate_pps, rate_burst;
	unsigned long long global_pps, global_burst;
	unsigned long long stamp_port; /* --stamp: STAMP's UDP port; 0: off */
	bool stamp_driver;             /* --stamp-driver: T2 from the driver */
	double interval;
	bool json;
	const char *metrics_file;
	bool all;
	bool prometheus;
	unsigned long long count;
	bool off;
	const char *config;
	const char *metrics_listen;
	/* probe's */
	unsigned long long size, ttl, tos, port;
	double timeout;
	const char *source;
	bool ipv4, ipv6, quiet, icmp;
	/* Positional arguments, in order, options removed: as many as the
	 * command line carries (they stay in argv, which the parse orders). */
	char *const *args;
	int n_args;
};

/* A subcommand: its usage, and the function that runs it. */
struct cmd_def {
	enum cmd_id id;
	const char *name;
	const char *synopsis;   /* after "xdpong NAME " */
	int min_args, max_args; /* positional arguments */
	bool iface_arg;         /* the first one names an interface */
	const char *summary;    /* one line, for `xdpong --help` */
	const char *description;
	const char *examples;
	int (*run)(const struct opts *o);
};

/* Defaults before parsing: auto mode, latency sample 64, iface addresses on. */
void opts_init(struct opts *o, enum cmd_id cmd);

/*
 * Parse argv (argv[0] is the command name) into o. Returns 0, a usage
 * error already printed as "xdpong: ..." (OPTS_USAGE), or OPTS_HELP when
 * --help was given (the help is printed; the caller exits 0). Never exits.
 * Whatever it returns, o then owns an --addr list: opts_free.
 */
#define OPTS_USAGE 2
#define OPTS_HELP 1
int opts_parse(const struct cmd_def *cmd, int argc, char **argv, struct opts *o);

/*
 * Set option d from text, as the command line and a config file do.
 * 0, or -1 with why in errbuf ("expected PPS or PPS:BURST, 1 to 1e9").
 */
int opt_set(const struct opt_def *d, const char *text, struct opts *o, char *errbuf, size_t errlen);

/* Find an option by its long name (a config key), NULL if none. */
const struct opt_def *opt_by_name(const char *name);
/* Was the option of this long name given? */
bool opts_seen(const struct opts *o, const char *name);

/* A command's --help, from the table. */
void cmd_usage(FILE *f, const struct cmd_def *cmd);

/* Options that cannot go together, or more --addr prefixes of a family
 * than --max-prefixes (where given) holds: why (in buf), or NULL. */
const char *opts_conflict(const struct opts *o, char *buf, size_t size);
/* How many --addr prefixes of family (AF_INET, AF_INET6). */
int opts_addrs_of(const struct opts *o, int family);
/* Give o a copy of its --addr list of its own. 0, or -ENOMEM with none. */
int opts_own_addrs(struct opts *o);
/* Free what o owns: its --addr list. */
void opts_free(struct opts *o);

/* ---- probe.c: what the running kernel can do for xdpong ----
 * Found by trying, never by its version: each probe loads a few
 * instructions that use the feature. Self-contained (libbpf and libc
 * only): the tests' fixture links it too.
 */
enum feature {
	FEAT_XDP,     /* an XDP program loads at all */
	FEAT_BTF,     /* the kernel describes itself (/sys/kernel/btf/vmlinux) */
	FEAT_RINGBUF, /* BPF ring buffers (5.8): the trace */
	FEAT_FRAGS,   /* multi-buffer XDP: the frags flag, bpf_xdp_load_bytes
			* and bpf_xdp_get_buff_len (all three came in 5.18) */
	FEAT_CMPXCHG, /* BPF atomic compare-and-exchange (5.12): rate limits */
	FEAT_TXWATCH, /* BTF-typed programs on the xdp tracepoints (5.5): the
			* count of XDP_TX the driver did not send */
	FEAT_TAI,     /* bpf_ktime_get_tai_ns (6.1): STAMP's clock */
	FEAT_RXTS,    /* bpf_xdp_metadata_rx_timestamp (6.3): --stamp-driver */
	FEAT_COUNT
};

struct feature_info {
	const char *name;    /* "frags", as status and its JSON say it */
	const char *what;    /* what xdpong does with it */
	const char *without; /* what xdpong does without it */
	const char *since;   /* the first Linux release that has it, for people */
};

extern const struct feature_info feature_info[FEAT_COUNT];

/* Probe once (later calls answer from memory). Needs CAP_BPF (root). */
bool feature_have(enum feature f);
/*
 * Why f is missing, for an error or status: "the kernel refused a
 * program with BPF_F_XDP_HAS_FRAGS (Invalid argument)". "" if present.
 */
const char *feature_why(enum feature f);
/* Whether f's probe was refused with EPERM: not a missing feature but
 * bpf(2) denied to this process (a capability, or a seccomp filter). */
bool feature_denied(enum feature f);
/* The running kernel's release, for messages ("5.10.0-46-amd64"). */
const char *kernel_release(void);

/* ---- clock.c: the clock STAMP's timestamps come from ----
 * The program reads CLOCK_TAI where the kernel has the helper (FEAT_TAI),
 * else CLOCK_MONOTONIC, and adds an offset the loader writes to make it
 * UTC (bpf/state.h, stamp_clock_off_ns); the Error Estimate it sends
 * says what the kernel's clock discipline (adjtimex) says of the clock.
 */
struct stamp_clock {
	enum xdpong_stamp_clock source;
	long long off_ns;      /* the source's reading + off_ns = UTC, ns */
	unsigned int errest;   /* RFC 4656 4.1.2, host order: S Z scale multiplier */
	bool synced;           /* the kernel's clock is synchronised (not STA_UNSYNC) */
	long long error_us;    /* its estimated error (synced) or maximum error */
	long long maxerror_us; /* its maximum error */
};
/* The clock this kernel gives the program: TAI where it can. */
enum xdpong_stamp_clock stamp_clock_source(void);
/* "tai", "monotonic+offset": status's word for a source. */
const char *stamp_clock_name(enum xdpong_stamp_clock source);
/*
 * Read the offset and the error for source now. 0 or -errno. Where no
 * one will read it again (followed false: attach, which exits), S is
 * never set and the error is the maximum error: the program's word must
 * stay true while nothing keeps it in step.
 */
int stamp_clock_read(enum xdpong_stamp_clock source, bool followed, struct stamp_clock *c);
/*
 * --stamp-driver: the NIC's PTP hardware clock, in which its receive
 * timestamps are. phc_index: ifname's (ETHTOOL_GET_TS_INFO), -1 in *index
 * if it has none; 0 or -errno. phc_offset: UTC less /dev/ptpINDEX's
 * reading now, ns, read against the real time clock; 0 or -errno.
 */
int phc_index(const char *ifname, int *index);
int phc_offset(int index, long long *off_ns);
/* RFC 4656 4.1.2's Error Estimate for an error of error_us: S set when
 * synced, Z 0 (NTP format), the least scale whose multiplier (never 0)
 * covers it. */
unsigned int stamp_errest(bool synced, long long error_us);

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

/* ---- btfstore.c: the BTF of loaded objects, for readers without
 * CAP_SYS_ADMIN ---- */
/* Keep obj's BTF (loaded) under the kernel's id for it. 0 or -errno. */
int btfstore_save(const struct bpf_object *obj, int ifindex);
/* The kept BTF of kernel id btf_id, or NULL (errno). */
struct btf *btfstore_load(__u32 btf_id);
/* Drop the interface's kept BTF that a's maps no longer name (all: every
 * one, a's xdpong is gone). */
void btfstore_prune(const struct attachment *a, bool all);

/* ---- layout.c: map values as named fields, from BTF ---- */
#define LAYOUT_MAX_FIELDS 96
struct layout_field {
	char name[48];
	__u32 off, size;
};
struct map_layout {
	__u32 type, key_size, value_size, max_entries, flags;
	int n; /* 0: no BTF names (shape only) */
	struct layout_field f[LAYOUT_MAX_FIELDS];
};
/* A loaded map's layout (the kernel's BTF), or a skeleton map's. 0, -errno. */
int layout_of_fd(int map_fd, struct map_layout *l);
int layout_of_map(const struct bpf_object *obj, const struct bpf_map *map, struct map_layout *l);
/* Same shape and the same fields at the same places: reusable as it is. */
bool layout_same(const struct map_layout *a, const struct map_layout *b);
const struct layout_field *layout_find(const struct map_layout *l, const char *name);
/* Key 0 of an array map, every CPU's value for a per-CPU one; free(*buf). */
int layout_read_one(int map_fd, const struct map_layout *l, void **buf, int *ncpu);
void *layout_cpu(const struct map_layout *l, void *buf, int cpu);
/* Bytes between two CPUs' values in such a buffer. */
size_t layout_stride(const struct map_layout *l);
/* Copy the fields dst's layout shares with src's (same name and size),
 * except those named in skip (NULL-terminated, or NULL). How many. */
int layout_copy_fields(const struct map_layout *from, const void *src, const struct map_layout *to,
		       void *dst, const char *const *skip);
/* The same, adding: dst's 64-bit words += src's (counters). How many. */
int layout_add_fields(const struct map_layout *from, const void *src, const struct map_layout *to,
		      void *dst, const char *const *skip);

/* ---- pins.c: the maps' pins under /sys/fs/bpf/xdpong/IFACE ---- */
/*
 * How a takeover (up/takeover.c) treats a map of the xdpong it replaces:
 * reused as it is where this build's layout is the same, else carried.
 */
enum map_takeover {
	TAKE_FRESH,     /* never reused: this run's configuration (.rodata) */
	TAKE_STATE,     /* reused if named alike, else its fields copied before load (.bss) */
	TAKE_COUNTS,    /* reused if named alike, else copied field by field, and what the
			 * old program counts after the copy goes into the row's carry map */
	TAKE_FIELDS,    /* reused if named alike, else copied field by field */
	TAKE_ENTRIES,   /* reused if shaped alike, else copied entry by entry; a failure
			 * stops the takeover (the prefixes) */
	TAKE_SOFT,      /* the same, but a failure only starts it afresh (rate limiter) */
	TAKE_TRANSIENT, /* reused if shaped alike, else left fresh (ring buffer, active word) */
};

/*
 * xdpong's maps, one row each, the only place a map is described:
 * X(id, object name, skeleton member, pin name, optional, takeover, carry)
 *   object name   the map's name in the object (".bss": the kernel's is
 *                 "<object prefix>.bss", matched by its suffix)
 *   member        struct xdpong_bpf's maps.member (up/takeover.c)
 *   pin name      the file it is pinned as under PIN_ROOT/IFACE
 *   optional      newer than some builds, so an xdpong may lack it
 *   takeover      enum map_takeover
 *   carry         TAKE_COUNTS: the map the late counts go into; else -1
 */
#define XDPONG_MAPS(X)                                                                         \
	X(MAP_STATS, "xdpong_stats", xdpong_stats, "stats", false, TAKE_COUNTS, MAP_CARRY)     \
	X(MAP_LATENCY, "xdpong_latency", xdpong_latency, "latency", false, TAKE_COUNTS,        \
	  MAP_LATCARRY)                                                                        \
	X(MAP_ADDR4, "xdpong_addr4", xdpong_addr4, "addr4", false, TAKE_ENTRIES, -1)           \
	X(MAP_ADDR6, "xdpong_addr6", xdpong_addr6, "addr6", false, TAKE_ENTRIES, -1)           \
	X(MAP_RATELIM, "xdpong_ratelim", xdpong_ratelim, "ratelim", false, TAKE_SOFT, -1)      \
	X(MAP_TRACE, "xdpong_trace", xdpong_trace, "trace", false, TAKE_TRANSIENT, -1)         \
	X(MAP_BSS, ".bss", bss, "bss", false, TAKE_STATE, -1)                                  \
	X(MAP_RODATA, ".rodata", rodata, "rodata", false, TAKE_FRESH, -1)                      \
	/* counts carried over at an upgrade, and the same for the histogram */                \
	X(MAP_CARRY, "xdpong_carry", xdpong_carry, "carry", true, TAKE_FIELDS, -1)             \
	X(MAP_LATCARRY, "xdpong_latcarry", xdpong_latcarry, "latcarry", true, TAKE_FIELDS, -1) \
	/* XDP_TX the driver did not send (up/txwatch.c) */                                    \
	X(MAP_TXFAIL, "xdpong_txfail", xdpong_txfail, "txfail", true, TAKE_FIELDS, -1)         \
	/* which xdpong acts in a shared chain (up/chain.c) */                                 \
	X(MAP_ACTIVE, "xdpong_active", xdpong_active, "active", true, TAKE_TRANSIENT, -1)

enum xdpong_map_id {
#define X(id, ...) id,
	XDPONG_MAPS(X)
#undef X
		MAP_COUNT,
};
/* A row of XDPONG_MAPS, by enum xdpong_map_id. */
struct map_def {
	const char *obj_name;
	const char *pin_name;
	bool optional;
	enum map_takeover takeover;
	int carry;
};
extern const struct map_def map_defs[MAP_COUNT];
#define TXWATCH_LINKS 2 /* xdp:xdp_exception, xdp:xdp_bulk_tx (up/txwatch.c) */
/* Where tracepoint link i (0 .. TXWATCH_LINKS - 1) is pinned. */
void pin_link_path(const char *ifname, int i, char *buf, size_t size);
/* Where map (enum xdpong_map_id) of ifname is pinned. */
void pin_map_path(const char *ifname, int map, char *buf, size_t size);
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
/* The pinned maps of ifname, by bpf_obj_get (-1 where none). 0, or
 * -ENOENT without the maps every build has. Close them as attachment_close
 * does. */
int pins_open(const char *ifname, int map_fd[MAP_COUNT], __u32 map_id[MAP_COUNT]);

/* ---- bss.c: the .bss map, one field at a time ---- */
/*
 * Written one field at a time through an mmap (so counters the program
 * updates are never clobbered); lookup+update if mmap fails.
 */
struct bss_access {
	int fd;
	void *mem; /* mmap of the map, NULL if that failed */
	size_t len;
	struct map_layout layout; /* the attached build's, from its BTF */
};
/* 0; -EPROTO if the map has no BTF to find fields by; -errno. */
int bss_open(struct bss_access *b, int fd);
void bss_close(struct bss_access *b);
/*
 * The .bss fields read and written one at a time, each a constant
 * (BSS_trace_enabled, ...) so that a misspelt one does not compile:
 * X(name, bytes), the name as the program declares it (bss.c checks each
 * against this build's struct xdpong_bpf__bss, name and width).
 */
#define XDPONG_BSS_FIELDS(X)     \
	X(trace_enabled, 4)      \
	X(trace_lost, 8)         \
	X(if_mac, 8)             \
	X(self_ids, 8)           \
	X(stamp_clock_off_ns, 8) \
	X(stamp_errest, 4)       \
	X(stamp_phc_off_ns, 8)   \
	X(stamp_phc_ok, 4)
enum bss_field {
#define X(name, bytes) BSS_##name,
	XDPONG_BSS_FIELDS(X)
#undef X
};
/* Any .bss field's name as text, where xdpong.skel.h is included: a
 * name this build's .bss lacks does not compile. */
#define BSS_NAME(f) ((void)sizeof(((struct xdpong_bpf__bss *)0)->f), #f)
/* One field; -EPROTO if the attached build has no such field. */
int bss_get(const struct bss_access *b, enum bss_field f, __u64 *out);
int bss_set(const struct bss_access *b, enum bss_field f, __u64 value);
int bss_set_mac(const struct bss_access *b, const __u8 mac[6]);
/* The program's exact own-address lists (NULL: none); -EPROTO if the
 * attached build has none. */
int bss_set_own(const struct bss_access *b, const struct xdpong_own_addrs *own);

/* ---- dispatcher.c: what runs on an interface, as libxdp's dispatcher says ---- */
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
/* What runs on ifindex, asked by id (CAP_SYS_ADMIN: privs_by_id): libxdp's
 * view, or the kernel's where libxdp has no bpffs. 0 (c->n 0 if nothing
 * is attached), -errno. chain_query (attachment.c) also asks without. */
int dispatcher_query(int ifindex, struct chain_info *c);
/* The index of program prog_id in c, in run order; -1 if it is not there. */
int chain_position(const struct chain_info *c, __u32 prog_id);

/* ---- attachment.c: one attached xdpong, as found ---- */
struct attachment {
	struct link_info li;
	__u32 prog_id; /* xdpong's program id */
	int prog_fd;
	const char *mode; /* "native", "skb", "hw" */
	int xdp_mode;     /* enum xdp_attach_mode */
	bool dispatcher;  /* attached through libxdp's dispatcher */
	int map_fd[MAP_COUNT];
	__u32 map_id[MAP_COUNT];
	/* What this process loaded (up.h's struct loaded), NULL if it was
	 * found: then the fds above are its skeleton's, closed by load_down. */
	struct loaded *loaded;
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
/* Close what was found (a loaded one's fds are its skeleton's: only
 * forgotten here). */
void attachment_close(struct attachment *a);
/* What runs on ifindex, in run order, with or without CAP_SYS_ADMIN
 * (without: only what the interface shows, and whether it is the xdpong
 * of the pins). 0 (c->n 0 if nothing is attached), -errno. */
int chain_query(int ifindex, struct chain_info *c);
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
/*
 * The attached program's .rodata or .bss (map) in this build's own struct
 * (struct xdpong_bpf__rodata, __bss), field by field by name: another
 * build's is read right. 0; -EPROTO if it lacks some of our fields (those
 * stay zero, the rest are read); -errno.
 */
int map_read_own(const struct attachment *a, int map, void *out, size_t size);
int rodata_read(const struct attachment *a, struct xdpong_bpf__rodata *ro);

/* ---- liveness.c: whether pins are a live xdpong's ---- */
/* Pins whose interface is gone and whose maps no program uses. */
bool pins_stale(const char *ifname);
/* Remove ifname's pins if they are the program's whose stats map has this
 * id (0: none), or stale; never another live xdpong's (an interface of the
 * same name in another netns). How many were removed. */
int pins_release(const char *ifname, __u32 stats_map_id);
/* Remove ifname's pins unless they are its live program's (stats_map_id)
 * or another live xdpong's (an interface of the same name in another
 * netns: refused). 0 or -1 (said). */
int pins_prepare(const char *ifname, __u32 stats_map_id);

/* ---- addrmap.c: the address maps ---- */
int addr_map_put(int fd4, int fd6, const struct prefix *p, __u32 origin);
int addr_map_del(int fd4, int fd6, const struct prefix *p);
int addr_map_walk(int fd4, int fd6, int (*cb)(const struct prefix *p, __u32 origin, void *arg),
		  void *arg);
/* Whether p is an entry addr_own_sync mirrors into the exact lists (an
 * interface address or broadcast): changing it needs that sync. */
bool addr_map_mirrored(int fd4, int fd6, const struct prefix *p);
/* One address map's entries (used: NULL to skip the count, a walk) and
 * size (max_entries: --max-prefixes). 0 or -errno. */
int addr_map_room(int fd, __u32 *used, __u32 *max);
/* Make the interface-origin entries equal li's usable addresses (li NULL:
 * none, for --no-iface-addrs), and with host those of the host's other
 * interfaces that are up (--host-addrs); n4, n6: how many, if not NULL. */
int addr_sync(int fd4, int fd6, const struct link_info *li, bool host, bool quiet, int *n4,
	      int *n6);
/* Make the config-origin entries equal addrs (--addr, the config file);
 * -ENOSPC, changing nothing, where a family's are more than its map holds. */
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
/* How many live tracepoint links count into a's txfail map (up/txwatch.c
 * makes them); -ENOENT if it has none. */
int txwatch_count(const struct attachment *a);
/* The count in a txfail map, summed over CPUs. 0, or -errno. */
int txwatch_read(int fd, __u64 *tx_failed);

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

/* ---- prober.c, probestats.c: STAMP and ICMP probes, and their RTTs ----
 * A prober sends to its targets on a schedule and matches the replies
 * (`xdpong probe`, and run's [probe NAME] sections): STAMP as an RFC 8762
 * Session-Sender over UDP (no privilege), or ICMP echo through ping
 * sockets. It never blocks: the caller polls its fds and calls it when
 * they are readable or prober_next_ns() has come.
 */
#define PROBE_STAMP_BASE 44     /* RFC 8762 4.2.1: the unauthenticated packet */
#define PROBE_BUCKETS 17        /* the histogram's buckets, +Inf last */
#define PROBE_PENDING_MAX 4096  /* probes a target may wait for at once */
#define PROBE_SAMPLES_MAX 65536 /* RTTs kept per target for percentiles */
extern const double probe_bucket_le[PROBE_BUCKETS - 1]; /* seconds, then +Inf */

/* Values kept for percentiles: all up to PROBE_SAMPLES_MAX, then a
 * uniform reservoir of them. */
struct probe_samples {
	double *v; /* ns */
	unsigned int n, room;
	unsigned long long seen;
	double sum, sumsq, min, max; /* of every one seen */
};
/* A distribution's summary, ns (mdev: the standard deviation, as ping's). */
struct probe_dist {
	double min, mean, p50, p90, p99, max, mdev;
};
struct probe_pending;
struct probe_target {
	/* First what each send and reply touches: the schedule, the ring, the address. */
	unsigned long long next_send_ns; /* CLOCK_MONOTONIC */
	struct probe_pending *pend;      /* a ring of n_pend, by sequence number */
	unsigned int n_pend;
	unsigned int next_seq, top_seq; /* top_seq: the highest answered, + 1 */
	int index;                      /* in its prober's list: STAMP's SSID, ICMP's payload */
	int family;
	unsigned int salen;
	bool done; /* -c COUNT sent */
	struct sockaddr_storage sa;
	unsigned long long sent, received, lost, dups, reordered;
	unsigned long long bucket[PROBE_BUCKETS]; /* RTTs per bucket, not cumulative */
	double rtt_sum_s;
	struct probe_samples rtt, refl, fwd, bwd; /* with keep_samples */
	char name[256];                           /* as given: a name or an address */
	char addr[64];                            /* the address, as text */
};
/* A reply, as the prober tells it (seq: the target's sequence number). */
struct probe_reply {
	const struct probe_target *t;
	unsigned int seq, bytes;
	int ttl;                           /* STAMP: byte 40; ICMP: the reply's; -1 unknown */
	double rtt_ns, refl_ns;            /* refl_ns: T3 - T2, STAMP only */
	double fwd_ns, bwd_ns;             /* with synced */
	bool synced, dup, reordered, late; /* late: after it was counted lost */
};
struct probe_cfg {
	const char *label; /* "cli", or the [probe NAME] section */
	bool icmp;
	unsigned int port;        /* STAMP's */
	unsigned int size;        /* STAMP: the UDP payload; ICMP: data after the header */
	int ttl, tos;             /* -1: the kernel's */
	double interval, timeout; /* seconds */
	unsigned long long count; /* probes per target, 0: no end */
	const char *source;       /* -I IFACE|ADDR, or NULL */
	bool keep_samples;        /* percentiles (the command's summary) */
	bool read_on_tick;        /* replies read by prober_tick once the kernel stamps them */
	void (*on_reply)(const struct probe_reply *r, void *arg);
	void *arg;
};
struct probe_due;
struct probe_flight;
struct probe_io;
struct prober {
	struct probe_cfg cfg;
	struct probe_target *t;
	int n;
	int fd[2];           /* IPv4, IPv6; -1 where no target is of the family */
	unsigned int key[2]; /* the next SO_TIMESTAMPING key of each socket */
	struct probe_txkey *txkey[2];
	unsigned short ssid; /* RFC 8972 3: the first target's; the next, + 1 */
	unsigned int magic;  /* ICMP: this run's, in every payload */
	unsigned int errest; /* our Error Estimate (RFC 4656 4.1.2) */
	bool synced;         /* our clock is synchronised (S) */
	/* when errest and synced were read */
	unsigned long long clock_read_ns;
	bool raw;       /* ICMP through raw sockets (CAP_NET_RAW) */
	bool due_known; /* prober_tick has nothing before due_ns */
	unsigned long long due_ns;
	struct probe_due *heap; /* the targets still to send, soonest first */
	int n_heap, heap_room;
	struct probe_flight *fl; /* the probes sent, in order: their timeouts */
	unsigned int fl_head, fl_n, fl_room;
	struct probe_io *io; /* batches of messages, sent or received */
	bool ts_ok;          /* SO_TIMESTAMPING accepted */
	bool rx_stamped;     /* the last reply had the kernel's T4 */
	bool said_no_tx, said_no_rx, said_send, said_mem;          /* said once */
	unsigned long long tx_kernel, tx_user, rx_kernel, rx_user; /* where T1, T4 came from */
};
/* "stamp" or "icmp". */
const char *probe_protocol(const struct probe_cfg *c);
/* Every address name resolves to (family: 0, AF_INET or AF_INET6)
 * appended to *v (*n of them). 0, or -1 with why in errbuf. */
int probe_resolve(const char *name, int family, struct probe_target **v, int *n, char *errbuf,
		  size_t errlen);
/* Open the sockets for p->t (cfg and targets set); 0, or -1 with why in
 * errbuf (for ICMP the refusal names net.ipv4.ping_group_range and
 * CAP_NET_RAW). The schedule starts at now_ns (CLOCK_MONOTONIC). */
int prober_open(struct prober *p, unsigned long long now_ns, char *errbuf, size_t errlen);
void prober_close(struct prober *p);
/* Free a target's own memory (its ring and samples). */
void probe_target_free(struct probe_target *t);
/* Give t a pending ring for cfg (its own memory). 0 or -ENOMEM. */
int probe_target_ready(struct probe_target *t, const struct probe_cfg *cfg);
/* Send what is due, count as lost what waited past the timeout. */
void prober_tick(struct prober *p, unsigned long long now_ns);
/* Read what socket i (0: IPv4, 1: IPv6) holds: replies and timestamps. */
void prober_read(struct prober *p, int i);
/* The descriptor to poll for socket i: -1 where prober_tick reads it
 * (cfg.read_on_tick, and the kernel's receive timestamps arrive: a reply
 * read late still has its T4), so replies wake no one. */
int prober_pollfd(const struct prober *p, int i);
/* Give p the targets v (n, from probe_resolve; p owns them then): v[i]
 * with from[i] >= 0 is p's target from[i] again, with its counts, its
 * sequence and its probes in flight; the rest start at now_ns and need a
 * ring already (probe_target_ready); p's other targets go. */
void prober_retarget(struct prober *p, struct probe_target *v, int n, const int *from,
		     unsigned long long now_ns);
/* The targets of v (n) that p has not, added (v's are moved; a family's
 * socket opened where it was not). 0, or -1 with why in errbuf. */
int prober_add(struct prober *p, struct probe_target *v, int n, unsigned long long now_ns,
	       char *errbuf, size_t errlen);
/* t's counts and histogram, carried into nt (a target of another prober). */
void probe_target_carry(struct probe_target *nt, const struct probe_target *t);
/* Count every probe still waited for as lost (the run ends). */
void prober_stop(struct prober *p);
/* When prober_tick is next needed (CLOCK_MONOTONIC ns); 0: never again
 * (-c COUNT sent and nothing waited for). */
unsigned long long prober_next_ns(const struct prober *p);
/* Now on CLOCK_MONOTONIC, ns. */
unsigned long long probe_now_ns(void);
/* probestats.c: one RTT into t's histogram; samples kept as cfg says. */
void probe_samples_add(struct probe_samples *s, double ns);
void probe_samples_free(struct probe_samples *s);
/* The summary of s (all zero when empty). */
void probe_dist_of(const struct probe_samples *s, struct probe_dist *d);
void probe_hist_add(struct probe_target *t, double rtt_ns);
/* The Prometheus text of n probers (their HELP and TYPE once). */
void probe_prom_print(FILE *f, const struct prober *const *v, int n);

#endif /* XDPONG_CORE_H */
