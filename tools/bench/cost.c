// SPDX-License-Identifier: GPL-2.0
/*
 * Cost per packet with BPF_PROG_TEST_RUN and a large repeat count.
 *
 * A repeated test run does not restore the packet: after the first run a
 * replying program sees its own reply. So each replying program P runs in
 * a harness that turns the reply back into the request (turnaround.h), the
 * turn-around alone is timed on the same packet, and
 *   cost(P) = floor + (time(P + turn) - time(turn))
 * where floor is XDP_PASS's time: the test-run loop's own overhead, which
 * every program pays once. Programs that pass the packet leave it as it
 * was and are compared with a body that only returns.
 *
 * The kernel reports whole nanoseconds. The differences are therefore
 * taken between K-fold programs (kfold.h: the body BENCH_COST_K times per
 * iteration) and divided by K; only the floor is a whole-ns reading, with
 * half a nanosecond, its expected truncation, added back. The harness
 * checks, each run, that the output is the input again (every repeat saw
 * a request) and that xdpong counted exactly the replies it should.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "driver.h"
#include "util.h"
#include "hex.h"
#include "packet.h"
#include "xdpong.h"
#include "../../loader/up/up.h"
#include "pass.skel.h"
#include "reflect.skel.h"
#include "xdpong_cost.skel.h"
#include "xdpong_cost_no_checks.skel.h"
#include "xdpong_cost_no_csum.skel.h"
#include "xdpong_cost_no_addrs.skel.h"
#include "xdpong_cost_no_counters.skel.h"
#include "xdpong_cost_no_latency.skel.h"
#include "xdpong_cost_no_gen.skel.h"
#include "xdpong_cost_no_trace.skel.h"
#include "xdpong_cost_no_limits.skel.h"
#include "xdpong_cost_no_all.skel.h"
#include "xdpong.skel.h"

#define TARGET_S 0.03 /* program time of one timed run */
#define CALIBRATE_RUNS 10000
#define PKT_MAX 1600

const char *const cost_name[COST_N] = {
	[COST_PASS_FLOOR] = "xdp_pass_floor",
	[COST_PASS_FLOOR_WHOLE] = "xdp_pass_floor_whole_ns",
	[COST_BARE_ECHO4] = "bare_echo4_98",
	[COST_CHECK_ECHO4] = "check_echo4_98",
	[COST_XDPONG_ECHO4] = "xdpong_echo4_98",
	[COST_XDPONG_ECHO6] = "xdpong_echo6_118",
	[COST_XDPONG_ECHO4_1500] = "xdpong_echo4_1500",
	[COST_XDPONG_PASS_UDP] = "xdpong_pass_udp_98",
	[COST_XDPONG_PASS_UDP_OBJ] = "xdpong_obj_pass_udp_98",
	[COST_XDPONG_PASS_TCP] = "xdpong_pass_tcp_98",
	[COST_XDPONG_ECHO4_LAT_OFF] = "xdpong_echo4_98_lat_off",
	[COST_XDPONG_ECHO4_LAT_SAMPLED] = "xdpong_echo4_98_lat_1_in_n",
	[COST_XDPONG_ECHO4_LAT_EVERY] = "xdpong_echo4_98_lat_every",
	[COST_XDPONG_ECHO4_LIMITS] = "xdpong_echo4_98_limits",
	[COST_XDPONG_ECHO4_TRIE_1] = "xdpong_echo4_98_trie_1",
	[COST_XDPONG_ECHO4_TRIE_N] = "xdpong_echo4_98_trie_100000",
	[COST_XDPONG_ECHO6_TRIE_1] = "xdpong_echo6_118_trie_1",
	[COST_XDPONG_ECHO6_TRIE_N] = "xdpong_echo6_118_trie_100000",
	[COST_XDPONG_STAMP4] = "xdpong_stamp4_86",
	[COST_PATCH_INLINE] = "reply_patch_inline",
	[COST_PATCH_CSUM_DIFF] = "reply_patch_bpf_csum_diff",
	[COST_SUM_EXTRA] = "csum_pass_1416",
	[COST_CLOCK_READ] = "stamp_clock_read",
	[COST_NO_CHECKS] = "xdpong_echo4_98_no_checks",
	[COST_NO_CSUM] = "xdpong_echo4_98_no_csum",
	[COST_NO_ADDRS] = "xdpong_echo4_98_no_addrs",
	[COST_NO_COUNTERS] = "xdpong_echo4_98_no_counters",
	[COST_NO_LATENCY] = "xdpong_echo4_98_no_latency",
	[COST_NO_GEN] = "xdpong_echo4_98_no_gen",
	[COST_NO_TRACE] = "xdpong_echo4_98_no_trace",
	[COST_NO_LIMITS] = "xdpong_echo4_98_no_limits",
	[COST_NO_ALL] = "xdpong_echo4_98_no_all",
};

