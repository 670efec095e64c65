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
 * every program pays once. Programs that pass the packet leave it as it was
 * and are timed directly. The harness checks, each run, that the output is
 * the input again (every repeat saw a request) and that xdpong counted
 * exactly `repeat` replies.
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
#include "pass.skel.h"
#include "reflect.skel.h"
#include "xdpong_cost.skel.h"
#include "xdpong.skel.h"

#define TARGET_S 0.03 /* program time of one timed run */
#define CALIBRATE_RUNS 10000
#define PKT_MAX 1600

const char *const cost_name[COST_N] = {
	[COST_PASS_FLOOR] = "xdp_pass_floor",
	[COST_BARE_ECHO4] = "bare_echo4_98",
	[COST_XDPONG_ECHO4] = "xdpong_echo4_98",
	[COST_XDPONG_ECHO6] = "xdpong_echo6_118",
	[COST_XDPONG_ECHO4_1500] = "xdpong_echo4_1500",
	[COST_XDPONG_PASS_UDP] = "xdpong_pass_udp_98",
	[COST_XDPONG_PASS_UDP_OBJ] = "xdpong_obj_pass_udp_98",
	[COST_XDPONG_ECHO4_LAT_OFF] = "xdpong_echo4_98_lat_off",
	[COST_XDPONG_ECHO4_LAT_SAMPLED] = "xdpong_echo4_98_lat_1_in_n",
	[COST_XDPONG_ECHO4_LAT_EVERY] = "xdpong_echo4_98_lat_every",
};

const char *const cost_desc[COST_N] = {
	[COST_PASS_FLOOR] = "XDP_PASS (floor), 98-byte echo",
	[COST_BARE_ECHO4] = "bare reflector, 98-byte IPv4 echo",
	[COST_XDPONG_ECHO4] = "xdpong, 98-byte IPv4 echo (as shipped)",
	[COST_XDPONG_ECHO6] = "xdpong, 118-byte IPv6 echo",
	[COST_XDPONG_ECHO4_1500] = "xdpong, 1500-byte IPv4 echo",
	[COST_XDPONG_PASS_UDP] = "xdpong, 98-byte UDP (passed)",
	[COST_XDPONG_PASS_UDP_OBJ] = "  same, build/xdpong.bpf.o",
	[COST_XDPONG_ECHO4_LAT_OFF] = "xdpong, 98-byte echo, latency off",
	[COST_XDPONG_ECHO4_LAT_SAMPLED] = "xdpong, 98-byte echo, latency 1 in N",
	[COST_XDPONG_ECHO4_LAT_EVERY] = "xdpong, 98-byte echo, latency every one",
};

enum pkt_kind { PKT_ECHO4, PKT_ECHO6, PKT_ECHO4_1500, PKT_UDP4, PKT_N };

struct pkt {
	__u8 data[PKT_MAX];
	int len;
};

/*
 * One timed run of prog_fd on pkt, verdict and output checked. The time is
 * the kernel's own average (whole ns): the syscall around it costs a fixed
 * ~16 ms here (the XDP dispatcher is switched, with an RCU grace period),
 * which a user-space clock would spread over the repeats.
 */
static int time_run(int prog_fd, const struct pkt *p, int repeat, __u32 want_verdict,
		    double *ns)
{
	__u8 out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = p->data,
		.data_size_in = p->len,
		.data_out = out,
		.data_size_out = sizeof(out),
		.repeat = repeat,
	);
	int err;

	err = bpf_prog_test_run_opts(prog_fd, &opts);
	if (err)
		return fail("test run: %s", strerror(-err));
	*ns = opts.duration;
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

static int timed_ns(int prog_fd, const struct pkt *p, __u32 verdict, double *ns)
{
	int repeat;

	if (calibrate(prog_fd, p, verdict, &repeat) || time_run(prog_fd, p, repeat, verdict, ns))
		return -1;
	dbg("  prog %d, %d bytes: %.0f ns x %d", prog_fd, p->len, *ns, repeat);
	return 0;
}

