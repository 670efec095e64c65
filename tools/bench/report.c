// SPDX-License-Identifier: GPL-2.0
/* The table, the JSON, the chart's data files, and the targets they are held to. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "report.h"
#include "util.h"

/* The configurations compared, in table order. */
const struct responder responders[NRESP] = {
	[R_KERNEL] = { "kernel", RESP_KERNEL, false, 0, true, true, true },
	[R_XDPONG_SKB] = { "xdpong-skb", RESP_XDPONG, false, LAT_LOADER_DEFAULT, true, true, true },
	[R_XDPONG_NATIVE] = { "xdpong-native", RESP_XDPONG, true, LAT_LOADER_DEFAULT, true, true,
			      true },
	[R_BARE_SKB] = { "bare-skb", RESP_BARE, false, 0, true, false, true },
	[R_BARE_NATIVE] = { "bare-native", RESP_BARE, true, 0, true, true, true },
	/* The bare reflector with the checks a correct responder makes. */
	[R_CHECK_NATIVE] = { "check-native", RESP_CHECK, true, 0, true, false, false },
	/* Observability: the same program with the latency histogram off,
	 * sampled 1 in N, and timing every reply. */
	[R_XDPONG_LAT_OFF] = { "xdpong-native-lat-off", RESP_XDPONG, true, 0, true, false, false },
	[R_XDPONG_LAT_SAMPLED] = { "xdpong-native-lat-1-in-n", RESP_XDPONG, true, LAT_BENCH_N, true,
				   false, false },
	[R_XDPONG_LAT_EVERY] = { "xdpong-native-lat-every", RESP_XDPONG, true, 1, true, false,
				 false },
	/* STAMP reflection as shipped, sent STAMP test packets instead of echoes. */
	[R_XDPONG_STAMP] = { "xdpong-native-stamp", RESP_XDPONG, true, LAT_LOADER_DEFAULT, true,
			     false, false, .stamp = true },
	[R_TUN_STACK] = { "tun-stack", RESP_TUN_STACK, false, 0, false, true, true },
};

static const char *const rtt_name[RTT_N] = { "p50", "p90", "p99", "max" };

/* Round-by-round ratio a/b: both were measured in the same round. */
static void ratio_series(const struct series *a, const struct series *b, struct series *out)
{
	int n = a->n < b->n ? a->n : b->n;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n; i++)
		if (b->v[i] > 0)
			series_add(out, a->v[i] / b->v[i]);
}

/* Round-by-round difference a - b. */
static void diff_series(const struct series *a, const struct series *b, struct series *out)
{
	int n = a->n < b->n ? a->n : b->n;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n; i++)
		series_add(out, a->v[i] - b->v[i]);
}

static void add_target(struct bench_results *res, const char *layout, const char *what,
		       const struct series *s, double limit, bool higher, const char *unit)
{
	struct target *t;

	if (res->ntargets >= TARGETS_MAX)
		return;
	t = &res->targets[res->ntargets++];
	snprintf(t->what, sizeof(t->what), "%s", what);
	t->layout = layout;
	t->limit = limit;
	t->higher_is_better = higher;
	t->unit = unit;
	t->measured = s->n > 0;
	if (!t->measured)
		return;
	t->value = series_median(s);
	t->lo = series_min(s);
	t->hi = series_max(s);
	t->pass = higher ? t->value >= limit : t->value <= limit;
}

/* The rate and RTT targets of one layout. */
static void targets_layout(struct bench_results *res, int l)
{
	const struct resp_result *r = res->r[l];
	const char *ln = layout_name[l];
	char what[96];
	struct series s;

	ratio_series(&r[R_XDPONG_NATIVE].max_pps, &r[R_KERNEL].max_pps, &s);
	add_target(res, ln, "xdpong native rate >= 8x kernel", &s, 8, true, "x");
	ratio_series(&r[R_XDPONG_NATIVE].max_pps, &r[R_BARE_NATIVE].max_pps, &s);
	add_target(res, ln, "xdpong native rate >= 0.90x bare reflector", &s, 0.9, true, "x");
	if (l == LAYOUT_ONE_CPU) { /* the cleanest ratios: tighter targets */
		ratio_series(&r[R_XDPONG_NATIVE].max_pps, &r[R_KERNEL].max_pps, &s);
		add_target(res, ln, "xdpong native rate >= 9x kernel", &s, 9, true, "x");
		ratio_series(&r[R_XDPONG_NATIVE].max_pps, &r[R_BARE_NATIVE].max_pps, &s);
		add_target(res, ln, "xdpong native rate >= 0.85x bare reflector", &s, 0.85, true,
			   "x");
		/* close to bare on one CPU (the mq layout has its own, on N queues) */
		add_target(res, ln, "xdpong native rate >= 0.95x bare reflector", &s, 0.95, true,
			   "x");
		/* the limit of a correct responder, and STAMP near echo */
		ratio_series(&r[R_XDPONG_NATIVE].max_pps, &r[R_CHECK_NATIVE].max_pps, &s);
		add_target(res, ln, "xdpong native rate >= 0.95x checking reflector", &s, 0.95,
			   true, "x");
		ratio_series(&r[R_XDPONG_STAMP].max_pps, &r[R_XDPONG_NATIVE].max_pps, &s);
		add_target(res, ln, "xdpong STAMP rate >= 0.90x its echo rate", &s, 0.9, true, "x");
	}
	ratio_series(&r[R_XDPONG_SKB].max_pps, &r[R_KERNEL].max_pps, &s);
	add_target(res, ln, "xdpong skb rate >= 3.5x kernel", &s, 3.5, true, "x");
	ratio_series(&r[R_XDPONG_LAT_SAMPLED].max_pps, &r[R_XDPONG_LAT_OFF].max_pps, &s);
	snprintf(what, sizeof(what), "latency 1 in %d: rate >= 0.95x latency off",
		 res->latency_sample);
	add_target(res, ln, what, &s, 0.95, true, "x");
	if (res->loader_default != res->latency_sample) {
		ratio_series(&r[R_XDPONG_NATIVE].max_pps, &r[R_XDPONG_LAT_OFF].max_pps, &s);
		snprintf(what, sizeof(what), "latency as shipped (1 in %d) >= 0.95x off",
			 res->loader_default);
		add_target(res, ln, what, &s, 0.95, true, "x");
	}
	for (int m = 0; m < 2; m++) {
		int ri = m ? R_XDPONG_SKB : R_XDPONG_NATIVE;
		const char *mode = m ? "skb" : "native";

		ratio_series(&r[ri].rtt[RTT_P50], &r[R_KERNEL].rtt[RTT_P50], &s);
		snprintf(what, sizeof(what), "xdpong %s RTT p50 <= kernel's", mode);
		add_target(res, ln, what, &s, 1.0, false, "x");
		ratio_series(&r[ri].rtt[RTT_P99], &r[R_KERNEL].rtt[RTT_P99], &s);
		snprintf(what, sizeof(what), "xdpong %s RTT p99 <= kernel's", mode);
		add_target(res, ln, what, &s, 1.0, false, "x");
	}
}