const char *const cost_desc[COST_N] = {
	[COST_PASS_FLOOR] = "XDP_PASS (floor), 98-byte echo",
	[COST_PASS_FLOOR_WHOLE] = "  same, whole ns (kernel's reading)",
	[COST_BARE_ECHO4] = "bare reflector, 98-byte IPv4 echo",
	[COST_CHECK_ECHO4] = "checking reflector, 98-byte IPv4 echo",
	[COST_XDPONG_ECHO4] = "xdpong, 98-byte IPv4 echo (as shipped)",
	[COST_XDPONG_ECHO6] = "xdpong, 118-byte IPv6 echo",
	[COST_XDPONG_ECHO4_1500] = "xdpong, 1500-byte IPv4 echo",
	[COST_XDPONG_PASS_UDP] = "xdpong, 98-byte UDP (passed)",
	[COST_XDPONG_PASS_UDP_OBJ] = "  same, build/xdpong.bpf.o, whole ns",
	[COST_XDPONG_PASS_TCP] = "xdpong, 98-byte TCP (passed)",
	[COST_XDPONG_ECHO4_LAT_OFF] = "xdpong, 98-byte echo, latency off",
	[COST_XDPONG_ECHO4_LAT_SAMPLED] = "xdpong, 98-byte echo, latency 1 in N",
	[COST_XDPONG_ECHO4_LAT_EVERY] = "xdpong, 98-byte echo, latency every one",
	[COST_XDPONG_ECHO4_LIMITS] = "xdpong, 98-byte echo, both limits on",
	[COST_XDPONG_ECHO4_TRIE_1] = "xdpong, 98-byte echo, trie of 1 prefix",
	[COST_XDPONG_ECHO4_TRIE_N] = "  same, trie of 100,000 prefixes",
	[COST_XDPONG_ECHO6_TRIE_1] = "xdpong, 118-byte echo, trie of 1 prefix",
	[COST_XDPONG_ECHO6_TRIE_N] = "  same, trie of 100,000 prefixes",
	[COST_XDPONG_STAMP4] = "xdpong, 86-byte STAMP test packet",
	[COST_PATCH_INLINE] = "reply checksum patch, inline",
	[COST_PATCH_CSUM_DIFF] = "reply checksum patch, 2 bpf_csum_diff",
	[COST_SUM_EXTRA] = "checksum pass, the 1416 bytes 1500 adds",
	[COST_CLOCK_READ] = "STAMP's clock, one bpf_ktime_get_tai_ns",
	[COST_NO_CHECKS] = "xdpong without header/source checks",
	[COST_NO_CSUM] = "xdpong without checksum verification",
	[COST_NO_ADDRS] = "xdpong without own-address lookups",
	[COST_NO_COUNTERS] = "xdpong without counters",
	[COST_NO_LATENCY] = "xdpong without latency sampling",
	[COST_NO_GEN] = "xdpong without the generation check",
	[COST_NO_TRACE] = "xdpong without the trace flag",
	[COST_NO_LIMITS] = "xdpong without the limits check (off)",
	[COST_NO_ALL] = "xdpong without all of the above",
};

enum pkt_kind { PKT_ECHO4, PKT_ECHO6, PKT_ECHO4_1500, PKT_UDP4, PKT_TCP4, PKT_STAMP4, PKT_N };

struct pkt {
	__u8 data[PKT_MAX];
	int len;
};

/*
 * One timed run of prog_fd on pkt, verdict and output checked. The time is
 * the kernel's own average: the syscall around it costs a fixed time of
 * milliseconds (the XDP dispatcher is switched, with an RCU grace period),
 * which a user-space clock would spread over the repeats. The kernel
 * truncates the average to whole nanoseconds: half a nanosecond, the
 * expected loss, is added back (a floor of a few ns made the ratios jump
 * by a large step per ns otherwise).
 */
static int time_run(int prog_fd, const struct pkt *p, int repeat, __u32 want_verdict, double *ns)
{
	__u8 out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->data, .data_size_in = p->len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = repeat, );
	int err;

	err = bpf_prog_test_run_opts(prog_fd, &opts);
	if (err)
		return fail("test run: %s", strerror(-err));
	*ns = opts.duration + 0.5;
	if (opts.retval != want_verdict)
		return fail("test run: verdict %u, expected %u", opts.retval, want_verdict);
	/* The repeated packet must still be the request: every run answered it. */
	if (opts.data_size_out != (__u32)p->len || memcmp(out, p->data, p->len)) {
		fail("test run: output differs from the input after %d runs", repeat);
		pkt_hexdump(stderr, "  ", out, opts.data_size_out);
		return -1;
	}
	return 0;
}

/* Repeat count for about TARGET_S of program time, from a short run. */
static int calibrate(int prog_fd, const struct pkt *p, __u32 verdict, int *repeat)
{
	double ns, r;

	if (time_run(prog_fd, p, CALIBRATE_RUNS, verdict, &ns))
		return -1;
	r = TARGET_S * 1e9 / (ns > 1 ? ns : 1);
	*repeat = r < 100000 ? 100000 : r > 5000000 ? 5000000 : (int)r;
	*repeat &= ~1; /* even: the turn-around alone ends on the request */
	return 0;
}

