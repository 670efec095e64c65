// SPDX-License-Identifier: GPL-2.0
/*
 * The multi-queue layout: a veth pair with one rx and one tx queue per
 * online CPU, and one live-frames generator per CPU, pinned there, as the
 * queues of a real NIC each run on their own CPU.
 *
 *   ns xbench-ms-ID                          ns xbench-mr-ID
 *   +-----------------------------+  veth    +-----------------------------+
 *   | xmsID 198.18.0.1            |  N rx,   | xmrID 198.18.0.2            |
 *   | generator k (CPU k) --------|--N tx -->| rx queue k: NAPI on CPU k,  |
 *   | sink: rx queue k, CPU k <---|--queues--| responder, XDP_TX or stack  |
 *   +-----------------------------+          +-----------------------------+
 *
 * veth puts what CPU k transmits by XDP on the peer's rx queue k (the
 * sending CPU modulo the queues) and schedules that queue's NAPI on CPU k;
 * the stack's replies (kernel responder) leave by tx queue k through XPS,
 * and veth maps tx queue k to the peer's rx queue k. So each CPU runs its
 * own closed loop: generator, responder, sink. Every trial checks it: the
 * responder's rx queue k took exactly the frames generator k sent
 * (ethtool -S), and the sink counted generator k's replies on CPU k.
 * "1 queue" is the generator on CPU 0 alone; "N queues", one on each CPU.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "driver.h"
#include "util.h"
#include "gen.skel.h"
#include "sink.skel.h"

/* The responders of this layout, in table order. */
const struct responder mq_responders[MQ_RESP_N] = {
	[MQ_KERNEL] = { "kernel", RESP_KERNEL, false, 0, true, false, true },
	[MQ_CHECK] = { "check-native", RESP_CHECK, true, 0, true, false, false },
	[MQ_BARE] = { "bare-native", RESP_BARE, true, 0, true, false, true },
	[MQ_XDPONG] = { "xdpong-native", RESP_XDPONG, true, LAT_LOADER_DEFAULT, true, false, true },
	[MQ_XDPONG_LIMITS] = { "xdpong-native-limits", RESP_XDPONG, true, LAT_LOADER_DEFAULT, true,
			       false, true, .limits = true },
	[MQ_XDPONG_STAMP] = { "xdpong-native-stamp", RESP_XDPONG, true, LAT_LOADER_DEFAULT, true,
			      false, false, .stamp = true },
};

const char *const mq_desc = "one veth rx/tx queue per CPU; generator k on CPU k, its frames on\n"
			    "  rx queue k, responder and sink on CPU k (checked): a closed loop "
			    "per CPU.\n"
			    "  1 queue: the generator on CPU 0 alone.";

/* The pair, its static neighbours, XPS (tx queue k for CPU k), the sink. */
static int mq_net_setup(struct bench_env *env, int queues)
{
	static const char *mac_s = "02:b0:00:00:00:01", *mac_r = "02:b0:00:00:00:02";
	struct veth_pair *p = &env->mq;
	int err = 0;

	p->queues = queues;
	if (pair_create(env, p, "m", mac_s, mac_r, IP4_SENDER, IP4_RESPONDER))
		return -1;
	err = pair_neigh_napi(p, mac_s, mac_r);
	for (int q = 0; q < queues; q++)
		err |= run_cmd(10, -1,
			       "ip netns exec %s sh -c "
			       "'echo %x > /sys/class/net/%s/queues/tx-%d/xps_cpus'",
			       p->ns_r, 1u << q, p->if_r, q);
	if (err)
		return fail("cannot set up the multi-queue veth pair");
	return pair_sink_attach(env, p);
}

struct gen_thread {
	struct bench_env *env;
	pthread_t tid;
	int *go; /* atomic: 1 once every generator exists (or the run stops) */
	int cpu, err;
	int done; /* atomic: the syscall returned */
	double t0;
};

