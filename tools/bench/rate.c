// SPDX-License-Identifier: GPL-2.0
/*
 * Answered rate: the live-frames generator transmits real echo requests out
 * of the sender's veth for one trial (one syscall, ended by SIGALRM), the
 * sink counts the replies that come back.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "driver.h"
#include "util.h"
#include "gen.skel.h"
#include "sink.skel.h"

static volatile double alarm_at; /* when the last SIGALRM arrived */
static int possible_cpus;

static void on_alarm(int sig)
{
	struct timespec ts;

	(void)sig;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	alarm_at = ts.tv_sec + ts.tv_nsec / 1e9;
}

int gen_frame_set(struct bench_env *env, bool stamp)
{
	__u8 *f = env->req;
	int len, want = stamp ? BENCH_STAMP_FRAME_LEN : BENCH_FRAME_LEN;

	memset(f, 0, sizeof(env->req));
	len = stamp ? frame_stamp4(f, sizeof(env->req)) :
		      frame_echo4(f, sizeof(env->req), BENCH_FRAME_LEN - 14, 1);
	if (len != want)
		return fail("cannot build the request frame");
	env->req_len = len;
	/* gen.bpf.c: the words, then the echo's 2-byte or STAMP's 6-byte tail. */
	memcpy(env->gen->bss->gen_frame, f, BENCH_FRAME_WORDS * 8);
	memcpy(&env->gen->bss->gen_frame_tail, f + BENCH_FRAME_WORDS * 8, 2);
	memcpy(env->gen->bss->gen_frame_tail6, f + BENCH_STAMP_WORDS * 8, 6);
	env->gen->bss->gen_stamp = stamp;
	return 0;
}

void res_start(struct bench_env *env)
{
	memset(env->sink->bss->sink_res_ns, 0, sizeof(env->sink->bss->sink_res_ns));
	env->sink->bss->sink_res_on = 1;
}

int res_read(struct bench_env *env, double *p50, double *p99)
{
	static double v[BENCH_RES_N];
	size_t n = 0;

	env->sink->bss->sink_res_on = 0;
	for (int i = 0; i < BENCH_RES_N; i++)
		if (env->sink->bss->sink_res_ns[i])
			v[n++] = env->sink->bss->sink_res_ns[i] - 1;
	if (!n)
		return -1;
	sort_doubles(v, n);
	*p50 = percentile_sorted(v, n, 50);
	*p99 = percentile_sorted(v, n, 99);
	return 0;
}

int rate_init(struct bench_env *env)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	/* No SA_RESTART: the signal must end the generator's syscall. */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL))
		return fail("sigaction: %s", strerror(errno));
	possible_cpus = libbpf_num_possible_cpus();
	if (possible_cpus <= 0 || possible_cpus > BENCH_CPUS_MAX)
		return fail("cannot count CPUs (or more than %d possible)", BENCH_CPUS_MAX);
	if (gen_frame_set(env, false))
		return -1;
	/* Outside rate trials the replies go to the stack: RTT probes. */
	return sink_set_pass(env, true);
}

int counts_read(struct bench_env *env, struct cpu_counts *c)
{
	struct bench_sink_counters vals[possible_cpus];
	__u64 sent[possible_cpus];
	__u32 key = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(env->sink->maps.bench_sink_stats), &key, vals) ||
	    bpf_map_lookup_elem(bpf_map__fd(env->gen->maps.gen_sent), &key, sent))
		return fail("cannot read the generator's or the sink's counters: %s",
			    strerror(errno));
	memset(c, 0, sizeof(*c));
	c->n = possible_cpus;
	for (int i = 0; i < possible_cpus; i++) {
		c->sent[i] = sent[i];
		c->replies[i] = vals[i].replies;
		c->sent_all += sent[i];
		c->replies_all += vals[i].replies;
		c->other_all += vals[i].other;
	}
	return 0;
}

int counts_reset(struct bench_env *env)
{
	struct bench_sink_counters vals[possible_cpus];
	__u64 sent[possible_cpus];
	__u32 key = 0;

	memset(vals, 0, sizeof(vals));
	memset(sent, 0, sizeof(sent));
	if (bpf_map_update_elem(bpf_map__fd(env->sink->maps.bench_sink_stats), &key, vals,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(env->gen->maps.gen_sent), &key, sent, BPF_ANY))
		return fail("cannot reset the generator's or the sink's counters: %s",
			    strerror(errno));
	return 0;
}