/* 100 x |median of a's ratios / median of b's - 1| (%): one figure, as a series. */
static void drift_series(const struct series *a1, const struct series *a2, const struct series *b1,
			 const struct series *b2, struct series *out)
{
	struct series ra, rb;

	memset(out, 0, sizeof(*out));
	ratio_series(a1, a2, &ra);
	ratio_series(b1, b2, &rb);
	if (ra.n && rb.n)
		series_add(out, 100 * fabs(series_median(&ra) / series_median(&rb) - 1));
}

double cost_floor_drift_pct(const struct bench_results *res)
{
	double first = series_median(&res->cost.ns[COST_PASS_FLOOR]);
	double last = series_median(&res->cost_end.ns[COST_PASS_FLOOR]);

	return first > 0 ? 100 * (last / first - 1) : 0;
}

/* The echo path near the bare reflector's, large echoes, and the same
 * ratios from the cost part timed first and last in one run. */
static void targets_cost_echo(struct bench_results *res)
{
	const struct series *c = res->cost.ns, *e = res->cost_end.ns;
	struct series s, d;

	ratio_series(&c[COST_XDPONG_ECHO4], &c[COST_BARE_ECHO4], &s);
	add_target(res, NULL, "xdpong cost per 98-byte echo <= 1.2x bare reflector's", &s, 1.2,
		   false, "x");
	ratio_series(&c[COST_XDPONG_ECHO4], &c[COST_CHECK_ECHO4], &s);
	add_target(res, NULL, "xdpong cost per 98-byte echo <= 1.1x checking refl.'s", &s, 1.1,
		   false, "x");
	diff_series(&c[COST_XDPONG_ECHO4_1500], &c[COST_XDPONG_ECHO4], &d);
	ratio_series(&d, &c[COST_SUM_EXTRA], &s);
	add_target(res, NULL, "1500-byte echo <= 98-byte + 1.1x checksum pass (x pass)", &s, 1.1,
		   false, "x");
	if (!res->cost_end_done)
		return;
	drift_series(&e[COST_XDPONG_ECHO4], &e[COST_BARE_ECHO4], &c[COST_XDPONG_ECHO4],
		     &c[COST_BARE_ECHO4], &s);
	add_target(res, NULL, "echo/bare ratio, cost part last vs first: within 10%", &s, 10, false,
		   "%");
	drift_series(&e[COST_XDPONG_ECHO4], &e[COST_PASS_FLOOR], &c[COST_XDPONG_ECHO4],
		     &c[COST_PASS_FLOOR], &s);
	add_target(res, NULL, "echo/floor ratio, cost part last vs first: within 10%", &s, 10,
		   false, "%");
	/* The machine's speed: the ratios above compare like with like only
	 * if this holds (bench.c, cost_again). */
	memset(&s, 0, sizeof(s));
	if (c[COST_PASS_FLOOR].n && e[COST_PASS_FLOOR].n)
		series_add(&s, fabs(cost_floor_drift_pct(res)));
	add_target(res, NULL, "floor (machine speed), cost part last vs first: within 10%", &s,
		   COST_FLOOR_PCT, false, "%");
}

/* The per-packet cost targets (BPF_PROG_TEST_RUN). */
static void targets_cost(struct bench_results *res)
{
	char what[96];
	struct series s;

	add_target(res, NULL, "xdpong cost per 98-byte echo <= 4x XDP_PASS",
		   &res->cost.ratio[COST_XDPONG_ECHO4], 4, false, "x");
	add_target(res, NULL, "xdpong cost per 118-byte IPv6 echo <= 4.5x XDP_PASS",
		   &res->cost.ratio[COST_XDPONG_ECHO6], 4.5, false, "x");
	add_target(res, NULL, "xdpong cost per 98-byte UDP passed <= 1.5x XDP_PASS",
		   &res->cost.ratio[COST_XDPONG_PASS_UDP], 1.5, false, "x");
	add_target(res, NULL, "xdpong cost per 98-byte TCP passed <= 1.5x XDP_PASS",
		   &res->cost.ratio[COST_XDPONG_PASS_TCP], 1.5, false, "x");
	/* The design's choice (README): patched inline because cheaper. */
	ratio_series(&res->cost.ns[COST_PATCH_INLINE], &res->cost.ns[COST_PATCH_CSUM_DIFF], &s);
	add_target(res, NULL, "reply patch inline <= bpf_csum_diff patch", &s, 1.0, false, "x");
	/* The program's own time: the rate-based check, without the
	 * rest of the path diluting it. */
	ratio_series(&res->cost.ns[COST_XDPONG_ECHO4_LAT_SAMPLED],
		     &res->cost.ns[COST_XDPONG_ECHO4_LAT_OFF], &s);
	snprintf(what, sizeof(what), "latency 1 in %d: program time <= 1.05x off",
		 res->latency_sample);
	add_target(res, NULL, what, &s, 1.05, false, "x");
	targets_cost_echo(res);
}

