/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the loader's source files. */
#ifndef XDPONG_LOADER_H
#define XDPONG_LOADER_H

#include <stdbool.h>
#include <stdio.h>
#include <net/if.h>
#include <linux/types.h>
#include "xdpong.h"

#define PIN_ROOT "/sys/fs/bpf/xdpong"
#define BPFFS_ROOT "/sys/fs/bpf"

/* Exit codes: 0 ok, 1 failure, 2 bad usage (as iproute2 and xdp-tools). */
#define EXIT_USAGE 2

extern int verbose;
extern const char *prog_name_arg0;

/* Print "xdpong: <message>" to stderr. Returns -1 for `return err(...)`. */
int err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- prefix.c: text addresses ---- */
struct prefix {
	int family; /* AF_INET or AF_INET6 */
	unsigned int len;
	__u8 addr[16];
};
/* Parse "192.0.2.1", "192.0.2.0/24", "2001:db8::1/64". 0 or -1. */
int prefix_parse(const char *text, struct prefix *out);
/* "192.0.2.0/24" into buf (INET6_ADDRSTRLEN + 4 bytes is enough). */
const char *prefix_str(const struct prefix *p, char *buf, size_t size);
/* Zero the host bits, as the kernel's LPM trie compares only prefix bits. */
void prefix_mask(struct prefix *p);
/* Parse a whole decimal number in [min, max]. 0 or -1. */
int parse_u64(const char *text, unsigned long long min, unsigned long long max,
	      unsigned long long *out);

/* ---- netlink.c: what the kernel says about an interface ---- */
struct link_info {
	int ifindex;
	char name[IF_NAMESIZE];
	char kind[32];        /* "veth", "tun", "" for physical */
	unsigned short type;  /* ARPHRD_* */
	__u8 mac[6];
	bool has_mac;
	unsigned int mtu;
	unsigned int flags;   /* IFF_* */
	int link_ifindex;     /* veth peer, 0 if none */
	int link_netnsid;     /* peer's netns id, -1 if same netns */
	__u8 xdp_attached;    /* XDP_ATTACHED_* */
	__u32 xdp_prog_id;
	__u32 xdp_drv_prog_id; /* the native-mode program, 0 if none */
};
/* Look up IFACE by name (ifindex > 0: by index). 0, or -errno. */
int link_get(const char *name, int ifindex, struct link_info *out);
/* The veth peer's XDP state, even in another netns. 0, or -errno. */
int link_get_peer(const struct link_info *veth, struct link_info *peer);
/* NLMSG_OK for a signed length (left < 0 after a short last message). */
struct nlmsghdr;
bool nl_msg_ok(const struct nlmsghdr *nh, int left);
/* Set in ifa_flags for an IPv4 subnet's broadcast address (IFA_BROADCAST). */
#define ADDR_CB_BROADCAST (1U << 31)
/* Every address on ifindex with its IFA_F_* flags; cb returns non-zero
 * to stop. 0, or -errno. */
int addr_dump(int ifindex,
	      int (*cb)(const struct prefix *addr, __u32 ifa_flags, void *arg),
	      void *arg);

/* ---- maps.c: finding a live attachment ---- */
enum xdpong_map_id {
	MAP_STATS,
	MAP_LATENCY,
	MAP_ADDR4,
	MAP_ADDR6,
	MAP_RATELIM,
	MAP_TRACE,
	MAP_BSS,
	MAP_RODATA,
	MAP_COUNT,
};
/* Map names in the object, and the file names they are pinned under. */
extern const char *const map_obj_names[MAP_COUNT];
extern const char *const map_pin_names[MAP_COUNT];

struct attachment {
	int ifindex;
	char ifname[IF_NAMESIZE];
	__u32 prog_id;     /* xdpong's program id */
	int prog_fd;
	const char *mode;  /* "native", "skb", "hw" */
	int xdp_mode;      /* enum xdp_attach_mode */
	bool dispatcher;   /* attached through libxdp's dispatcher */
	int map_fd[MAP_COUNT];
	__u32 map_id[MAP_COUNT];
};
/*
 * Find xdpong on ifindex through the attached program (works in a fresh
 * `ip netns exec`, where pins are not visible). 0, -ENOENT if xdpong is
 * not attached (*other_id set to a foreign program's id, if any), -errno.
 */
int attachment_find(int ifindex, struct attachment *a, __u32 *other_id);
void attachment_close(struct attachment *a);
/* Root check, IFACE lookup and attachment_find, each failure explained
 * (the commands that need a live xdpong). 0 or -1. */
int attachment_open(const char *ifname, struct link_info *li,
		    struct attachment *a);