static __u64 replied_total(struct xdpong_cost_bpf *x)
{
	int ncpu = libbpf_num_possible_cpus();
	struct xdpong_counters vals[ncpu];
	__u64 sum = 0;
	__u32 key = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(x->maps.xdpong_stats), &key, vals))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i].reply_echo4 + vals[i].reply_echo6;
	return sum;
}

static int add_addresses(int fd4, int fd6)
{
	struct xdpong_addr4_key k4 = { .prefixlen = 32 };
	struct xdpong_addr6_key k6 = { .prefixlen = 128 };
	struct xdpong_addr_info info = { .origin = XDPONG_ADDR_OPERATOR };

	inet_pton(AF_INET, IP4_RESPONDER, k4.addr);
	inet_pton(AF_INET6, IP6_RESPONDER, k6.addr);
	if (bpf_map_update_elem(fd4, &k4, &info, BPF_ANY) ||
	    bpf_map_update_elem(fd6, &k6, &info, BPF_ANY))
		return fail("cannot fill xdpong's address maps: %s", strerror(errno));
	return 0;
}

/* latency_sample < 0: the object's own default. */
static struct xdpong_cost_bpf *load_harness(int latency_sample)
{
	struct xdpong_cost_bpf *x = xdpong_cost_bpf__open();

	if (!x) {
		fail("cannot open the xdpong cost harness");
		return NULL;
	}
	if (latency_sample >= 0)
		x->rodata->cfg_latency_sample = latency_sample;
	if (xdpong_cost_bpf__load(x) ||
	    add_addresses(bpf_map__fd(x->maps.xdpong_addr4), bpf_map__fd(x->maps.xdpong_addr6))) {
		fail("cannot load the xdpong cost harness");
		xdpong_cost_bpf__destroy(x);
		return NULL;
	}
	return x;
}

/* Time harness h on p, check that xdpong counted every repeat as a reply. */
static int timed_harness(struct xdpong_cost_bpf *h, const struct pkt *p, double *ns)
{
	__u64 before = replied_total(h), runs;
	int repeat, fd = bpf_program__fd(h->progs.bench_xdpong_cost);

	if (calibrate(fd, p, XDP_TX, &repeat) || time_run(fd, p, repeat, XDP_TX, ns))
		return -1;
	runs = replied_total(h) - before;
	if (runs != (__u64)CALIBRATE_RUNS + repeat)
		return fail("xdpong counted %llu replies for %d runs",
			    (unsigned long long)runs, CALIBRATE_RUNS + repeat);
	dbg("  xdpong harness, %d bytes: %.0f ns x %d", p->len, *ns, repeat);
	return 0;
}