/* TCP through xdpong against XDP_PASS, in each mode. */
static void targets_tput(struct bench_results *res)
{
	const struct series *g = res->tput.gbps;
	struct series s;

	ratio_series(&g[TPUT_XDPONG_SKB], &g[TPUT_PASS_SKB], &s);
	add_target(res, NULL, "TCP through xdpong skb >= 0.97x XDP_PASS skb", &s, 0.97, true, "x");
	ratio_series(&g[TPUT_XDPONG_NATIVE], &g[TPUT_PASS_NATIVE], &s);
	add_target(res, NULL, "TCP through xdpong native >= 0.97x XDP_PASS native", &s, 0.97, true,
		   "x");
}

/* A count as a one-value series: the targets' median and range are the count. */
static struct series count_series(double v)
{
	struct series s = { 0 };

	series_add(&s, v);
	return s;
}

/* The limits cost little and scale; xdpong close to bare on N queues. */
static void targets_mq(struct bench_results *res)
{
	const struct mq_results *m = &res->mq;
	const struct series(*p)[2] = m->pps;
	unsigned long long dropped, off = 0;
	struct series s, a, b;
	char what[96];

	ratio_series(&p[MQ_XDPONG_LIMITS][0], &p[MQ_XDPONG][0], &s);
	add_target(res, "mq", "limits on >= 0.90x shipped, 1 queue", &s, 0.9, true, "x");
	ratio_series(&p[MQ_XDPONG_LIMITS][1], &p[MQ_XDPONG][1], &s);
	snprintf(what, sizeof(what), "limits on >= 0.90x shipped, %d queues", m->queues);
	add_target(res, "mq", what, &s, 0.9, true, "x");
	/* Scaling, per round: (limits N/1) / (bare N/1). */
	ratio_series(&p[MQ_XDPONG_LIMITS][1], &p[MQ_XDPONG_LIMITS][0], &a);
	ratio_series(&p[MQ_BARE][1], &p[MQ_BARE][0], &b);
	ratio_series(&a, &b, &s);
	snprintf(what, sizeof(what), "limits on: %dq/1q >= 0.95x bare's %dq/1q", m->queues,
		 m->queues);
	add_target(res, "mq", what, &s, 0.95, true, "x");
	dropped = m->xdp[MQ_XDPONG_LIMITS].rate_limited + m->xdp[MQ_XDPONG_LIMITS].global_limited;
	s = count_series(dropped);
	add_target(res, "mq", "requests dropped by the limits = 0", &s, 0, false, "");
	for (int ri = 0; ri < MQ_RESP_N; ri++) {
		unsigned long long x = m->xdp[ri].replied, k = m->sink_replies[ri];

		if (mq_responders[ri].kind == RESP_XDPONG)
			off += x > k ? x - k : k - x;
	}
	s = count_series(off);
	add_target(res, "mq", "xdpong replied - sink's count = 0", &s, 0, false, "");
	ratio_series(&p[MQ_XDPONG][1], &p[MQ_BARE][1], &s);
	snprintf(what, sizeof(what), "xdpong native >= 0.95x bare, %d queues", m->queues);
	add_target(res, "mq", what, &s, 0.95, true, "x");
	ratio_series(&p[MQ_XDPONG][1], &p[MQ_CHECK][1], &s);
	snprintf(what, sizeof(what), "xdpong native >= 0.95x checking refl., %d queues", m->queues);
	add_target(res, "mq", what, &s, 0.95, true, "x");
	ratio_series(&p[MQ_XDPONG_STAMP][1], &p[MQ_XDPONG][1], &s);
	snprintf(what, sizeof(what), "xdpong STAMP >= 0.90x its echo, %d queues", m->queues);
	add_target(res, "mq", what, &s, 0.9, true, "x");
	s = count_series(m->misplaced * 100);
	add_target(res, "mq", "frames off their queue or CPU <= 1%", &s, 1, false, "%");
}

void evaluate_targets(struct bench_results *res)
{
	res->ntargets = 0;
	for (int l = 0; l < LAYOUT_N; l++)
		if (res->layout_done[l])
			targets_layout(res, l);
	if (res->cost_done)
		targets_cost(res);
	if (res->mq.measured)
		targets_mq(res);
	if (res->tput_done)
		targets_tput(res);
}

static void fmt_series(char *buf, size_t size, const struct series *s, double scale, int prec)
{
	if (!s->n) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(buf, size, "%.*f [%.*f-%.*f]", prec, series_median(s) * scale, prec,
		 series_min(s) * scale, prec, series_max(s) * scale);
}

/* What STAMP replies report: T3 - T2, xdpong's own time from the T2 read
 * to the T3 read (tools/bench/README.md). */
static void print_residence(FILE *f, const struct resp_result *r)
{
	char a[64], b[64];

	for (int ri = 0; ri < NRESP; ri++) {
		if (!r[ri].measured || !r[ri].res_p50.n)
			continue;
		fmt_series(a, sizeof(a), &r[ri].res_p50, 1, 0);
		fmt_series(b, sizeof(b), &r[ri].res_p99, 1, 0);
		fprintf(f, "  STAMP T3 - T2 in the replies (ns, flat out)  p50 %-18s p99 %s\n", a,
			b);
	}
}

