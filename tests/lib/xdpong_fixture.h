/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unit tests, the fuzzer and tuntap_echo share about the XDP
 * program: the addresses every instance answers for, loading a configured
 * program with its reference config to match, filling its address maps
 * and reading its per-CPU maps. Needs build/xdpong.skel.h and libbpf;
 * reference.h judges the frames.
 */
#ifndef XDPONG_TESTS_FIXTURE_H
#define XDPONG_TESTS_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

#include "xdpong.h"
#include "packet.h"
#include "reference.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Largest frame bpf_prog_test_run keeps linear: PAGE_SIZE - headroom - shinfo. */
#define XF_MAX_LINEAR_FRAME 3520

struct xdpong_bpf;

/* The program's MAC in every Ethernet instance, as an initializer and an array. */
#define XF_OUR_MAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }
extern const uint8_t xf_our_mac[6];

/* Possible CPUs, for the per-CPU maps; set by xf_init(). */
extern int xf_ncpus;

/*
 * Count CPUs and parse the address table: 192.0.2.1/32 and 2001:db8::1/128
 * (interface), 198.51.100.0/24 and 2001:db8:1::/64 (operator),
 * 198.51.100.255/32 (a subnet broadcast). Returns 0, or -1 with a message.
 */
int xf_init(void);

/* XDP_ABORTED, XDP_DROP, ... for an XDP action. */
const char *xf_action_name(unsigned int action);

/* A libbpf print callback: warnings to stderr, the rest dropped. */
int xf_libbpf_warnings(enum libbpf_print_level level, const char *fmt, va_list ap);

/* One loaded program and what the reference responder expects of it. */
struct xf_instance {
	struct xdpong_bpf *skel;
	int prog_fd, stats_fd, lat_fd;
	struct pkt_ref_config ref;
};

/*
 * Open the program with framing, MAC check (against xf_our_mac) and
 * latency sampling (1 in latency_sample, 0 off) in rodata, and set in->ref
 * to match. The caller may set more rodata, then loads in->skel and calls
 * xf_fill(). Returns 0 or -errno.
 */
int xf_open(struct xf_instance *in, enum pkt_framing framing, bool check_mac,
	    __u32 latency_sample);

/* After the load: put the address table in the LPM maps, take the fds. 0 or < 0. */
int xf_fill(struct xf_instance *in);

/*
 * Also mirror the table's interface addresses and subnet broadcasts into
 * the program's exact lists (.bss own_addrs), as the loader does. Without
 * this the program finds them in the tries alone: both paths are tested.
 */
int xf_fill_own(struct xf_instance *in);

/* Add one prefix to the loaded program's xdpong_addr4 or xdpong_addr6. 0 or < 0. */
int xf_map_add(struct xdpong_bpf *skel, const struct prefix *p, uint32_t origin);

/* xdpong_stats summed over ncpus CPUs, one value per reason. 0 or -errno. */
int xf_read_counters(int stats_fd, int ncpus, __u64 out[XDPONG_R_MAX]);

/* xdpong_latency summed over ncpus CPUs. 0 or -errno. */
int xf_read_latency(int lat_fd, int ncpus, struct xdpong_latency *out);

/* One CPU's xdpong_stats, one value per reason. 0 or -errno. */
int xf_read_counters_cpu(int stats_fd, int ncpus, int cpu, __u64 out[XDPONG_R_MAX]);

/*
 * Pin the calling thread to cpu: an XDP test run runs on the CPU that
 * asks for it, and the program keeps state per CPU (the rate limits).
 * 0 or -errno.
 */
int xf_pin_cpu(int cpu);

/* The first n CPUs this process may run on, in cpus[]; how many (<= n). */
int xf_usable_cpus(int *cpus, int n);

/* One thread of xf_run_on_cpus(): what it sends, where, and what it did. */
struct xf_cpu_run {
	int cpu;              /* pinned there */
	const uint8_t *frame; /* sent over and over, one test run each */
	size_t len;
	/* CLOCK_MONOTONIC (bpf_ktime_get_ns's clock): before its first run,
	 * after it (the first request came in between), after its last. */
	__u64 start_ns, first_end_ns, end_ns;
	__u64 runs;
	/* Gaps in what it offered, where the scheduler left it out: for
	 * each two runs in a row, the time from the first's start to the
	 * second's end (at least the time between the program's two runs)
	 * beyond gap_free_ns, summed in gap_ns. */
	__u64 gap_free_ns, gap_ns;
	int err; /* 0, or -errno of the setup or of a run */
};

/*
 * Run each runs[i].frame through prog_fd from its own thread pinned to
 * runs[i].cpu, all at once (a barrier), each as fast as it can, one test
 * run after another (repeat 1: the program turns a request into its
 * reply in place), for seconds. The threads ask for nice -20 where they
 * may, so that a busy machine leaves fewer gaps in the offered traffic.
 * 0, or the first thread's error.
 */
int xf_run_on_cpus(int prog_fd, struct xf_cpu_run *runs, int n, double seconds);

#endif /* XDPONG_TESTS_FIXTURE_H */