/* One generator: pinned to its CPU, flat out until a signal ends it. */
static void *gen_thread_run(void *arg)
{
	struct gen_thread *t = arg;
	struct xdp_md ctx = {
		.data_end = t->env->req_len,
		.ingress_ifindex = t->env->mq.ifindex_s,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = t->env->req,
		    .data_size_in = t->env->req_len, .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		    .repeat = INT_MAX, /* ended by the signal long before */
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = GEN_BATCH, );

	t->err = pin_self_cpu(t->cpu) ? -EINVAL : 0;
	while (!__atomic_load_n(t->go, __ATOMIC_ACQUIRE))
		usleep(100);
	if (!t->err && !bench_stop) {
		t->t0 = now_s();
		t->err = bpf_prog_test_run_opts(bpf_program__fd(t->env->gen->progs.bench_gen),
						&opts);
	}
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Signal every generator until its syscall returns (one may not have
 * entered it at the first signal), then join them. */
static void gens_stop(struct gen_thread *th, int n)
{
	for (int tries = 0; tries < 2500; tries++) {
		int running = 0;

		for (int k = 0; k < n; k++) {
			if (__atomic_load_n(&th[k].done, __ATOMIC_ACQUIRE))
				continue;
			pthread_kill(th[k].tid, SIGALRM);
			running++;
		}
		if (!running)
			break;
		usleep(2000);
	}
	for (int k = 0; k < n; k++)
		pthread_join(th[k].tid, NULL);
}

struct mq_trial {
	double pps, cpu_pps[MQ_QUEUES_MAX];
	unsigned long long sent, replies;
	double misplaced; /* see struct mq_results */
};

/* |a - b| / d, 0 when d is 0. */
static double off_share(unsigned long long a, unsigned long long b, unsigned long long d)
{
	return d ? (a > b ? a - b : b - a) / (double)d : 0;
}

/* A trial's rates, and where its frames went (see struct mq_results). */
static void trial_sum(const struct cpu_counts *c, const unsigned long long *rxq, const double *secs,
		      int queues, struct mq_trial *out)
{
	unsigned long long on_queues = 0;

	out->sent = c->sent_all;
	out->replies = c->replies_all;
	for (int k = 0; k < queues; k++) {
		/* A queue without a generator must take nothing. */
		unsigned long long d = c->sent[k] ? c->sent[k] : c->sent_all;
		double m = off_share(rxq[k], c->sent[k], d);
		double r = off_share(c->replies[k], c->sent[k], d);

		out->cpu_pps[k] = c->replies[k] / secs[k];
		out->pps += out->cpu_pps[k];
		on_queues += c->replies[k];
		out->misplaced = m > out->misplaced ? m : out->misplaced;
		out->misplaced = r > out->misplaced ? r : out->misplaced;
	}
	/* Replies on a CPU beyond the queues (none expected): counted, and misplaced. */
	out->pps += (c->replies_all - on_queues) / secs[0];
	if (c->replies_all > on_queues && c->sent_all)
		out->misplaced += (double)(c->replies_all - on_queues) / c->sent_all;
}

/* active generators (CPUs 0..active-1) for ms. 0 or -1 (said). */
static int mq_trial(struct bench_env *env, int active, int queues, int ms, struct mq_trial *out)
{
	unsigned long long rxq0[MQ_QUEUES_MAX], rxq[MQ_QUEUES_MAX];
	struct gen_thread th[MQ_QUEUES_MAX];
	double secs[MQ_QUEUES_MAX], end;
	static struct cpu_counts c;
	struct timespec until;
	int n = 0, go = 0;

	memset(out, 0, sizeof(*out));
	if (veth_rxq_packets(env, rxq0, queues) || enter_ns(env->mq.nsfd_s) || counts_reset(env))
		return -1;
	env->gen->bss->gen_interval_ns = 0;
	sink_set_pass(env, false);
	for (; n < active; n++) {
		th[n] = (struct gen_thread){ .env = env, .go = &go, .cpu = n };
		if (pthread_create(&th[n].tid, NULL, gen_thread_run, &th[n]))
			break;
	}
	if (n < active) {
		fail("cannot start a generator thread");
		bench_stop = 1; /* the ones started end at once */
	}
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	/* One sleep, not a polling loop: CPU 0 runs a generator too. */
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (until.tv_nsec + ms % 1000 * 1000000L) / 1000000000L + ms / 1000;
	until.tv_nsec = (until.tv_nsec + ms % 1000 * 1000000L) % 1000000000L;
	while (!bench_stop &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
	end = now_s();
	gens_stop(th, n);
	usleep(DRAIN_US);
	sink_set_pass(env, true);
	if (bench_stop)
		return -1;
	for (int k = 0; k < active; k++) {
		if (th[k].err != -EINTR)
			return fail("generator on CPU %d: %s", k,
				    th[k].err ? strerror(-th[k].err) :
						"the live-frames run ended before the signal");
		secs[k] = end - th[k].t0;
	}
	for (int k = active; k < queues; k++)
		secs[k] = secs[0];
	if (counts_read(env, &c) || veth_rxq_packets(env, rxq, queues))
		return -1;
	for (int k = 0; k < queues; k++)
		rxq[k] -= rxq0[k];
	trial_sum(&c, rxq, secs, queues, out);
	dbg("mq trial, %d of %d queues: sent %llu, replies %llu, %.3f Mpps, misplaced %.4f", active,
	    queues, out->sent, out->replies, out->pps / 1e6, out->misplaced);
	return 0;
}

static void xdpong_add(struct xdpong_read *sum, const struct xdpong_read *a,
		       const struct xdpong_read *b)
{
	sum->replied += b->replied - a->replied;
	sum->tx_failed += b->tx_failed - a->tx_failed;
	sum->rate_limited += b->rate_limited - a->rate_limited;
	sum->global_limited += b->global_limited - a->global_limited;
}

/* One responder in one round: 1 queue and N, back to back, in an order
 * that alternates by round (drift over the round cancels out). */
static int mq_round(struct bench_env *env, int ri, int round, struct mq_results *res)
{
	const struct responder *r = &mq_responders[ri];
	struct xdpong_read x0, x1;
	struct mq_trial t;

	if (responder_attach(env, r) || gen_frame_set(env, r->stamp))
		return -1;
	usleep(20000);
	for (int i = 0; i < 2 && !bench_stop; i++) {
		int many = (round + i) % 2;

		if (r->kind == RESP_XDPONG && xdpong_counters(env, &x0))
			return -1;
		if (mq_trial(env, many ? res->queues : 1, res->queues, env->trial_ms, &t))
			return -1;
		if (r->kind == RESP_XDPONG) {
			if (xdpong_counters(env, &x1))
				return -1;
			xdpong_add(&res->xdp[ri], &x0, &x1);
			res->sink_replies[ri] += t.replies;
		}
		series_add(&res->pps[ri][many], t.pps);
		for (int k = 0; many && k < res->queues; k++)
			series_add(&res->cpu_pps[ri][k], t.cpu_pps[k]);
		if (t.misplaced > res->misplaced)
			res->misplaced = t.misplaced;
	}
	return responder_detach(env);
}

int mq_measure(struct bench_env *env, int rounds, struct mq_results *res)
{
	int queues = env->ncpus < MQ_QUEUES_MAX ? env->ncpus : MQ_QUEUES_MAX;
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (queues < 2) {
		say("one CPU online: skipping the multi-queue layout");
		return 0;
	}
	res->queues = queues;
	if (mq_net_setup(env, queues) || rate_init(env))
		return -1;
	env->rpair = &env->mq;
	for (int round = 0; round < rounds && !err && !bench_stop; round++) {
		say("layout mq (%d queues), round %d of %d", queues, round + 1, rounds);
		for (int ri = 0; ri < MQ_RESP_N && !err && !bench_stop; ri++)
			err = mq_round(env, ri, round, res);
	}
	if (env->attached)
		responder_detach(env);
	env->rpair = &env->net;
	pair_delete(env, &env->mq);
	res->measured = !err && !bench_stop;
	return res->measured ? 0 : -1;
}
