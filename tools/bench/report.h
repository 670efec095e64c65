/* SPDX-License-Identifier: GPL-2.0 */
/* Results of a run, the targets they are held to, and their output. */
#ifndef XDPONG_BENCH_REPORT_H
#define XDPONG_BENCH_REPORT_H

#include <stdio.h>
#include "driver.h"

/* The sampled setting the observability rows compare (--latency-sample). */
#define DEFAULT_LATENCY_SAMPLE 64

enum resp_id {
	R_KERNEL,
	R_XDPONG_SKB,
	R_XDPONG_NATIVE,
	R_XDPONG_STAMP, /* beside the rows it is compared with: per-round ratios */
	R_CHECK_NATIVE,
	R_BARE_SKB,
	R_BARE_NATIVE,
	R_XDPONG_LAT_OFF,
	R_XDPONG_LAT_SAMPLED,
	R_XDPONG_LAT_EVERY,
	R_TUN_STACK,
	NRESP,
};
extern const struct responder responders[NRESP];

enum rtt_pct { RTT_P50, RTT_P90, RTT_P99, RTT_MAX, RTT_N };

struct resp_result {
	bool measured;
	/* v[k] of every series is round k: same-run ratios pair them. */
	struct series max_pps, max_offered, max_loss, zero_pps;
	struct series rtt[RTT_N]; /* us */
	/* STAMP rows: the replies' T3 - T2 (ns) in the flat-out trial */
	struct series res_p50, res_p99;
	int rtt_lost;
	int generator_bound; /* rounds the generator, not the responder, limited */
	bool rtt_kernel_stamps;
	unsigned long long xdp_replied, sink_replied; /* round 0 cross-check */
};

#define TARGETS_MAX 48
struct target {
	char what[96];
	const char *layout; /* NULL: no layout */
	double value, lo, hi, limit;
	bool higher_is_better; /* value >= limit passes; else value <= limit */
	bool pass, measured;
	const char *unit;
};

/*
 * The last cost part is compared with the first only where the XDP_PASS
 * floor reads within COST_FLOOR_PCT of its first reading (the machine ran
 * both at one speed); bench.c's cost_again times them again, at most
 * COST_END_TRIES times, and report.c makes the floor's drift a target.
 */
#define COST_FLOOR_PCT 10.0
#define COST_END_TRIES 6

struct bench_results {
	struct resp_result r[LAYOUT_N][NRESP];
	bool layout_done[LAYOUT_N];
	struct cost_results cost;
	bool cost_done;
	struct cost_results cost_end; /* the echo ratios' figures, timed last */
	bool cost_end_done;
	int cost_end_tries; /* timings of them until the floor read as at first */
	struct tput_results tput;
	bool tput_done;
	struct mq_results mq; /* mq.measured: done */
	struct target targets[TARGETS_MAX];
	int ntargets;
	int trials, cost_trials, ncpus;
	int latency_sample; /* the sampled row's N */
	int loader_default; /* xdpong attach's own default, -1 if unknown */
	double elapsed_s;
	char cpu[128], kernel[64], date[32];
};

void evaluate_targets(struct bench_results *res);
void print_table(FILE *f, const struct bench_results *res);
/* One JSON object (json-c), pretty-printed. 0 or -1 (said). */
int print_json(FILE *f, const struct bench_results *res);
/* results.json, rates.dat, rtt.dat, meta.gp in dir: for the chart. */
int write_results(const char *dir, const struct bench_results *res);

/* 100 x (the floor in the last cost part / in the first - 1), signed. */
double cost_floor_drift_pct(const struct bench_results *res);

#endif /* XDPONG_BENCH_REPORT_H */