static void print_rates(FILE *f, const struct bench_results *res, int l)
{
	const struct resp_result *r = res->r[l];
	char a[64], b[64], c[64], d[64];
	struct series s;

	fprintf(f, "\nLayout %s: %s\n", layout_name[l], layout_desc[l]);
	fprintf(f, "  %-24s %-24s %-21s %-24s %s\n", "responder", "peak answered (Mpps)",
		"vs kernel", "zero-loss (Mpps)", "loss flat out");
	for (int ri = 0; ri < NRESP; ri++) {
		if (!r[ri].measured || !r[ri].max_pps.n)
			continue;
		fmt_series(a, sizeof(a), &r[ri].max_pps, 1e-6, 3);
		ratio_series(&r[ri].max_pps, &r[R_KERNEL].max_pps, &s);
		fmt_series(b, sizeof(b), &s, 1, 2);
		fmt_series(c, sizeof(c), &r[ri].zero_pps, 1e-6, 3);
		fmt_series(d, sizeof(d), &r[ri].max_loss, 100, 1);
		fprintf(f, "  %-24s %-24s %-21s %-24s %s%%%s\n", responders[ri].name, a, b, c, d,
			r[ri].generator_bound ? " (generator-bound)" : "");
	}
	fprintf(f, "  RTT (us, kernel timestamps)  %-18s %-18s %-18s %s\n", "p50", "p90", "p99",
		"max");
	for (int ri = 0; ri < NRESP; ri++) {
		if (!r[ri].measured || !r[ri].rtt[RTT_P50].n)
			continue;
		fmt_series(a, sizeof(a), &r[ri].rtt[RTT_P50], 1, 1);
		fmt_series(b, sizeof(b), &r[ri].rtt[RTT_P90], 1, 1);
		fmt_series(c, sizeof(c), &r[ri].rtt[RTT_P99], 1, 1);
		fmt_series(d, sizeof(d), &r[ri].rtt[RTT_MAX], 1, 0);
		fprintf(f, "  %-28s %-18s %-18s %-18s %s%s\n", responders[ri].name, a, b, c, d,
			r[ri].rtt_lost ? " (probes lost)" : "");
	}
	print_residence(f, r);
}

static void print_observability(FILE *f, const struct bench_results *res)
{
	static const int rows[] = { R_XDPONG_LAT_OFF, R_XDPONG_LAT_SAMPLED, R_XDPONG_LAT_EVERY,
				    R_XDPONG_NATIVE };
	char a[64], b[64], label[48];
	struct series s;

	fprintf(f, "\nObservability: xdpong native, answered Mpps by latency sampling "
		   "(counters always on)\n");
	for (int l = 0; l < LAYOUT_N; l++) {
		const struct resp_result *r = res->r[l];

		if (!res->layout_done[l])
			continue;
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			int ri = rows[i];

			if (ri == R_XDPONG_LAT_OFF)
				snprintf(label, sizeof(label), "off");
			else if (ri == R_XDPONG_LAT_SAMPLED)
				snprintf(label, sizeof(label), "1 in %d", res->latency_sample);
			else if (ri == R_XDPONG_LAT_EVERY)
				snprintf(label, sizeof(label), "every reply");
			else
				snprintf(label, sizeof(label), "as shipped (%d)",
					 res->loader_default);
			fmt_series(a, sizeof(a), &r[ri].max_pps, 1e-6, 3);
			ratio_series(&r[ri].max_pps, &r[R_XDPONG_LAT_OFF].max_pps, &s);
			fmt_series(b, sizeof(b), &s, 1, 3);
			fprintf(f, "  %-8s %-14s %-24s vs off %s\n", layout_name[l], label, a, b);
		}
	}
}

static void print_cost(FILE *f, const struct bench_results *res)
{
	char a[64], b[64];

	fprintf(f,
		"\nCost per packet (BPF_PROG_TEST_RUN, ~30 ms of repeats per run, median of "
		"%d trials;\nreplying programs timed with a turn-around that restores the "
		"request, its time\nsubtracted; latency sampling as shipped = %d, N = %d)\n",
		res->cost_trials, res->loader_default, res->latency_sample);
	fprintf(f, "  %-42s %-24s %s\n", "program, packet", "ns", "x floor");
	for (int i = 0; i < COST_BREAKDOWN_FIRST; i++) {
		fmt_series(a, sizeof(a), &res->cost.ns[i], 1, 1);
		fmt_series(b, sizeof(b), &res->cost.ratio[i], 1, 2);
		if (i == COST_SUM_EXTRA || i == COST_CLOCK_READ) /* parts of a packet's cost */
			snprintf(b, sizeof(b), "-");
		fprintf(f, "  %-42s %-24s %s\n", cost_desc[i], a, b);
	}
	if (res->cost_end_done) {
		struct series s;

		fprintf(f, "  timed again after the rest of the bench:\n");
		fmt_series(a, sizeof(a), &res->cost_end.ns[COST_XDPONG_ECHO4], 1, 1);
		ratio_series(&res->cost_end.ns[COST_XDPONG_ECHO4],
			     &res->cost_end.ns[COST_BARE_ECHO4], &s);
		fmt_series(b, sizeof(b), &s, 1, 2);
		fprintf(f, "  %-42s %-24s %s x bare\n", cost_desc[COST_XDPONG_ECHO4], a, b);
		fmt_series(a, sizeof(a), &res->cost_end.ns[COST_PASS_FLOOR], 1, 1);
		fprintf(f,
			"  %-42s %-24s %d timing%s (at most %d, until within %.0f%% of the "
			"first)\n",
			cost_desc[COST_PASS_FLOOR], a, res->cost_end_tries,
			res->cost_end_tries == 1 ? "" : "s", COST_END_TRIES, COST_FLOOR_PCT);
	}
}

