// SPDX-License-Identifier: GPL-2.0
/*
 * The rate limits across CPUs, within the bounds xdpong(8) states for
 * them (--rate-limit, --global-limit). The real program, configured as
 * the loader configures it (loader/up/ratelimit.c), is run from two threads
 * pinned to two CPUs at once with bpf_prog_test_run_opts, each offering
 * far more than the limit for SECONDS; the replies each CPU sent are
 * read from the per-CPU counters. T is measured: from a thread's first
 * run to its last (the union of the threads' for a total); for a lower
 * bound, from the end of its first run, when its first request has
 * surely come (the scheduler may run the thread late).
 *
 *   global, even:       both CPUs, one source each   total in [R*T - B/4 - 1, R*(T + tick) + B]
 *   global, one CPU:    CPU A only                   the same bounds
 *   per source, one CPU each: source 1 on A, 2 on B  each source in the same bounds
 *   per source, on both CPUs: source 1 on A and B    the source's total in them
 *   both limits far above the offered rate, one source on A and B: nothing dropped
 *
 * tick is the clock's lag, at most one timer tick: 10 ms (HZ 100) here.
 * The lower bounds hold while the offered rate stays above the limit. A
 * thread the scheduler leaves out offers nothing meanwhile: a gap longer
 * than the burst lasts (burst / R) loses the time beyond that, so each
 * lower bound is taken over T less those gaps (measured between each two
 * runs in a row; for a total, the smaller of the two threads' sums, as
 * the limit only idles while both are out).
 *
 * Run as root: build/tests/test_limits [-v]. Exit 77 (skip) with fewer
 * than two CPUs or without atomic compare-and-exchange (the loader
 * refuses the limits there).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpong.h"
#include "xdpong.skel.h"
#include "../../loader/up/up.h"
#include "packet.h"
#include "xdpong_fixture.h"

#define SECONDS 0.6
#define TICK_NS 10000000ULL /* the clock's lag: one tick, HZ >= 100 */
#define GLOBAL_PPS 2000
#define GLOBAL_BURST 400
#define SOURCE_PPS 1000
#define SOURCE_BURST 200

static int failures, passes;
static int cpus[2];

static void check(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s: ", ok ? "ok  " : "FAIL", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		passes++;
	else
		failures++;
}

static size_t echo_from(const uint8_t src[4], uint8_t *frame, size_t cap)
{
	struct pkt_spec s;

	pkt_spec_init(&s, 4, PKT_FRAMING_ETH);
	memcpy(s.ip4_src, src, 4);
	return pkt_build(&s, frame, cap);
}

static int load(struct xf_instance *in, unsigned long long rate_pps,
		unsigned long long rate_burst, unsigned long long global_pps,
		unsigned long long global_burst)
{
	int err = xf_open(in, PKT_FRAMING_ETH, true, 0);

	if (err)
		return err;
	limits_configure(in->skel->rodata, rate_pps, rate_burst, global_pps, global_burst,
			 xf_ncpus);
	err = xdpong_bpf__load(in->skel);
	if (!err)
		err = xf_fill(in);
	if (!err)
		err = xf_fill_own(in);
	if (err) {
		fprintf(stderr, "cannot load the program: %s\n", strerror(-err));
		xdpong_bpf__destroy(in->skel);
		in->skel = NULL;
	}
	return err;
}

/* What one CPU did in a run: replies, drops by either limit, the window. */
struct cpu_result {
	__u64 replied, limited, window_ns, lo_window_ns, gap_ns;
};

/* Replies a limit of pps must have sent over window_ns less gap_ns, less slack. */
static __u64 lower(__u64 pps, __u64 window_ns, __u64 gap_ns, __u64 slack)
{
	__u64 n = gap_ns < window_ns ? pps * (window_ns - gap_ns) / 1000000000ULL : 0;

	return n > slack ? n - slack : 0;
}

/* Run the frames on their CPUs; the counters each CPU moved. */
static int run(struct xf_instance *in, struct xf_cpu_run *runs, int n,
	       struct cpu_result *res, __u64 *union_ns, __u64 *lo_union_ns)
{
	__u64 before[2][XDPONG_R_MAX], after[2][XDPONG_R_MAX], first = ~0ULL, first_end = ~0ULL;
	__u64 last = 0;
	int err;