/*
 * Timed runs per figure, of which the least is kept: another process on
 * the machine (or on the other hyperthread of the core) can only add time
 * to a run, never take it away, and a mean would carry whatever ran
 * meanwhile into the figure (tools/bench/README.md, stable figures).
 */
#define SUB_RUNS 3

/* The least of SUB_RUNS timed runs of n repeats. */
static int least_ns(int prog_fd, const struct pkt *p, __u32 verdict, int repeat, double *ns)
{
	double one;

	*ns = 0;
	for (int i = 0; i < SUB_RUNS; i++) {
		if (time_run(prog_fd, p, repeat, verdict, &one))
			return -1;
		if (!i || one < *ns)
			*ns = one;
	}
	return 0;
}

static int timed_ns(int prog_fd, const struct pkt *p, __u32 verdict, double *ns)
{
	int repeat;

	if (calibrate(prog_fd, p, verdict, &repeat) || least_ns(prog_fd, p, verdict, repeat, ns))
		return -1;
	dbg("  prog %d, %d bytes: %.0f ns x %d", prog_fd, p->len, *ns, repeat);
	return 0;
}

/* One build of the cost harness, whichever skeleton it came from. */
struct harness {
	void *skel;
	void (*destroy)(void *skel);
	int prog_fd;  /* bench_xdpong_cost_k */
	int sum_fd;   /* bench_sum_extra_k */
	int base_fd;  /* stamp_harness's: the turn-around alone, else 0 */
	int stats_fd; /* xdpong_stats */
	bool counts;  /* its counters are on: the replies are checked */
};

static __u64 replied_total(const struct harness *h)
{
	int ncpu = libbpf_num_possible_cpus();
	struct xdpong_counters vals[ncpu];
	__u64 sum = 0;
	__u32 key = 0;

	if (bpf_map_lookup_elem(h->stats_fd, &key, vals))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i].reply_echo4 + vals[i].reply_echo6 + vals[i].reply_stamp4;
	return sum;
}

/*
 * The responder's addresses as `xdpong attach` loads an interface's own:
 * in the tries with origin "iface", and in the exact lists of .bss
 * (own_addrs[0], made live by *cur = 1).
 */
static int add_addresses(int fd4, int fd6, struct xdpong_own_addrs *own, volatile __u32 *cur)
{
	struct xdpong_addr4_key k4 = { .prefixlen = 32 };
	struct xdpong_addr6_key k6 = { .prefixlen = 128 };
	struct xdpong_addr_info info = { .origin = XDPONG_ADDR_IFACE };

	inet_pton(AF_INET, IP4_RESPONDER, k4.addr);
	inet_pton(AF_INET6, IP6_RESPONDER, k6.addr);
	if (bpf_map_update_elem(fd4, &k4, &info, BPF_ANY) ||
	    bpf_map_update_elem(fd6, &k6, &info, BPF_ANY))
		return fail("cannot fill xdpong's address maps: %s", strerror(errno));
	memset(own, 0, sizeof(*own));
	memcpy(own->v4[own->n4++], k4.addr, 4);
	memcpy(own->v6[own->n6++], k6.addr, 16);
	*cur = 1;
	return 0;
}

/*
 * Both limits, per source and global, far above what one CPU's test runs
 * offer (1e9/s, bursts of 1e9): every request is answered, and the cost
 * is what the limits add to a reply that passes them.
 */
#define LIMITS_PPS 1000000000ULL

/*
 * The responder's MAC in xdpong's if_mac word, written once loaded, as the
 * loader writes it for an Ethernet interface (cfg_check_mac set): the
 * harnesses time the MAC check that every answered frame pays.
 */
static void own_mac(__u64 *if_mac)
{
	static const __u8 mac[6] = MAC_RESPONDER;
	__u64 word = 0;

	memcpy(&word, mac, sizeof(mac));
	*if_mac = word;
}

/*
 * NAME_harness(h, latency_sample, limits): open, configure and load the
 * skeleton NAME (a build of xdpong_cost.bpf.c: the same maps, variables
 * and programs in each) into h. latency_sample < 0: the object's own
 * default. 0, or -1 (said) with nothing left loaded.
 */