/* Directory the maps of ifname are pinned in. */
void pin_dir(const char *ifname, char *buf, size_t size);
/* Make sure a bpffs is mounted at /sys/fs/bpf. 0 or -1 (error printed). */
int bpffs_ensure(void);

/*
 * The .bss map, written one field at a time through an mmap (so counters
 * the program updates are never clobbered); lookup+update if mmap fails.
 */
struct xdpong_bpf__bss;
struct bss_access {
	int fd;
	struct xdpong_bpf__bss *mem; /* mmap of the map, NULL if that failed */
	size_t len;
};
int bss_open(struct bss_access *b, int fd);
void bss_close(struct bss_access *b);
int bss_read(const struct bss_access *b, struct xdpong_bpf__bss *out);
int bss_set_trace(const struct bss_access *b, __u32 on);
int bss_set_mac(const struct bss_access *b, const __u8 mac[6]);

/* The attached program's configuration, in the skeleton's own layout. */
struct xdpong_bpf__rodata;
int rodata_read(const struct attachment *a, struct xdpong_bpf__rodata *ro);

/* ---- stats.c: counters summed over CPUs ---- */
#include <time.h>
struct snapshot {
	struct timespec mono, wall;
	__u64 reason[XDPONG_R_MAX];
	__u64 outcome[3]; /* enum xdpong_outcome */
	__u64 received;
	__u64 slots[XDPONG_LAT_SLOTS];
	__u64 lat_sum_ns, lat_count;
};
extern const char *const reason_names[XDPONG_R_MAX];
extern const char *const reason_descs[XDPONG_R_MAX];
extern const int reason_outcomes[XDPONG_R_MAX];
extern const char *const outcome_names[3];
int snapshot_read(const struct attachment *a, struct snapshot *s);
/* One JSON line; with prev, per-second rates since prev too. */
void stats_print_json(const struct attachment *a, const struct snapshot *s,
		      const struct snapshot *prev, __u32 sample_every);

/* ---- prom.c: Prometheus text format ---- */
int prom_print(FILE *f, const struct attachment *a, const struct snapshot *s);
/* Rewrite path atomically; errors are printed once, not every interval. */
int prom_update_file(const char *path, const struct attachment *a,
		     const struct snapshot *s);

/* ---- attach.c: bringing xdpong up and down ---- */
#include <xdp/libxdp.h>
#define ATTACH_MAX_ADDRS 64
struct attach_opts {
	const char *ifname;
	enum xdp_attach_mode mode; /* XDP_MODE_UNSPEC: auto */
	bool force;
	bool iface_addrs;
	struct prefix addrs[ATTACH_MAX_ADDRS];
	int n_addrs;
	unsigned long long latency_sample;
	unsigned long long rate_pps, rate_burst;
	unsigned long long global_pps, global_burst;
	/* run only */
	double interval;
	bool json;
	const char *metrics_file;
};
struct xdpong_bpf;
/* A program this process attached, with its object still open. */
struct live {
	struct link_info li;
	struct xdpong_bpf *skel;
	struct xdp_program *prog;
	enum xdp_attach_mode mode;
	int fd4, fd6;
	bool attached;
};
int parse_attach(int argc, char **argv, struct attach_opts *o, bool run);
void run_usage(FILE *f);
int attach_up(const struct attach_opts *o, struct live *lv);
/* Close; with detach, also detach and remove the pins. */
void attach_down(struct live *lv, bool detach);
int pins_remove(const char *ifname);
bool pinned_map_in_use(const char *path);

/* ---- addrs.c: the address maps ---- */
int addr_map_put(int fd4, int fd6, const struct prefix *p, __u32 origin);
int addr_map_del(int fd4, int fd6, const struct prefix *p);
int addr_map_walk(int fd4, int fd6,
		  int (*cb)(const struct prefix *p, __u32 origin, void *arg),
		  void *arg);
/* Make the interface-origin entries equal li's usable addresses. */
int addr_sync(int fd4, int fd6, const struct link_info *li, bool quiet,
	      int *n4, int *n6);
void addr_print(FILE *f, const struct attachment *a, bool json);

/* ---- the subcommands ---- */
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_addr(int argc, char **argv);
int cmd_trace(int argc, char **argv);

/* ---- main.c helpers for subcommands ---- */
/* Resolve IFACE to link info, printing the error. 0 or -1. */
int iface_lookup(const char *name, struct link_info *li);
/* Refuse early, with the reason, when not root. 0 or -1. */
int require_root(void);
void json_str(FILE *f, const char *s);

#endif /* XDPONG_LOADER_H */