/* What each part of the echo path costs: builds that leave it out. */
static void print_breakdown(FILE *f, const struct bench_results *res)
{
	const struct series *ns = res->cost.ns;
	char a[64], b[64];
	struct series s;

	fprintf(f, "\nCost breakdown: the 98-byte IPv4 echo through builds that leave one "
		   "part out\n(saved: as shipped minus the build, per trial)\n");
	fprintf(f, "  %-42s %-24s %s\n", "build", "ns", "saved (ns)");
	fmt_series(a, sizeof(a), &ns[COST_XDPONG_ECHO4], 1, 1);
	fprintf(f, "  %-42s %-24s %s\n", "xdpong as shipped", a, "-");
	for (int i = COST_BREAKDOWN_FIRST; i < COST_N; i++) {
		fmt_series(a, sizeof(a), &ns[i], 1, 1);
		diff_series(&ns[COST_XDPONG_ECHO4], &ns[i], &s);
		fmt_series(b, sizeof(b), &s, 1, 1);
		fprintf(f, "  %-42s %-24s %s\n", cost_desc[i], a, b);
	}
	fmt_series(a, sizeof(a), &ns[COST_BARE_ECHO4], 1, 1);
	diff_series(&ns[COST_XDPONG_ECHO4], &ns[COST_BARE_ECHO4], &s);
	fmt_series(b, sizeof(b), &s, 1, 1);
	fprintf(f, "  %-42s %-24s %s\n", "bare reflector", a, b);
	fmt_series(a, sizeof(a), &ns[COST_CHECK_ECHO4], 1, 1);
	diff_series(&ns[COST_XDPONG_ECHO4], &ns[COST_CHECK_ECHO4], &s);
	fmt_series(b, sizeof(b), &s, 1, 1);
	fprintf(f, "  %-42s %-24s %s\n", "checking reflector", a, b);
}

/* Each configuration's ratio to what it is compared with, per round. */
static const struct {
	enum tput_config c, base;
} tput_ratios[] = {
	{ TPUT_PASS_SKB, TPUT_NONE },
	{ TPUT_XDPONG_SKB, TPUT_PASS_SKB },
	{ TPUT_PASS_NATIVE, TPUT_NONE },
	{ TPUT_XDPONG_NATIVE, TPUT_PASS_NATIVE },
};

static void print_tput(FILE *f, const struct bench_results *res)
{
	char a[64], b[128];
	struct series s;

	fprintf(f, "\nTCP throughput through a veth pair (iperf3, %d rounds; ratios per round)\n",
		res->tput.gbps[0].n);
	fprintf(f, "  %-40s %-24s %s\n", "configuration", "Gbit/s", "ratio");
	for (int c = 0; c < TPUT_N; c++) {
		fmt_series(a, sizeof(a), &res->tput.gbps[c], 1, 2);
		snprintf(b, sizeof(b), "-");
		for (size_t i = 0; i < sizeof(tput_ratios) / sizeof(tput_ratios[0]); i++) {
			char r[48];

			if (tput_ratios[i].c != (enum tput_config)c)
				continue;
			ratio_series(&res->tput.gbps[c], &res->tput.gbps[tput_ratios[i].base], &s);
			fmt_series(r, sizeof(r), &s, 1, 3);
			snprintf(b, sizeof(b), "%s vs %s", r, tput_name[tput_ratios[i].base]);
		}
		fprintf(f, "  %-40s %-24s %s\n", tput_desc[c], a, b);
	}
}

static void print_mq_counters(FILE *f, const struct mq_results *m)
{
	const struct xdpong_read *x;

	fprintf(f, "  xdpong's counters over every trial (xdpong stats --json) against the "
		   "sink's:\n");
	for (int ri = 0; ri < MQ_RESP_N; ri++) {
		if (mq_responders[ri].kind != RESP_XDPONG)
			continue;
		x = &m->xdp[ri];
		fprintf(f,
			"    %-22s replied %llu, sink %llu, tx_failed %llu, "
			"drop_rate_limited %llu, drop_global_limited %llu\n",
			mq_responders[ri].name, x->replied, m->sink_replies[ri], x->tx_failed,
			x->rate_limited, x->global_limited);
	}
	fprintf(f,
		"  Frames off their generator's rx queue, or replies off its CPU: worst "
		"%.3f%% of a trial\n",
		m->misplaced * 100);
}

static void print_mq(FILE *f, const struct bench_results *res)
{
	const struct mq_results *m = &res->mq;
	char a[64], b[64], c[64], d[64], hn[32];
	struct series s;

	fprintf(f, "\nLayout mq: %s\n", mq_desc);
	snprintf(hn, sizeof(hn), "%d queues (Mpps)", m->queues);
	fprintf(f, "  %-22s %-24s %-24s %-21s %s\n", "responder", "1 queue (Mpps)", hn, "N/1",
		"vs bare, N queues");
	for (int ri = 0; ri < MQ_RESP_N; ri++) {
		fmt_series(a, sizeof(a), &m->pps[ri][0], 1e-6, 3);
		fmt_series(b, sizeof(b), &m->pps[ri][1], 1e-6, 3);
		ratio_series(&m->pps[ri][1], &m->pps[ri][0], &s);
		fmt_series(c, sizeof(c), &s, 1, 2);
		ratio_series(&m->pps[ri][1], &m->pps[MQ_BARE][1], &s);
		fmt_series(d, sizeof(d), &s, 1, 2);
		fprintf(f, "  %-22s %-24s %-24s %-21s %s\n", mq_responders[ri].name, a, b, c, d);
	}
	ratio_series(&m->pps[MQ_XDPONG_LIMITS][0], &m->pps[MQ_XDPONG][0], &s);
	fmt_series(a, sizeof(a), &s, 1, 3);
	ratio_series(&m->pps[MQ_XDPONG_LIMITS][1], &m->pps[MQ_XDPONG][1], &s);
	fmt_series(b, sizeof(b), &s, 1, 3);
	fprintf(f, "  limits on / as shipped: 1 queue %s, %d queues %s\n", a, m->queues, b);
	fprintf(f, "  %d queues, replies on each CPU (Mpps):\n", m->queues);
	for (int ri = 0; ri < MQ_RESP_N; ri++) {
		fprintf(f, "    %-22s", mq_responders[ri].name);
		for (int k = 0; k < m->queues; k++) {
			fmt_series(a, sizeof(a), &m->cpu_pps[ri][k], 1e-6, 3);
			fprintf(f, " cpu%d %-22s", k, a);
		}
		fprintf(f, "\n");
	}
	print_mq_counters(f, m);
}