#define HARNESS_LOADER(name)                                                                       \
	static void name##_destroy(void *skel)                                                     \
	{                                                                                          \
		name##__destroy(skel);                                                             \
	}                                                                                          \
                                                                                                   \
	static int name##_harness(struct harness *h, int latency_sample, bool limits)              \
	{                                                                                          \
		struct name *x = name##__open();                                                   \
		int ncpu = libbpf_num_possible_cpus();                                             \
                                                                                                   \
		if (!x)                                                                            \
			return fail("cannot open the cost harness %s", #name);                     \
		if (latency_sample >= 0)                                                           \
			x->rodata->cfg_latency_sample = latency_sample;                            \
		if (limits) {                                                                      \
			limits_set_one(LIMITS_PPS, LIMITS_PPS, ncpu, &x->rodata->cfg_rate_cost_ns, \
				       &x->rodata->cfg_rate_tolerance_ns,                          \
				       &x->rodata->cfg_rate_batch, &x->rodata->cfg_rate_held_ns);  \
			limits_set_one(LIMITS_PPS, LIMITS_PPS, ncpu,                               \
				       &x->rodata->cfg_global_cost_ns,                             \
				       &x->rodata->cfg_global_tolerance_ns,                        \
				       &x->rodata->cfg_global_batch,                               \
				       &x->rodata->cfg_global_held_ns);                            \
		}                                                                                  \
		x->rodata->cfg_check_mac = 1; /* as the loader sets it on Ethernet */              \
		if (name##__load(x) ||                                                             \
		    add_addresses(bpf_map__fd(x->maps.xdpong_addr4),                               \
				  bpf_map__fd(x->maps.xdpong_addr6), &x->bss->own_addrs[0],        \
				  &x->bss->own_addrs_cur)) {                                       \
			name##__destroy(x);                                                        \
			return fail("cannot load the cost harness %s", #name);                     \
		}                                                                                  \
		own_mac(&x->bss->if_mac);                                                          \
		*h = (struct harness){ .skel = x,                                                  \
				       .destroy = name##_destroy,                                  \
				       .prog_fd = bpf_program__fd(x->progs.bench_xdpong_cost_k),   \
				       .sum_fd = bpf_program__fd(x->progs.bench_sum_extra_k),      \
				       .stats_fd = bpf_map__fd(x->maps.xdpong_stats),              \
				       .counts = true };                                           \
		return 0;                                                                          \
	}

HARNESS_LOADER(xdpong_cost_bpf)

/*
 * The other n - 1 prefixes a family of the trie rows, full-length, close
 * around the responder's addresses (198.18.0.0/15, 2001:2::/96), so that
 * its lookup walks down through them: the sender's and the responder's
 * own (offsets 1 and 2) left out. Spread by an odd multiplier, a
 * bijection modulo 2^17: distinct.
 */
_Static_assert(COST_PREFIXES_N <= (1 << 17) - 3, "the trie rows' prefixes fit in a /15");

static int prefix_fill(int fd4, int fd6, __u32 n)
{
	struct xdpong_addr_info info = { .origin = XDPONG_ADDR_OPERATOR };
	struct xdpong_addr4_key k4 = { .prefixlen = 32 };
	struct xdpong_addr6_key k6 = { .prefixlen = 128 };

	inet_pton(AF_INET6, IP6_RESPONDER, k6.addr);
	for (__u32 i = 1, added = 1; added < n; i++) {
		__u32 off = (i * 0x9E3779B1u) & 0x1ffff, a = htonl(0xc6120000 | off);
		__u32 low = htonl(off);

		if (off == 1 || off == 2)
			continue;
		memcpy(k4.addr, &a, 4);
		memcpy(k6.addr + 12, &low, 4);
		if (bpf_map_update_elem(fd4, &k4, &info, BPF_NOEXIST) ||
		    bpf_map_update_elem(fd6, &k6, &info, BPF_NOEXIST))
			return fail("cannot add prefix %u of %u: %s", added, n, strerror(errno));
		added++;
	}
	return 0;
}

/*
 * The harness for the trie rows: maps of n prefixes a family, full (the
 * responder's addresses and n - 1 others), and another address in the
 * exact lists, so that the responder's is found in the trie, one lookup,
 * as an operator's prefix is. 0, or -1 (said) with nothing left loaded.
 */
static int trie_harness(struct harness *h, int latency_sample, __u32 n)
{
	struct xdpong_cost_bpf *x = xdpong_cost_bpf__open();
	struct xdpong_addr4_key k4 = { .prefixlen = 32 };
	struct xdpong_addr6_key k6 = { .prefixlen = 128 };
	struct xdpong_addr_info info = { .origin = XDPONG_ADDR_OPERATOR };
	struct xdpong_own_addrs *own;
	int fd4, fd6;

	if (!x || bpf_map__set_max_entries(x->maps.xdpong_addr4, n) ||
	    bpf_map__set_max_entries(x->maps.xdpong_addr6, n))
		goto fail;
	if (latency_sample >= 0)
		x->rodata->cfg_latency_sample = latency_sample;
	x->rodata->cfg_check_mac = 1;
	if (xdpong_cost_bpf__load(x))
		goto fail;
	fd4 = bpf_map__fd(x->maps.xdpong_addr4);
	fd6 = bpf_map__fd(x->maps.xdpong_addr6);
	inet_pton(AF_INET, IP4_RESPONDER, k4.addr);
	inet_pton(AF_INET6, IP6_RESPONDER, k6.addr);
	if (bpf_map_update_elem(fd4, &k4, &info, BPF_ANY) ||
	    bpf_map_update_elem(fd6, &k6, &info, BPF_ANY) || prefix_fill(fd4, fd6, n))
		goto fail;
	own = &x->bss->own_addrs[0];
	memset(own, 0, sizeof(*own));
	inet_pton(AF_INET, "198.18.0.254", own->v4[own->n4++]);
	inet_pton(AF_INET6, "2001:2::fe", own->v6[own->n6++]);
	x->bss->own_addrs_cur = 1;
	own_mac(&x->bss->if_mac);
	*h = (struct harness){ .skel = x,
			       .destroy = xdpong_cost_bpf_destroy,
			       .prog_fd = bpf_program__fd(x->progs.bench_xdpong_cost_k),
			       .sum_fd = bpf_program__fd(x->progs.bench_sum_extra_k),
			       .stats_fd = bpf_map__fd(x->maps.xdpong_stats),
			       .counts = true };
	return 0;
fail:
	xdpong_cost_bpf__destroy(x);
	return fail("cannot load the cost harness with %u prefixes", n);
}

/*
 * The harness for the STAMP row: --stamp's port and the TAI clock, as
 * `xdpong attach --stamp` sets them on 6.1 and later, and the request
 * saved for the turn-around, which copies it back after each reply
 * (xdpong_cost.bpf.c). prog_fd is the STAMP K-fold program, base_fd the
 * copy alone. 0, or -1 (said) with nothing left loaded.
 */
static int stamp_harness(struct harness *h, int latency_sample)
{
	struct xdpong_cost_bpf *x = xdpong_cost_bpf__open();

	if (!x)
		return fail("cannot open the STAMP cost harness");
	if (latency_sample >= 0)
		x->rodata->cfg_latency_sample = latency_sample;
	x->rodata->cfg_check_mac = 1;
	x->rodata->cfg_stamp_port = BENCH_STAMP_PORT;
	x->rodata->cfg_stamp_clock = XDPONG_STAMP_CLOCK_TAI;
	if (xdpong_cost_bpf__load(x) ||
	    add_addresses(bpf_map__fd(x->maps.xdpong_addr4), bpf_map__fd(x->maps.xdpong_addr6),
			  &x->bss->own_addrs[0], &x->bss->own_addrs_cur) ||
	    frame_stamp4((__u8 *)x->bss->bench_stamp_req, sizeof(x->bss->bench_stamp_req)) !=
		    BENCH_STAMP_FRAME_LEN) {
		xdpong_cost_bpf__destroy(x);
		return fail("cannot load the STAMP cost harness");
	}
	own_mac(&x->bss->if_mac);
	*h = (struct harness){ .skel = x,
			       .destroy = xdpong_cost_bpf_destroy,
			       .prog_fd = bpf_program__fd(x->progs.bench_xdpong_stamp_k),
			       .base_fd = bpf_program__fd(x->progs.bench_stamp_restore_k),
			       .sum_fd = bpf_program__fd(x->progs.bench_sum_extra_k),
			       .stats_fd = bpf_map__fd(x->maps.xdpong_stats),
			       .counts = true };
	return 0;
}
HARNESS_LOADER(xdpong_cost_no_checks_bpf)
HARNESS_LOADER(xdpong_cost_no_csum_bpf)
HARNESS_LOADER(xdpong_cost_no_addrs_bpf)
HARNESS_LOADER(xdpong_cost_no_counters_bpf)
HARNESS_LOADER(xdpong_cost_no_latency_bpf)
HARNESS_LOADER(xdpong_cost_no_gen_bpf)
HARNESS_LOADER(xdpong_cost_no_trace_bpf)
HARNESS_LOADER(xdpong_cost_no_limits_bpf)
HARNESS_LOADER(xdpong_cost_no_all_bpf)

/* The breakdown's builds, each leaving out one part (BENCH_PART_* in
 * leave_out.h), in the rows' order. */
static const struct {
	enum cost_row row;
	int (*load)(struct harness *h, int latency_sample, bool limits);
	bool counts; /* false: the build counts nothing, so no replies are checked */
} leave_outs[] = {
	{ COST_NO_CHECKS, xdpong_cost_no_checks_bpf_harness, true },
	{ COST_NO_CSUM, xdpong_cost_no_csum_bpf_harness, true },
	{ COST_NO_ADDRS, xdpong_cost_no_addrs_bpf_harness, true },
	{ COST_NO_COUNTERS, xdpong_cost_no_counters_bpf_harness, false },
	{ COST_NO_LATENCY, xdpong_cost_no_latency_bpf_harness, true },
	{ COST_NO_GEN, xdpong_cost_no_gen_bpf_harness, true },
	{ COST_NO_TRACE, xdpong_cost_no_trace_bpf_harness, true },
	{ COST_NO_LIMITS, xdpong_cost_no_limits_bpf_harness, true },
	{ COST_NO_ALL, xdpong_cost_no_all_bpf_harness, false },
};
#define NO_N (sizeof(leave_outs) / sizeof(leave_outs[0]))

static void harness_destroy(struct harness *h)
{
	if (h->skel)
		h->destroy(h->skel);
	h->skel = NULL;
}

static int kfold_ns(int fd, __u32 verdict, int fd_base, __u32 base_verdict, const struct pkt *p,
		    double *ns)
{
	double t, base;

	if (timed_ns(fd, p, verdict, &t) || timed_ns(fd_base, p, base_verdict, &base))
		return -1;
	*ns = (t - base) / BENCH_COST_K;
	return 0;
}

#define VERNIER_STEPS 24

/*
 * The floor, XDP_PASS's time per iteration, below the kernel's whole ns:
 * bench_vernier with n = 0 .. VERNIER_STEPS - 1 add-and-shift steps costs
 * floor + v0 + n * step; its whole-ns readings (plus half a ns) fitted by
 * least squares give floor + v0, and v0, the vernier's own cost at n = 0
 * over a body that only returns, comes from the K-fold programs.
 */
static int vernier_floor(struct reflect_bpf *rf, const struct pkt *p, double *floor)
{
	int fd = bpf_program__fd(rf->progs.bench_vernier);
	double sx = 0, sy = 0, sxx = 0, sxy = 0, y, slope, v0;
	const int n = VERNIER_STEPS;

	for (int i = 0; i < n; i++) {
		rf->bss->vernier_n = i;
		if (timed_ns(fd, p, XDP_PASS, &y))
			return -1;
		sx += i;
		sy += y;
		sxx += (double)i * i;
		sxy += i * y;
	}
	rf->bss->vernier_n = 0;
	slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	if (kfold_ns(bpf_program__fd(rf->progs.bench_vernier_k), XDP_PASS,
		     bpf_program__fd(rf->progs.bench_null_k), XDP_PASS, p, &v0))
		return -1;
	*floor = (sy - slope * sx) / n - v0;
	dbg("  vernier: floor %.2f ns (intercept %.2f, step %.3f ns, v0 %.2f)", *floor,
	    (sy - slope * sx) / n, slope, v0);
	return 0;
}

/*
 * xdpong's own time on p through harness h, K-fold, and the check that it
 * counted every run as a reply (a harness that counts, a replied p) or none.
 */
static int timed_harness(const struct harness *h, int fd_base, __u32 base_verdict,
			 const struct pkt *p, __u32 verdict, double *ns)
{
	__u64 before = replied_total(h), runs, want;
	int repeat;
	double t, base;

	if (calibrate(h->prog_fd, p, verdict, &repeat) ||
	    least_ns(h->prog_fd, p, verdict, repeat, &t))
		return -1;
	runs = replied_total(h) - before;
	want = ((__u64)CALIBRATE_RUNS + SUB_RUNS * (__u64)repeat) * BENCH_COST_K;
	if (verdict != XDP_TX || !h->counts)
		want = 0;
	if (runs != want)
		return fail("xdpong counted %llu replies for %llu", (unsigned long long)runs,
			    (unsigned long long)want);
	if (timed_ns(fd_base, p, base_verdict, &base))
		return -1;
	*ns = (t - base) / BENCH_COST_K;
	dbg("  xdpong harness, %d bytes: %.2f ns (x %d x %d)", p->len, *ns, repeat, BENCH_COST_K);
	return 0;
}

/* The programs the cost rows time besides the bench's own reflect object. */
struct cost_progs {
	struct pass_bpf *pass;
	/* The harness with the loader's default latency sampling, every
	 * packet, none, and 1 in --latency-sample */
	struct harness h_def, h_every, h_off, h_n;
	struct harness h_lim;      /* the default, with both limits on */
	struct harness h_trie[2];  /* tries of 1 and COST_PREFIXES_N prefixes */
	struct harness h_no[NO_N]; /* the breakdown's: leave_outs[] */
	struct harness h_stamp;    /* the default, with --stamp (stamp_harness) */
	struct xdpong_bpf *obj;    /* the product's own object, as built */
};

static void pkts_build(struct pkt pk[PKT_N])
{
	pk[PKT_ECHO4].len = frame_echo4(pk[PKT_ECHO4].data, PKT_MAX, 84, 1);
	pk[PKT_ECHO6].len = frame_echo6(pk[PKT_ECHO6].data, PKT_MAX, 56, 1);
	pk[PKT_ECHO4_1500].len = frame_echo4(pk[PKT_ECHO4_1500].data, PKT_MAX, 1500, 1);
	pk[PKT_UDP4].len = frame_udp4(pk[PKT_UDP4].data, PKT_MAX, 84);
	pk[PKT_TCP4].len = frame_tcp4(pk[PKT_TCP4].data, PKT_MAX, 84);
	pk[PKT_STAMP4].len = frame_stamp4(pk[PKT_STAMP4].data, PKT_MAX);
}

/* The product's object with the responder's addresses, or NULL. */
static struct xdpong_bpf *load_object(int latency_sample)
{
	struct xdpong_bpf *obj = xdpong_bpf__open();

	if (!obj)
		return NULL;
	if (latency_sample >= 0)
		obj->rodata->cfg_latency_sample = latency_sample;
	obj->rodata->cfg_check_mac = 1;
	if (xdpong_bpf__load(obj) ||
	    add_addresses(bpf_map__fd(obj->maps.xdpong_addr4), bpf_map__fd(obj->maps.xdpong_addr6),
			  &obj->bss->own_addrs[0], &obj->bss->own_addrs_cur)) {
		xdpong_bpf__destroy(obj);
		return NULL;
	}
	own_mac(&obj->bss->if_mac);
	return obj;
}

/* 0, or -1 with what did load left for progs_destroy. brief: only what
 * cost_brief_trial times. */
static int progs_load(const struct bench_env *env, struct cost_progs *p, bool brief)
{
	int ld = env->loader_default;

	p->pass = pass_bpf__open_and_load();
	if (!p->pass || xdpong_cost_bpf_harness(&p->h_def, ld, false))
		return fail("cannot load the cost programs");
	if (brief)
		return 0;
	if (xdpong_cost_bpf_harness(&p->h_every, 1, false) ||
	    xdpong_cost_bpf_harness(&p->h_off, 0, false) ||
	    xdpong_cost_bpf_harness(&p->h_n, env->sample_n, false) ||
	    xdpong_cost_bpf_harness(&p->h_lim, ld, true) || trie_harness(&p->h_trie[0], ld, 1) ||
	    trie_harness(&p->h_trie[1], ld, COST_PREFIXES_N) || stamp_harness(&p->h_stamp, ld))
		return fail("cannot load the cost programs");
	for (size_t i = 0; i < NO_N; i++) {
		if (leave_outs[i].load(&p->h_no[i], ld, false))
			return -1;
		p->h_no[i].counts = leave_outs[i].counts;
	}
	p->obj = load_object(ld);
	if (!p->obj)
		return fail("cannot load build/xdpong.bpf.o's program");
	return 0;
}

static void progs_destroy(struct cost_progs *p)
{
	xdpong_bpf__destroy(p->obj);
	for (size_t i = 0; i < NO_N; i++)
		harness_destroy(&p->h_no[i]);
	harness_destroy(&p->h_stamp);
	harness_destroy(&p->h_trie[1]);
	harness_destroy(&p->h_trie[0]);
	harness_destroy(&p->h_lim);
	harness_destroy(&p->h_n);
	harness_destroy(&p->h_off);
	harness_destroy(&p->h_every);
	harness_destroy(&p->h_def);
	pass_bpf__destroy(p->pass);
}

/*
 * What every trial times first, back to back: the floor, the bare and the
 * checking reflector and xdpong's 98-byte echo, the figures of the echo
 * ratios.
 */
static int cost_brief_trial(struct reflect_bpf *rf, const struct cost_progs *p,
			    const struct pkt pk[PKT_N], double c[COST_N])
{
	int fd_turn = bpf_program__fd(rf->progs.bench_turn_k);
	double v;

	if (vernier_floor(rf, &pk[PKT_ECHO4], &c[COST_PASS_FLOOR]))
		return -1;
	if (kfold_ns(bpf_program__fd(rf->progs.bench_reflect_cost_k), XDP_TX, fd_turn, XDP_TX,
		     &pk[PKT_ECHO4], &v))
		return -1;
	c[COST_BARE_ECHO4] = c[COST_PASS_FLOOR] + v;
	if (kfold_ns(bpf_program__fd(rf->progs.bench_check_cost_k), XDP_TX, fd_turn, XDP_TX,
		     &pk[PKT_ECHO4], &v))
		return -1;
	c[COST_CHECK_ECHO4] = c[COST_PASS_FLOOR] + v;
	if (timed_harness(&p->h_def, fd_turn, XDP_TX, &pk[PKT_ECHO4], XDP_TX, &v))
		return -1;
	c[COST_XDPONG_ECHO4] = c[COST_PASS_FLOOR] + v;
	return 0;
}

/* The rows that time the harness builds: xdpong's own time on a packet. */
static int cost_harness_rows(struct reflect_bpf *rf, const struct cost_progs *p,
			     const struct pkt pk[PKT_N], double c[COST_N])
{
	int fd_null = bpf_program__fd(rf->progs.bench_null_k);
	int fd_turn = bpf_program__fd(rf->progs.bench_turn_k);
	struct {
		enum cost_row row;
		const struct harness *h;
		enum pkt_kind pkt;
	} xrows[12 + NO_N] = {
		{ COST_XDPONG_ECHO6, &p->h_def, PKT_ECHO6 },
		{ COST_XDPONG_ECHO4_1500, &p->h_def, PKT_ECHO4_1500 },
		{ COST_XDPONG_PASS_UDP, &p->h_def, PKT_UDP4 },
		{ COST_XDPONG_PASS_TCP, &p->h_def, PKT_TCP4 },
		{ COST_XDPONG_ECHO4_LAT_EVERY, &p->h_every, PKT_ECHO4 },
		{ COST_XDPONG_ECHO4_LAT_OFF, &p->h_off, PKT_ECHO4 },
		{ COST_XDPONG_ECHO4_LAT_SAMPLED, &p->h_n, PKT_ECHO4 },
		{ COST_XDPONG_ECHO4_LIMITS, &p->h_lim, PKT_ECHO4 },
		{ COST_XDPONG_ECHO4_TRIE_1, &p->h_trie[0], PKT_ECHO4 },
		{ COST_XDPONG_ECHO4_TRIE_N, &p->h_trie[1], PKT_ECHO4 },
		{ COST_XDPONG_ECHO6_TRIE_1, &p->h_trie[0], PKT_ECHO6 },
		{ COST_XDPONG_ECHO6_TRIE_N, &p->h_trie[1], PKT_ECHO6 },
	};
	size_t n = 12;
	double v;

	for (size_t i = 0; i < NO_N; i++)
		xrows[n++] = (typeof(xrows[0])){ leave_outs[i].row, &p->h_no[i], PKT_ECHO4 };
	for (size_t i = 0; i < n; i++) {
		bool pass_pkt = xrows[i].pkt == PKT_UDP4 || xrows[i].pkt == PKT_TCP4;

		/* Echoes: minus the turn-around; passed packets: minus the loop. */
		if (timed_harness(xrows[i].h, pass_pkt ? fd_null : fd_turn,
				  pass_pkt ? XDP_PASS : XDP_TX, &pk[xrows[i].pkt],
				  pass_pkt ? XDP_PASS : XDP_TX, &v))
			return -1;
		c[xrows[i].row] = c[COST_PASS_FLOOR] + v;
	}
	return 0;
}

/* One trial: every row's figure, in ns, into c. 0 or -1. */
static int cost_trial(struct reflect_bpf *rf, const struct cost_progs *p,
		      const struct pkt pk[PKT_N], double c[COST_N])
{
	int fd_null = bpf_program__fd(rf->progs.bench_null_k);
	int fd_obj = bpf_program__fd(p->obj->progs.xdpong);
	int fd_pass = bpf_program__fd(p->pass->progs.xdp_pass);
	double floor, v;

	if (cost_brief_trial(rf, p, pk, c) || cost_harness_rows(rf, p, pk, c))
		return -1;
	floor = c[COST_PASS_FLOOR];
	/* The plain reading, a check on the vernier: within 0.5 ns of it. */
	if (timed_ns(fd_pass, &pk[PKT_ECHO4], XDP_PASS, &c[COST_PASS_FLOOR_WHOLE]))
		return -1;
	/* The product's own object, whole ns: a check on the harness. */
	if (timed_ns(fd_obj, &pk[PKT_UDP4], XDP_PASS, &c[COST_XDPONG_PASS_UDP_OBJ]))
		return -1;
	/* The reply's two checksum patches (the TTL and type words). */
	if (kfold_ns(bpf_program__fd(rf->progs.bench_patch_inline_k), XDP_TX, fd_null, XDP_PASS,
		     &pk[PKT_ECHO4], &v))
		return -1;
	c[COST_PATCH_INLINE] = floor + v;
	if (kfold_ns(bpf_program__fd(rf->progs.bench_patch_csum_diff_k), XDP_TX, fd_null, XDP_PASS,
		     &pk[PKT_ECHO4], &v))
		return -1;
	c[COST_PATCH_CSUM_DIFF] = floor + v;
	/* One checksum pass over what a 1500-byte echo adds: own time only,
	 * no floor (it is a part of a packet's cost, not a packet's). */
	if (kfold_ns(p->h_def.sum_fd, XDP_PASS, fd_null, XDP_PASS, &pk[PKT_ECHO4_1500],
		     &c[COST_SUM_EXTRA]))
		return -1;
	/* A STAMP reply, minus its turn-around: the copy of the request. */
	if (timed_harness(&p->h_stamp, p->h_stamp.base_fd, XDP_TX, &pk[PKT_STAMP4], XDP_TX, &v))
		return -1;
	c[COST_XDPONG_STAMP4] = floor + v;
	/* One read of the clock of STAMP's T2 and T3 (two a reply): own time. */
	return kfold_ns(bpf_program__fd(rf->progs.bench_clock_k), XDP_PASS, fd_null, XDP_PASS,
			&pk[PKT_ECHO4], &c[COST_CLOCK_READ]);
}

int cost_measure(struct bench_env *env, int trials, bool brief, struct cost_results *res)
{
	struct cost_progs progs = { 0 };
	struct pkt pk[PKT_N];
	int err = -1;

	memset(res, 0, sizeof(*res));
	pkts_build(pk);
	if (progs_load(env, &progs, brief))
		goto out;
	/* A trial that is not kept: every program run once, caches and the
	 * CPU's state warm, before the first figure. */
	{
		double c[COST_N];

		if (cost_brief_trial(env->reflect, &progs, pk, c))
			goto out;
	}
	/* Pinned to one CPU (main), so per-CPU state stays on one CPU. */
	for (int t = 0; t < trials && !bench_stop; t++) {
		double c[COST_N] = { 0 };

		if (brief ? cost_brief_trial(env->reflect, &progs, pk, c) :
			    cost_trial(env->reflect, &progs, pk, c))
			goto out;
		for (int i = 0; i < COST_N; i++) {
			if (!c[i])
				continue; /* not timed in a brief trial */
			series_add(&res->ns[i], c[i]);
			series_add(&res->ratio[i], c[i] / c[COST_PASS_FLOOR]);
		}
	}
	err = bench_stop ? -1 : 0;
out:
	progs_destroy(&progs);
	return err;
}
