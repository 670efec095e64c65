/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the benchmark driver's source files. */
#ifndef XDPONG_BENCH_DRIVER_H
#define XDPONG_BENCH_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "bench.h"

#define TRIALS_MAX 9

/* ---- stats.c: one figure over trials ---- */
struct series {
	int n;
	double v[TRIALS_MAX];
};
void series_add(struct series *s, double v);
double series_median(const struct series *s);
double series_min(const struct series *s);
double series_max(const struct series *s);
/* Percentile p (0..100) of n sorted values, nearest rank. */
double percentile_sorted(const double *sorted, size_t n, double p);
void sort_doubles(double *v, size_t n);

/* ---- pkt.c: the frames every part of the bench sends ---- */
#define MAC_SENDER                                 \
	{                                          \
		0x02, 0xb0, 0x00, 0x00, 0x00, 0x01 \
	}
#define MAC_RESPONDER                              \
	{                                          \
		0x02, 0xb0, 0x00, 0x00, 0x00, 0x02 \
	}
/* RFC 2544 appendix C / RFC 5735: 198.18.0.0/15 is for benchmarks. */
#define IP4_SENDER "198.18.0.1"
#define IP4_RESPONDER "198.18.0.2"
#define IP6_SENDER "2001:2::1" /* RFC 5180: 2001:2::/48 for benchmarks */
#define IP6_RESPONDER "2001:2::2"
#define ECHO_ID 0xbe0c
/* The user-space stack's side: a TUN device behind the responder. */
#define IP4_TUN_LOCAL "198.18.1.1"
#define IP4_TUN_PEER "198.18.1.2"
#define IP4_TUN_NET "198.18.1.0/24"

/* Build an Ethernet frame into buf with lib/'s pkt_build(); return its length, or -1. */
int frame_echo4(__u8 *buf, size_t size, unsigned int ip_len, __u16 seq);
int frame_echo6(__u8 *buf, size_t size, unsigned int payload_len, __u16 seq);
int frame_udp4(__u8 *buf, size_t size, unsigned int ip_len);
int frame_tcp4(__u8 *buf, size_t size, unsigned int ip_len);
int frame_stamp4(__u8 *buf, size_t size);

/* ---- net.c: namespaces, links, responders, CPU layouts ---- */
enum layout {
	LAYOUT_ONE_CPU, /* generator, responder and sink all on CPU 0 */
	LAYOUT_TWO_CPU, /* generator on CPU 0; responder (+ sink) on CPU 1 */
	LAYOUT_N,
};
/* In bench_env.layouts beside 1 << enum layout: the multi-queue layout (mq.c). */
#define LAYOUT_MQ_BIT (1u << LAYOUT_N)
extern const char *const layout_name[LAYOUT_N];
extern const char *const layout_desc[LAYOUT_N];

enum responder_kind {
	RESP_KERNEL,
	RESP_XDPONG,
	RESP_BARE,
	RESP_CHECK, /* the checking reflector (reflect.bpf.c) */
	RESP_TUN_STACK,
};

#define LAT_LOADER_DEFAULT -1 /* no --latency-sample: as shipped */
#define LAT_BENCH_N -2        /* the bench's --latency-sample N */

struct responder {
	const char *name; /* JSON key and table label */
	enum responder_kind kind;
	bool native;        /* XDP driver mode; else generic (skb) */
	int latency_sample; /* xdpong --latency-sample; LAT_* below */
	bool rate;          /* answered rate: peak and zero-loss */
	bool rtt;           /* measure the RTT */
	bool chart;         /* appears in the chart */
	bool limits;        /* xdpong with --rate-limit and --global-limit LIMITS_FAR_ABOVE */
	bool stamp;         /* xdpong with --stamp, sent STAMP test packets, not echoes */
};

/* Both limits far above any rate the bench offers: the limits' cost
 * when they drop nothing (1e9 replies/s, bursts of 1e9). */
#define LIMITS_FAR_ABOVE "1000000000:1000000000"

/* A veth pair between two namespaces of this run (net.c). */
struct veth_pair {
	char ns_s[32], ns_r[32]; /* sender and responder namespaces */
	char if_s[16], if_r[16];
	int queues;         /* rx and tx queues of each end; 0: veth's default (1) */
	int nsfd_s, nsfd_r; /* -1: not open */
	int ifindex_s, ifindex_r;
	bool up; /* the namespaces exist: delete them */
};

struct bench_env {
	char id[8];              /* up to 6 digits */
	struct veth_pair net;    /* the echo part's pair */
	struct veth_pair mq;     /* the multi-queue layout's pair (mq.c) */
	struct veth_pair *rpair; /* the pair responder_*() and xdpong_*() act on: net or mq */
	char if_tun[16];
	pid_t tun_pid;
	int nsfd_orig;
	const char *xdpong_bin;
	const char *repo_root;
	int sample_n;       /* the sampled observability row's N */
	int loader_default; /* parsed from `xdpong attach --help`, or -1 */
	int ncpus;
	int trials;
	unsigned int layouts;  /* bit per enum layout, and LAYOUT_MQ_BIT */
	int trial_ms, step_ms; /* rate trial; zero-loss bisection step */
	int probes, probe_gap_us;
	bool tun_stack;
	const char *tun_stack_bin;
	/* BPF objects, loaded once */
	struct gen_bpf *gen;
	struct sink_bpf *sink;
	struct reflect_bpf *reflect;
	/* The generator's request (gen_frame_set): an echo or a STAMP packet. */
	__u8 req[BENCH_FRAME_LEN];
	int req_len;
	/* state */
	enum layout layout;
	const struct responder *attached;
	__u32 attached_flags;
};