	for (int i = 0; i < n; i++)
		if ((err = xf_read_counters_cpu(in->stats_fd, xf_ncpus, runs[i].cpu, before[i])))
			return err;
	err = xf_run_on_cpus(in->prog_fd, runs, n, SECONDS);
	if (err)
		return err;
	for (int i = 0; i < n; i++) {
		if ((err = xf_read_counters_cpu(in->stats_fd, xf_ncpus, runs[i].cpu, after[i])))
			return err;
		res[i].replied = after[i][REASON(reply_echo4)] - before[i][REASON(reply_echo4)];
		res[i].limited = after[i][REASON(drop_rate_limited)] -
				 before[i][REASON(drop_rate_limited)] +
				 after[i][REASON(drop_global_limited)] -
				 before[i][REASON(drop_global_limited)];
		res[i].window_ns = runs[i].end_ns - runs[i].start_ns;
		res[i].lo_window_ns = runs[i].end_ns - runs[i].first_end_ns;
		res[i].gap_ns = runs[i].gap_ns;
		if (runs[i].start_ns < first)
			first = runs[i].start_ns;
		if (runs[i].first_end_ns < first_end)
			first_end = runs[i].first_end_ns;
		if (runs[i].end_ns > last)
			last = runs[i].end_ns;
		if (res[i].replied + res[i].limited != runs[i].runs)
			check(false, "every request replied or limited", "cpu %d: %llu runs, %llu",
			      runs[i].cpu, (unsigned long long)runs[i].runs,
			      (unsigned long long)(res[i].replied + res[i].limited));
	}
	*union_ns = last - first;
	*lo_union_ns = last - first_end;
	return 0;
}

/* Most replies a limit of pps and burst allows in window_ns, with the clock's lag. */
static __u64 upper(__u64 pps, __u64 burst, __u64 window_ns)
{
	return pps * (window_ns + TICK_NS) / 1000000000ULL + burst;
}

static void global_case(const char *name, int n)
{
	static const uint8_t src[2][4] = { { 203, 0, 113, 20 }, { 203, 0, 113, 21 } };
	uint8_t frame[2][256];
	struct xf_cpu_run runs[2];
	struct cpu_result res[2];
	struct xf_instance in = { 0 };
	__u64 window, lo_window, total = 0, limited = 0, gap = ~0ULL, lo, hi;
	unsigned int k = limits_batch(GLOBAL_BURST, xf_ncpus);
	/* The shared burst: what the CPUs may hold is taken off it. */
	__u64 shared = GLOBAL_BURST - (__u64)xf_ncpus * (k - 1);
	int err;

	if (load(&in, 0, 0, GLOBAL_PPS, GLOBAL_BURST)) {
		check(false, name, "the program did not load");
		return;
	}
	for (int i = 0; i < n; i++)
		runs[i] = (struct xf_cpu_run){ .cpu = cpus[i], .frame = frame[i],
					       .len = echo_from(src[i], frame[i], sizeof(frame[i])),
					       .gap_free_ns = shared * 1000000000ULL / GLOBAL_PPS };
	err = run(&in, runs, n, res, &window, &lo_window);
	if (err) {
		check(false, name, "test run: %s", strerror(-err));
		goto out;
	}
	for (int i = 0; i < n; i++) {
		total += res[i].replied;
		limited += res[i].limited;
		if (res[i].gap_ns < gap)
			gap = res[i].gap_ns;
		printf("     cpu %d: %llu replied, %llu limited of %llu in %.3f s (gaps %.3f s)\n",
		       runs[i].cpu, (unsigned long long)res[i].replied,
		       (unsigned long long)res[i].limited, (unsigned long long)runs[i].runs,
		       res[i].window_ns / 1e9, res[i].gap_ns / 1e9);
	}
	hi = upper(GLOBAL_PPS, GLOBAL_BURST, window);
	lo = lower(GLOBAL_PPS, lo_window, gap, GLOBAL_BURST / 4 + 1);
	check(limited > 0, name, "offered more than the limit: %llu requests over it",
	      (unsigned long long)limited);
	check(total >= lo && total <= hi, name,
	      "%llu replies in %.3f s (gaps %.3f s), %d/s burst %d (batch %u): expected %llu..%llu",
	      (unsigned long long)total, window / 1e9, gap / 1e9, GLOBAL_PPS, GLOBAL_BURST, k,
	      (unsigned long long)lo, (unsigned long long)hi);
out:
	xdpong_bpf__destroy(in.skel);
}