static void print_targets(FILE *f, const struct bench_results *res)
{
	fprintf(f, "\nTargets: median of same-run ratios [min-max]\n");
	for (int i = 0; i < res->ntargets; i++) {
		const struct target *t = &res->targets[i];

		if (!t->measured) {
			fprintf(f, "  ----  %-8s %-46s not measured\n", t->layout ? t->layout : "-",
				t->what);
			continue;
		}
		if (!*t->unit) { /* a count */
			fprintf(f, "  %-4s  %-8s %-46s %6.0f  (limit %s %.0f)\n",
				t->pass ? "PASS" : "MISS", t->layout ? t->layout : "-", t->what,
				t->value, t->higher_is_better ? ">=" : "<=", t->limit);
			continue;
		}
		fprintf(f, "  %-4s  %-8s %-46s %6.2f%s [%.2f-%.2f]  (limit %s %.2f)\n",
			t->pass ? "PASS" : "MISS", t->layout ? t->layout : "-", t->what, t->value,
			t->unit, t->lo, t->hi, t->higher_is_better ? ">=" : "<=", t->limit);
	}
}

void print_table(FILE *f, const struct bench_results *res)
{
	fprintf(f, "xdpong benchmark, %s, %s (%d CPUs), Linux %s\n", res->date, res->cpu,
		res->ncpus, res->kernel);
	fprintf(f,
		"Every figure: median of %d trials [min-max]; every ratio: median of the "
		"per-round\nratios of trials run back to back in this run. 98-byte IPv4 echo "
		"over a veth pair;\nlive-frames generator; sink on the sender's veth. xdpong "
		"rows as shipped\n(latency sampling: loader default %d), N = %d.\n",
		res->trials, res->loader_default, res->latency_sample);
	for (int l = 0; l < LAYOUT_N; l++)
		if (res->layout_done[l])
			print_rates(f, res, l);
	if (res->mq.measured)
		print_mq(f, res);
	if (res->layout_done[0] || res->layout_done[1])
		print_observability(f, res);
	if (res->cost_done) {
		print_cost(f, res);
		print_breakdown(f, res);
	}
	if (res->tput_done)
		print_tput(f, res);
	print_targets(f, res);
	fprintf(f, "\nRun time %.0f s.\n", res->elapsed_s);
}

/* A double as fmt prints it (the table's rounding); null if not finite. */
static struct json_object *json_fixed(double v, const char *fmt)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}

static struct json_object *json_series(const struct series *s, double scale)
{
	struct json_object *o = json_object_new_object();
	struct json_object *trials = json_object_new_array_ext(s->n);

	json_object_object_add(o, "median", json_fixed(series_median(s) * scale, "%.6g"));
	json_object_object_add(o, "min", json_fixed(series_min(s) * scale, "%.6g"));
	json_object_object_add(o, "max", json_fixed(series_max(s) * scale, "%.6g"));
	for (int i = 0; i < s->n; i++)
		json_object_array_add(trials, json_fixed(s->v[i] * scale, "%.6g"));
	json_object_object_add(o, "trials", trials);
	return o;
}

static struct json_object *json_responder(const struct resp_result *r)
{
	struct json_object *o = json_object_new_object(), *rtt, *check;

	if (r->max_pps.n) {
		json_object_object_add(o, "max_answered_pps", json_series(&r->max_pps, 1));
		json_object_object_add(o, "max_offered_pps", json_series(&r->max_offered, 1));
		json_object_object_add(o, "loss_at_max", json_series(&r->max_loss, 1));
	}
	if (r->zero_pps.n)
		json_object_object_add(o, "zero_loss_pps", json_series(&r->zero_pps, 1));
	if (r->rtt[RTT_P50].n) {
		rtt = json_object_new_object();
		for (int p = 0; p < RTT_N; p++)
			json_object_object_add(rtt, rtt_name[p], json_series(&r->rtt[p], 1));
		json_object_object_add(o, "rtt_us", rtt);
		json_object_object_add(o, "rtt_lost", json_object_new_int(r->rtt_lost));
		json_object_object_add(o, "rtt_kernel_timestamps",
				       json_object_new_boolean(r->rtt_kernel_stamps));
	}
	if (r->res_p50.n) {
		struct json_object *res = json_object_new_object();

		json_object_object_add(res, "p50", json_series(&r->res_p50, 1));
		json_object_object_add(res, "p99", json_series(&r->res_p99, 1));
		json_object_object_add(o, "stamp_t3_minus_t2_ns", res);
	}
	if (r->max_pps.n)
		json_object_object_add(o, "generator_bound_rounds",
				       json_object_new_int(r->generator_bound));
	if (r->sink_replied) {
		check = json_object_new_object();
		json_object_object_add(check, "xdpong", json_object_new_uint64(r->xdp_replied));
		json_object_object_add(check, "sink", json_object_new_uint64(r->sink_replied));
		json_object_object_add(o, "xdpong_replied_check", check);
	}
	return o;
}

static struct json_object *json_target(const struct target *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "target", json_object_new_string(t->what));
	json_object_object_add(o, "layout", t->layout ? json_object_new_string(t->layout) : NULL);
	json_object_object_add(o, "measured", json_object_new_boolean(t->measured));
	if (t->measured) {
		json_object_object_add(o, "value", json_fixed(t->value, "%.4g"));
		json_object_object_add(o, "min", json_fixed(t->lo, "%.4g"));
		json_object_object_add(o, "max", json_fixed(t->hi, "%.4g"));
		json_object_object_add(o, "limit", json_fixed(t->limit, "%.4g"));
		json_object_object_add(o, "pass", json_object_new_boolean(t->pass));
	}
	return o;
}

static struct json_object *json_mq_responder(const struct mq_results *m, int ri)
{
	struct json_object *o = json_object_new_object(), *cpus, *x;
	struct series s;