int cost_measure(struct bench_env *env, int trials, struct cost_results *res)
{
	struct xdpong_cost_bpf *h_def = NULL, *h_every = NULL, *h_off = NULL, *h_n = NULL;
	struct xdpong_bpf *obj = NULL;
	struct pass_bpf *pass = NULL;
	struct pkt pk[PKT_N];
	int err = -1;

	memset(res, 0, sizeof(*res));
	pk[PKT_ECHO4].len = frame_echo4(pk[PKT_ECHO4].data, PKT_MAX, 84, 1);
	pk[PKT_ECHO6].len = frame_echo6(pk[PKT_ECHO6].data, PKT_MAX, 56, 1);
	pk[PKT_ECHO4_1500].len = frame_echo4(pk[PKT_ECHO4_1500].data, PKT_MAX, 1500, 1);
	pk[PKT_UDP4].len = frame_udp4(pk[PKT_UDP4].data, PKT_MAX, 84);

	pass = pass_bpf__open_and_load();
	h_def = load_harness(env->loader_default);
	h_every = load_harness(1);
	h_off = load_harness(0);
	h_n = load_harness(env->sample_n);
	obj = xdpong_bpf__open();
	if (obj) {
		if (env->loader_default >= 0)
			obj->rodata->cfg_latency_sample = env->loader_default;
		if (xdpong_bpf__load(obj) ||
		    add_addresses(bpf_map__fd(obj->maps.xdpong_addr4),
				  bpf_map__fd(obj->maps.xdpong_addr6))) {
			xdpong_bpf__destroy(obj);
			obj = NULL;
		}
	}
	if (!pass || !h_def || !h_every || !h_off || !h_n || !obj) {
		fail("cannot load the cost programs");
		goto out;
	}
	/* Pinned to one CPU (main), so per-CPU state stays on one CPU. */
	for (int t = 0; t < trials && !bench_stop; t++) {
		int fd_pass = bpf_program__fd(pass->progs.xdp_pass);
		int fd_turn = bpf_program__fd(env->reflect->progs.bench_turn);
		int fd_bare = bpf_program__fd(env->reflect->progs.bench_reflect_cost);
		int fd_obj = bpf_program__fd(obj->progs.xdpong);
		double floor, turn4, turn6, turn1500, v, c[COST_N];

		if (timed_ns(fd_pass, &pk[PKT_ECHO4], XDP_PASS, &floor) ||
		    timed_ns(fd_turn, &pk[PKT_ECHO4], XDP_TX, &turn4) ||
		    timed_ns(fd_turn, &pk[PKT_ECHO6], XDP_TX, &turn6) ||
		    timed_ns(fd_turn, &pk[PKT_ECHO4_1500], XDP_TX, &turn1500))
			goto out;
		c[COST_PASS_FLOOR] = floor;
		if (timed_ns(fd_bare, &pk[PKT_ECHO4], XDP_TX, &v))
			goto out;
		c[COST_BARE_ECHO4] = floor + v - turn4;
		if (timed_harness(h_def, &pk[PKT_ECHO4], &v))
			goto out;
		c[COST_XDPONG_ECHO4] = floor + v - turn4;
		if (timed_harness(h_def, &pk[PKT_ECHO6], &v))
			goto out;
		c[COST_XDPONG_ECHO6] = floor + v - turn6;
		if (timed_harness(h_def, &pk[PKT_ECHO4_1500], &v))
			goto out;
		c[COST_XDPONG_ECHO4_1500] = floor + v - turn1500;
		if (timed_ns(bpf_program__fd(h_def->progs.bench_xdpong_cost), &pk[PKT_UDP4],
			     XDP_PASS, &c[COST_XDPONG_PASS_UDP]) ||
		    timed_ns(fd_obj, &pk[PKT_UDP4], XDP_PASS, &c[COST_XDPONG_PASS_UDP_OBJ]))
			goto out;
		if (timed_harness(h_every, &pk[PKT_ECHO4], &v))
			goto out;
		c[COST_XDPONG_ECHO4_LAT_EVERY] = floor + v - turn4;
		if (timed_harness(h_off, &pk[PKT_ECHO4], &v))
			goto out;
		c[COST_XDPONG_ECHO4_LAT_OFF] = floor + v - turn4;
		if (timed_harness(h_n, &pk[PKT_ECHO4], &v))
			goto out;
		c[COST_XDPONG_ECHO4_LAT_SAMPLED] = floor + v - turn4;
		for (int i = 0; i < COST_N; i++) {
			series_add(&res->ns[i], c[i]);
			series_add(&res->ratio[i], c[i] / floor);
		}
	}
	err = bench_stop ? -1 : 0;
out:
	xdpong_bpf__destroy(obj);
	xdpong_cost_bpf__destroy(h_n);
	xdpong_cost_bpf__destroy(h_off);
	xdpong_cost_bpf__destroy(h_every);
	xdpong_cost_bpf__destroy(h_def);
	pass_bpf__destroy(pass);
	return err;
}