static void source_case(const char *name, bool same_source)
{
	static const uint8_t src[2][4] = { { 203, 0, 113, 30 }, { 203, 0, 113, 31 } };
	uint8_t frame[2][256];
	struct xf_cpu_run runs[2];
	struct cpu_result res[2];
	struct xf_instance in = { 0 };
	__u64 window, lo_window;
	unsigned int k = limits_batch(SOURCE_BURST, xf_ncpus);
	__u64 shared = SOURCE_BURST - (__u64)xf_ncpus * (k - 1);
	int err;

	if (load(&in, SOURCE_PPS, SOURCE_BURST, 0, 0)) {
		check(false, name, "the program did not load");
		return;
	}
	for (int i = 0; i < 2; i++)
		runs[i] = (struct xf_cpu_run){ .cpu = cpus[i], .frame = frame[i],
					       .len = echo_from(src[same_source ? 0 : i], frame[i],
								sizeof(frame[i])),
					       .gap_free_ns = shared * 1000000000ULL / SOURCE_PPS };
	err = run(&in, runs, 2, res, &window, &lo_window);
	if (err) {
		check(false, name, "test run: %s", strerror(-err));
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		printf("     cpu %d: %llu replied, %llu limited of %llu in %.3f s (gaps %.3f s)\n",
		       runs[i].cpu, (unsigned long long)res[i].replied,
		       (unsigned long long)res[i].limited, (unsigned long long)runs[i].runs,
		       res[i].window_ns / 1e9, res[i].gap_ns / 1e9);
		check(res[i].limited > 0, name, "cpu %d offered more than the limit: %llu requests "
						"over it",
		      runs[i].cpu, (unsigned long long)res[i].limited);
	}
	for (int i = 0; i < (same_source ? 1 : 2); i++) {
		/* One source per CPU: that CPU's; one source on both: the sum. */
		__u64 got = same_source ? res[0].replied + res[1].replied : res[i].replied;
		__u64 gap = same_source ? (res[0].gap_ns < res[1].gap_ns ? res[0].gap_ns
					   : res[1].gap_ns) :
					  res[i].gap_ns;
		__u64 w = same_source ? window : res[i].window_ns;
		__u64 lo = lower(SOURCE_PPS, same_source ? lo_window : res[i].lo_window_ns, gap,
				 SOURCE_BURST / 4 + 1);
		__u64 hi = upper(SOURCE_PPS, SOURCE_BURST, w);
		char what[160];

		snprintf(what, sizeof(what), "%s, source %u.%u.%u.%u", name, src[i][0], src[i][1],
			 src[i][2], src[i][3]);
		check(got >= lo && got <= hi, what,
		      "%llu replies in %.3f s (gaps %.3f s), %d/s burst %d (batch %u): expected "
		      "%llu..%llu",
		      (unsigned long long)got, w / 1e9, gap / 1e9, SOURCE_PPS, SOURCE_BURST, k,
		      (unsigned long long)lo, (unsigned long long)hi);
	}
out:
	xdpong_bpf__destroy(in.skel);
}

/* Both limits far above what two CPUs offer: nothing is dropped, not even
 * for the contention of two CPUs on one source and the shared state. */
static void above_case(const char *name)
{
	static const uint8_t src[4] = { 203, 0, 113, 40 };
	uint8_t frame[256];
	struct xf_cpu_run runs[2];
	struct cpu_result res[2];
	struct xf_instance in = { 0 };
	__u64 window, lo_window;
	size_t len = echo_from(src, frame, sizeof(frame));
	int err;

	if (load(&in, 10000000, 10000000, 100000000, 100000000)) {
		check(false, name, "the program did not load");
		return;
	}
	for (int i = 0; i < 2; i++)
		runs[i] = (struct xf_cpu_run){ .cpu = cpus[i], .frame = frame, .len = len };
	err = run(&in, runs, 2, res, &window, &lo_window);
	if (err) {
		check(false, name, "test run: %s", strerror(-err));
		goto out;
	}
	for (int i = 0; i < 2; i++)
		check(res[i].limited == 0 && res[i].replied == runs[i].runs, name,
		      "cpu %d: %llu requests, %llu replied, %llu limited", runs[i].cpu,
		      (unsigned long long)runs[i].runs, (unsigned long long)res[i].replied,
		      (unsigned long long)res[i].limited);
out:
	xdpong_bpf__destroy(in.skel);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		libbpf_set_print(xf_libbpf_warnings);
	else
		libbpf_set_print(NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (xf_init())
		return 1;
	if (xf_usable_cpus(cpus, 2) < 2) {
		printf("SKIP: two CPUs needed, this process may use one\n");
		return 77;
	}
	if (!feature_have(FEAT_CMPXCHG)) {
		printf("SKIP: %s: %s\n", feature_info[FEAT_CMPXCHG].what,
		       feature_why(FEAT_CMPXCHG));
		return 77;
	}
	printf("cpus %d and %d of %d possible; %.1f s a case\n", cpus[0], cpus[1], xf_ncpus,
	       SECONDS);
	global_case("global limit, even on two CPUs", 2);
	global_case("global limit, all on one CPU", 1);
	source_case("per source, one CPU each", false);
	source_case("per source, one source on two CPUs", true);
	above_case("both limits above the offered rate, one source on two CPUs");
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