	json_object_object_add(o, "answered_pps_1_queue", json_series(&m->pps[ri][0], 1));
	json_object_object_add(o, "answered_pps_n_queues", json_series(&m->pps[ri][1], 1));
	ratio_series(&m->pps[ri][1], &m->pps[ri][0], &s);
	json_object_object_add(o, "n_over_1", json_series(&s, 1));
	cpus = json_object_new_array_ext(m->queues);
	for (int k = 0; k < m->queues; k++)
		json_object_array_add(cpus, json_series(&m->cpu_pps[ri][k], 1));
	json_object_object_add(o, "n_queues_pps_per_cpu", cpus);
	if (mq_responders[ri].kind != RESP_XDPONG)
		return o;
	x = json_object_new_object();
	json_object_object_add(x, "replied", json_object_new_uint64(m->xdp[ri].replied));
	json_object_object_add(x, "sink", json_object_new_uint64(m->sink_replies[ri]));
	json_object_object_add(x, "tx_failed", json_object_new_uint64(m->xdp[ri].tx_failed));
	json_object_object_add(x, "drop_rate_limited",
			       json_object_new_uint64(m->xdp[ri].rate_limited));
	json_object_object_add(x, "drop_global_limited",
			       json_object_new_uint64(m->xdp[ri].global_limited));
	json_object_object_add(o, "xdpong_counters", x);
	return o;
}

static struct json_object *json_mq(const struct mq_results *m)
{
	struct json_object *o = json_object_new_object(), *resp = json_object_new_object();

	json_object_object_add(o, "description", json_object_new_string(mq_desc));
	json_object_object_add(o, "queues", json_object_new_int(m->queues));
	json_object_object_add(o, "misplaced_share", json_fixed(m->misplaced, "%.6g"));
	for (int ri = 0; ri < MQ_RESP_N; ri++)
		json_object_object_add(resp, mq_responders[ri].name, json_mq_responder(m, ri));
	json_object_object_add(o, "responders", resp);
	return o;
}

static struct json_object *json_layouts(const struct bench_results *res)
{
	struct json_object *layouts = json_object_new_object();

	for (int l = 0; l < LAYOUT_N; l++) {
		struct json_object *lo, *resp;

		if (!res->layout_done[l])
			continue;
		lo = json_object_new_object();
		resp = json_object_new_object();
		json_object_object_add(lo, "description", json_object_new_string(layout_desc[l]));
		for (int ri = 0; ri < NRESP; ri++)
			if (res->r[l][ri].measured)
				json_object_object_add(resp, responders[ri].name,
						       json_responder(&res->r[l][ri]));
		json_object_object_add(lo, "responders", resp);
		json_object_object_add(layouts, layout_name[l], lo);
	}
	if (res->mq.measured)
		json_object_object_add(layouts, "mq", json_mq(&res->mq));
	return layouts;
}

static struct json_object *json_cost(const struct bench_results *res)
{
	struct json_object *cost = json_object_new_object();

	for (int i = 0; i < COST_N; i++) {
		struct json_object *row = json_object_new_object();

		json_object_object_add(row, "ns", json_series(&res->cost.ns[i], 1));
		json_object_object_add(row, "ratio_to_floor", json_series(&res->cost.ratio[i], 1));
		if (i >= COST_BREAKDOWN_FIRST) {
			struct series s;

			diff_series(&res->cost.ns[COST_XDPONG_ECHO4], &res->cost.ns[i], &s);
			json_object_object_add(row, "saved_ns", json_series(&s, 1));
		}
		json_object_object_add(cost, cost_name[i], row);
	}
	return cost;
}

static struct json_object *json_tput(const struct bench_results *res)
{
	struct json_object *tput = json_object_new_object();
	struct json_object *gbps = json_object_new_object();
	struct json_object *ratios = json_object_new_object();
	char key[64];
	struct series s;

	for (int c = 0; c < TPUT_N; c++)
		json_object_object_add(gbps, tput_name[c], json_series(&res->tput.gbps[c], 1));
	for (size_t i = 0; i < sizeof(tput_ratios) / sizeof(tput_ratios[0]); i++) {
		ratio_series(&res->tput.gbps[tput_ratios[i].c],
			     &res->tput.gbps[tput_ratios[i].base], &s);
		snprintf(key, sizeof(key), "%s/%s", tput_name[tput_ratios[i].c],
			 tput_name[tput_ratios[i].base]);
		json_object_object_add(ratios, key, json_series(&s, 1));
	}
	json_object_object_add(tput, "gbps", gbps);
	json_object_object_add(tput, "ratios", ratios);
	return tput;
}