int sink_set_pass(struct bench_env *env, bool pass)
{
	env->sink->bss->sink_pass_replies = pass;
	return 0;
}

static void set_timer(int ms)
{
	struct itimerval it = { 0 };

	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	/* Re-fire in case the first one came before the syscall started. */
	if (ms)
		it.it_interval.tv_usec = 50000;
	setitimer(ITIMER_REAL, &it, NULL);
}

int rate_trial(struct bench_env *env, double target_pps, int ms, struct rate_trial *out)
{
	struct xdp_md ctx = {
		.data_end = env->req_len,
		.ingress_ifindex = env->net.ifindex_s,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = env->req, .data_size_in = env->req_len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		    .repeat = INT_MAX, /* ended by the timer long before */
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = GEN_BATCH, );
	struct cpu_counts c;
	double t0;
	int err;

	memset(out, 0, sizeof(*out));
	if (bench_stop)
		return -1;
	if (enter_ns(env->net.nsfd_s) || counts_reset(env))
		return -1;
	env->gen->bss->gen_interval_ns = target_pps > 0 ? (__u64)(1e9 / target_pps) : 0;
	env->gen->bss->gen_next_ns = 0;
	sink_set_pass(env, false);
	alarm_at = 0;
	t0 = now_s();
	set_timer(ms);
	err = bpf_prog_test_run_opts(bpf_program__fd(env->gen->progs.bench_gen), &opts);
	set_timer(0);
	usleep(DRAIN_US);
	sink_set_pass(env, true);
	if (bench_stop)
		return -1; /* SIGINT/SIGTERM ended the run, not the timer */
	if (err != -EINTR) {
		return fail("generator: %s",
			    err ? strerror(-err) : "the live-frames run ended before the timer");
	}
	out->seconds = alarm_at - t0;
	if (counts_read(env, &c))
		return -1;
	out->sent = c.sent_all;
	out->replies = c.replies_all;
	if (out->seconds <= 0)
		return fail("generator: no time measured");
	out->offered_pps = out->sent / out->seconds;
	out->answered_pps = out->replies / out->seconds;
	dbg("trial %.0f pps target: %.3f s, sent %llu, replies %llu, other %llu", target_pps,
	    out->seconds, out->sent, out->replies, c.other_all);
	if (out->replies > out->sent)
		return fail("more replies (%llu) than requests (%llu): stray traffic?",
			    out->replies, out->sent);
	return 0;
}

static void keep_peak(struct rate_trial *peak, const struct rate_trial *t)
{
	if (t->answered_pps > peak->answered_pps)
		*peak = *t;
}

/*
 * RFC 2544 26.1: the highest rate at which no frame is lost. Bisection in
 * (0, max]: the unpaced trial is the upper end. *peak gets the trial that
 * answered most: overloaded, a cross-CPU path answers less than at a
 * paced rate just below its capacity.
 */
int zero_loss_search(struct bench_env *env, const struct rate_trial *max, int step_ms,
		     int confirm_ms, struct rate_trial *out, struct rate_trial *peak)
{
	double lo = 0, hi = max->offered_pps, rate;
	struct rate_trial t;

	*peak = *max;
	if (max->replies == max->sent) {
		*out = *max; /* nothing lost flat out: the closed-loop case */
		return 0;
	}
	for (int step = 0; step < 7 && !bench_stop; step++) {
		rate = (lo + hi) / 2;
		if (rate_trial(env, rate, step_ms, &t))
			return -1;
		keep_peak(peak, &t);
		if (t.replies == t.sent)
			lo = rate;
		else
			hi = rate;
	}
	/* Confirm with a longer trial; step down while it still loses. */
	rate = lo > 0 ? lo : hi / 128;
	for (int tries = 0; tries < 4 && !bench_stop; tries++) {
		if (rate_trial(env, rate, confirm_ms, &t))
			return -1;
		keep_peak(peak, &t);
		if (t.replies == t.sent) {
			*out = t;
			return 0;
		}
		rate *= 0.9;
	}
	memset(out, 0, sizeof(*out)); /* loses even at the lowest rate tried */
	return 0;
}