int run_cmd(int timeout_s, int nsfd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, in this namespace, with stdout into out (NUL-terminated). */
int run_out(int timeout_s, char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * Namespaces xbench-TAGs-ID and xbench-TAGr-ID joined by veth xTAGsID and
 * xTAGrID (MACs given, or the kernel's if NULL), ip_s/24 and ip_r/24, IPv6
 * off (no DAD, router or MLD frames during trials), lo and the link up.
 * Ends in the sender's namespace. On failure the caller still deletes p.
 */
int pair_create(struct bench_env *env, struct veth_pair *p, const char *tag, const char *mac_s,
		const char *mac_r, const char *ip_s, const char *ip_r);
void pair_delete(struct bench_env *env, struct veth_pair *p);
/* Static neighbours both ways and GRO on the responder's end (net.c). */
int pair_neigh_napi(const struct veth_pair *p, const char *mac_s, const char *mac_r);
int pair_sink_attach(struct bench_env *env, const struct veth_pair *p);
int net_setup(struct bench_env *env);
void net_teardown(struct bench_env *env);
int responder_attach(struct bench_env *env, const struct responder *r);
int responder_detach(struct bench_env *env);
/* Put the responder's NAPI where the layout says; after every attach. */
int layout_apply(struct bench_env *env, enum layout layout);
/* xdpong's own counters, through `xdpong stats --json`. */
struct xdpong_read {
	unsigned long long replied, tx_failed, rate_limited, global_limited;
};
int xdpong_counters(struct bench_env *env, struct xdpong_read *out);
/* Frames each rx queue of the responder's veth took (ethtool -S
 * rx_queue_K_xdp_packets: every frame veth's NAPI ran, XDP or not). */
int veth_rxq_packets(struct bench_env *env, unsigned long long *pkts, int queues);
int xdpong_latency_default(struct bench_env *env);

/* ---- rate.c: answered rate with the live-frames generator ---- */
#define GEN_BATCH 64   /* frames per loop iteration: NAPI's budget */
#define DRAIN_US 20000 /* replies still in flight when the trial ends */
#define BENCH_CPUS_MAX 256
/* The generator's frames sent and the sink's replies, per possible CPU. */
struct cpu_counts {
	int n; /* possible CPUs */
	unsigned long long sent[BENCH_CPUS_MAX], replies[BENCH_CPUS_MAX];
	unsigned long long sent_all, replies_all, other_all;
};
int counts_reset(struct bench_env *env);
int counts_read(struct bench_env *env, struct cpu_counts *c);
struct rate_trial {
	double seconds;
	double offered_pps;  /* generator's XDP_TX frames per second */
	double answered_pps; /* replies counted by the sink per second */
	unsigned long long sent, replies;
};
int rate_init(struct bench_env *env);
/* The generator's request: the 98-byte echo, or the STAMP test packet. 0 or -1. */
int gen_frame_set(struct bench_env *env, bool stamp);
/* p50 and p99 of the T3 - T2 (ns) that the STAMP replies sampled since
 * res_start reported. 0, or -1 if none was sampled. */
void res_start(struct bench_env *env);
int res_read(struct bench_env *env, double *p50, double *p99);
int rate_trial(struct bench_env *env, double target_pps, int ms, struct rate_trial *out);
/* Highest offered rate answered without loss (RFC 2544 26.1), by bisection
 * below max's offered rate. *out is the confirming trial, *peak the trial
 * (max included) that answered most. */
int zero_loss_search(struct bench_env *env, const struct rate_trial *max, int step_ms,
		     int confirm_ms, struct rate_trial *out, struct rate_trial *peak);
int sink_set_pass(struct bench_env *env, bool pass);

/* ---- rtt.c: ICMP echo round trip from kernel timestamps ---- */
struct rtt_trial {
	double p50_us, p90_us, p99_us, max_us;
	int answered, lost;
	bool kernel_stamps; /* false: user-space clock around send/recv */
};
int rtt_trial(struct bench_env *env, int nsfd, const char *dst, int probes, int gap_us,
	      struct rtt_trial *out);
/* Probe dst until it answers once, for up to timeout_s. 0 or -1. */
int rtt_wait_answer(struct bench_env *env, const char *dst, double timeout_s);

/* ---- mq.c: one queue against N, one generator per CPU ---- */
enum mq_resp {
	MQ_KERNEL,
	MQ_CHECK,         /* the checking reflector, native */
	MQ_BARE,          /* bare reflector, native */
	MQ_XDPONG,        /* xdpong native as shipped */
	MQ_XDPONG_LIMITS, /* the same with both limits on, LIMITS_FAR_ABOVE */
	MQ_XDPONG_STAMP,  /* xdpong native as shipped with --stamp, STAMP requests */
	MQ_RESP_N,
};
#define MQ_QUEUES_MAX 16
struct mq_results {
	bool measured;
	int queues; /* N: online CPUs, at most MQ_QUEUES_MAX */
	/* Answered pps; [r][0]: one queue (generator on CPU 0), [r][1]: N
	 * queues. v[k] of every series is round k: same-run ratios pair them. */
	struct series pps[MQ_RESP_N][2];
	struct series cpu_pps[MQ_RESP_N][MQ_QUEUES_MAX]; /* N queues: replies on CPU k */
	/* Worst share, over every trial and queue, of a generator's frames
	 * not on its own rx queue, or of its replies not on its own CPU. */
	double misplaced;
	/* xdpong rows, summed over every trial: its counters and the sink's. */
	struct xdpong_read xdp[MQ_RESP_N];
	unsigned long long sink_replies[MQ_RESP_N];
};
extern const struct responder mq_responders[MQ_RESP_N];
extern const char *const mq_desc;
/* The pair is env->mq, deleted by net_teardown. 0 or -1 (said). */
int mq_measure(struct bench_env *env, int rounds, struct mq_results *out);

/* ---- cost.c: ns per packet from BPF_PROG_TEST_RUN ---- */
enum cost_row {
	COST_PASS_FLOOR,
	COST_PASS_FLOOR_WHOLE,
	COST_BARE_ECHO4,
	COST_CHECK_ECHO4,
	COST_XDPONG_ECHO4,
	COST_XDPONG_ECHO6,
	COST_XDPONG_ECHO4_1500,
	COST_XDPONG_PASS_UDP,
	COST_XDPONG_PASS_UDP_OBJ,
	COST_XDPONG_PASS_TCP,
	COST_XDPONG_ECHO4_LAT_OFF,
	COST_XDPONG_ECHO4_LAT_SAMPLED,
	COST_XDPONG_ECHO4_LAT_EVERY,
	COST_XDPONG_ECHO4_LIMITS,
	/* The destination found in the tries, among 1 or COST_PREFIXES_N
	 * prefixes a family, as an operator's prefix is (not in the exact
	 * own-address lists). */
	COST_XDPONG_ECHO4_TRIE_1,
	COST_XDPONG_ECHO4_TRIE_N,
	COST_XDPONG_ECHO6_TRIE_1,
	COST_XDPONG_ECHO6_TRIE_N,
	COST_XDPONG_STAMP4, /* the 86-byte STAMP test packet, --stamp (two clock reads) */
	COST_PATCH_INLINE,
	COST_PATCH_CSUM_DIFF,
	COST_SUM_EXTRA,  /* own time, no floor: one checksum pass, BENCH_SUM_EXTRA bytes */
	COST_CLOCK_READ, /* own time, no floor: one read of STAMP's clock (TAI) */
	/* The breakdown: the 98-byte IPv4 echo through builds that leave one
	 * part out (BENCH_PART_* in leave_out.h). */
	COST_NO_CHECKS,
	COST_NO_CSUM,
	COST_NO_ADDRS,
	COST_NO_COUNTERS,
	COST_NO_LATENCY,
	COST_NO_GEN,
	COST_NO_TRACE,
	COST_NO_LIMITS,
	COST_NO_ALL,
	COST_N,
};
#define COST_BREAKDOWN_FIRST COST_NO_CHECKS
#define COST_PREFIXES_N 100000
struct cost_results {
	struct series ns[COST_N];    /* per-packet cost, ns */
	struct series ratio[COST_N]; /* cost / XDP_PASS floor, per trial */
	int repeat;
};
extern const char *const cost_name[COST_N];
extern const char *const cost_desc[COST_N];
/* brief: only the floor, the bare reflector and xdpong's 98-byte echo. */
int cost_measure(struct bench_env *env, int trials, bool brief, struct cost_results *out);

/* ---- tput.c: TCP throughput through a veth pair (iperf3) ---- */
enum tput_config {
	TPUT_NONE,          /* no XDP */
	TPUT_PASS_SKB,      /* XDP_PASS on the receiver, skb mode */
	TPUT_XDPONG_SKB,    /* xdpong on the receiver, skb mode */
	TPUT_PASS_NATIVE,   /* XDP_PASS native on both ends */
	TPUT_XDPONG_NATIVE, /* xdpong native on the receiver, XDP_PASS on the sender */
	TPUT_N,
};
struct tput_results {
	bool measured;
	struct series gbps[TPUT_N]; /* v[k]: round k, every configuration */
};
extern const char *const tput_name[TPUT_N];
extern const char *const tput_desc[TPUT_N];
/* 0 (no iperf3: nothing measured, said) or -1 (said). */
int tput_measure(struct bench_env *env, int trials, struct tput_results *res);

#endif /* XDPONG_BENCH_DRIVER_H */