int print_json(FILE *f, const struct bench_results *res)
{
	struct json_object *o = json_object_new_object(), *machine, *targets;
	int ret;

	json_object_object_add(o, "date", json_object_new_string(res->date));
	machine = json_object_new_object();
	json_object_object_add(machine, "cpu", json_object_new_string(res->cpu));
	json_object_object_add(machine, "cpus", json_object_new_int(res->ncpus));
	json_object_object_add(machine, "kernel", json_object_new_string(res->kernel));
	json_object_object_add(o, "machine", machine);
	json_object_object_add(o, "trials", json_object_new_int(res->trials));
	json_object_object_add(o, "cost_trials", json_object_new_int(res->cost_trials));
	json_object_object_add(o, "latency_sample_n", json_object_new_int(res->latency_sample));
	json_object_object_add(o, "loader_latency_sample_default",
			       json_object_new_int(res->loader_default));
	json_object_object_add(o, "elapsed_s", json_fixed(res->elapsed_s, "%.1f"));
	json_object_object_add(o, "layouts", json_layouts(res));
	if (res->cost_done)
		json_object_object_add(o, "cost_ns", json_cost(res));
	if (res->cost_end_done) {
		struct json_object *end = json_object_new_object();

		for (int i = 0; i < COST_N; i++)
			if (res->cost_end.ns[i].n)
				json_object_object_add(end, cost_name[i],
						       json_series(&res->cost_end.ns[i], 1));
		json_object_object_add(o, "cost_ns_last", end);
		json_object_object_add(o, "cost_last_timings",
				       json_object_new_int(res->cost_end_tries));
	}
	if (res->tput_done)
		json_object_object_add(o, "tcp_throughput", json_tput(res));

	targets = json_object_new_array_ext(res->ntargets);
	for (int i = 0; i < res->ntargets; i++)
		json_object_array_add(targets, json_target(&res->targets[i]));
	json_object_object_add(o, "targets", targets);

	ret = fprintf(f, "%s\n",
		      json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_SPACED |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ret < 0 ? fail("cannot write the JSON: %s", strerror(errno)) : 0;
}

/* NaN for what was not measured: the chart leaves a gap. */
static void dat_series(FILE *f, const struct series *s, double scale)
{
	if (!s->n)
		fprintf(f, " NaN NaN NaN");
	else
		fprintf(f, " %.6g %.6g %.6g", series_median(s) * scale, series_min(s) * scale,
			series_max(s) * scale);
}

/* dir/name for writing; NULL (said) if it cannot be. */
static FILE *open_out(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fail("cannot write %s: %s", path, strerror(errno));
	return f;
}

/* The mq targets, PASS/MISS, as a gnuplot string for the chart's mq panel. */
static void write_mq_note(FILE *f, const struct bench_results *res)
{
	fprintf(f, "mq_note = \"");
	for (int i = 0; i < res->ntargets; i++) {
		const struct target *t = &res->targets[i];

		if (!t->layout || strcmp(t->layout, "mq") || !t->measured)
			continue;
		fprintf(f, "%s  %s: %.*f%s\\n", t->pass ? "PASS" : "MISS", t->what,
			*t->unit ? 2 : 0, t->value, t->unit);
	}
	fprintf(f, "\"\n");
}

/* mq.dat: per responder: 1 queue, N queues (Mpps: median min max). */
static int write_mq_dat(const char *dir, const struct bench_results *res)
{
	FILE *f = open_out(dir, "mq.dat");

	if (!f)
		return -1;
	fprintf(f, "# responder | 1 queue | %d queues (Mpps: median min max)\n", res->mq.queues);
	for (int ri = 0; ri < MQ_RESP_N; ri++) {
		if (!mq_responders[ri].chart)
			continue;
		fprintf(f, "\"%s\"", mq_responders[ri].name);
		dat_series(f, &res->mq.pps[ri][0], 1e-6);
		dat_series(f, &res->mq.pps[ri][1], 1e-6);
		fprintf(f, "\n");
	}
	fclose(f);
	return 0;
}

/* rtt.dat: per responder, per layout: p50, p90, p99 (med lo hi), us. */
static int write_rtt_dat(const char *dir, const struct bench_results *res)
{
	FILE *f = open_out(dir, "rtt.dat");

	if (!f)
		return -1;
	fprintf(f, "# responder | one-cpu p50 p90 p99 | two-cpu p50 p90 p99 "
		   "(us: median min max)\n");
	for (int ri = 0; ri < NRESP; ri++) {
		if (!responders[ri].rtt)
			continue;
		if (!res->r[0][ri].measured && !res->r[1][ri].measured)
			continue;
		fprintf(f, "\"%s\"", responders[ri].name);
		for (int l = 0; l < LAYOUT_N; l++)
			for (int p = RTT_P50; p <= RTT_P99; p++)
				dat_series(f, &res->r[l][ri].rtt[p], 1);
		fprintf(f, "\n");
	}
	fclose(f);
	return 0;
}

int write_results(const char *dir, const struct bench_results *res)
{
	char path[512];
	FILE *f;

	f = open_out(dir, "results.json");
	if (!f)
		return -1;
	if (print_json(f, res)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	f = open_out(dir, "results.txt");
	if (!f)
		return -1;
	print_table(f, res);
	fclose(f);

	/* Chart data only from a run that measured rates: no stale charts. */
	if (!res->layout_done[LAYOUT_ONE_CPU] && !res->layout_done[LAYOUT_TWO_CPU] &&
	    !res->mq.measured) {
		static const char *const stale[] = { "rates.dat", "rtt.dat", "mq.dat", "meta.gp" };

		for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, stale[i]);
			unlink(path);
		}
		return 0;
	}
	if (write_mq_dat(dir, res))
		return -1;

	/* rates.dat: per responder, per layout: max (med lo hi), zero-loss (med lo hi). */
	f = open_out(dir, "rates.dat");
	if (!f)
		return -1;
	fprintf(f, "# responder | one-cpu max, zero-loss | two-cpu max, zero-loss "
		   "(Mpps: median min max)\n");
	for (int ri = 0; ri < NRESP; ri++) {
		if (!responders[ri].chart || responders[ri].kind == RESP_TUN_STACK)
			continue;
		fprintf(f, "\"%s\"", responders[ri].name);
		for (int l = 0; l < LAYOUT_N; l++) {
			dat_series(f, &res->r[l][ri].max_pps, 1e-6);
			dat_series(f, &res->r[l][ri].zero_pps, 1e-6);
		}
		fprintf(f, "\n");
	}
	fclose(f);

	if (write_rtt_dat(dir, res))
		return -1;

	f = open_out(dir, "meta.gp");
	if (!f)
		return -1;
	fprintf(f,
		"chart_title = \"xdpong bench %s, %s, %d CPUs, Linux %s; "
		"median of %d trials, bars min-max\"\n",
		res->date, res->cpu, res->ncpus, res->kernel, res->trials);
	fprintf(f, "have_mq = %d\nmq_queues = %d\n", res->mq.measured, res->mq.queues);
	write_mq_note(f, res);
	fprintf(f, "have_one = %d\nhave_two = %d\n", res->layout_done[LAYOUT_ONE_CPU],
		res->layout_done[LAYOUT_TWO_CPU]);
	fclose(f);
	return 0;
}
