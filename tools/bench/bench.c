// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong-bench: xdpong against the kernel, a bare reflector and (when it
 * exists) the user-space TUN stack, on a veth pair between two network
 * namespaces. Prints one table (or --json); method in tools/bench/README.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "driver.h"
#include "util.h"
#include "report.h"
#include "gen.skel.h"
#include "sink.skel.h"
#include "reflect.skel.h"

static void on_stop(int sig)
{
	(void)sig;
	bench_stop = 1;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !bench_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xdpong-bench [options]\n"
		"  --json               machine-readable results on stdout (no table)\n"
		"  --trials N           trials per figure, 3..%d (default 3; costs: N + 2)\n"
		"  --latency-sample N   N of the sampled latency row (default %d)\n"
		"  --layout LIST        CPU layouts to run, comma-separated: one, two, mq\n"
		"                       (one queue per CPU), both (one,two), all (default)\n"
		"  --only PART          run only PART: cost (the test-run costs), echo\n"
		"                       (of those, the floor, the bare and the checking\n"
		"                       reflector and xdpong's echo: a quick comparison),\n"
		"                       net (the veth part) or tput (TCP throughput, iperf3)\n"
		"  --xdpong PATH        the loader (default build/xdpong)\n"
		"  --out DIR            data files and results.json (default build/bench)\n"
		"  --id ID              suffix of namespace and interface names (digits)\n"
		"  --hold NAME[:S]      only run responder NAME flat out for S seconds\n"
		"                       (default 5), for a profiler: see README\n"
		"  -v                   verbose: every command and trial\n"
		"Run as root from the repository, or through `make bench [ARGS=...]`.\n"
		"EXAMPLES\n"
		"  make bench\n"
		"  make bench ARGS='--json'\n"
		"  build/bench/xdpong-bench --layout one --trials 5\n"
		"  perf record -e cpu-clock -C 0 -g -- build/bench/xdpong-bench --hold "
		"xdpong-native:5\n",
		TRIALS_MAX - 2, DEFAULT_LATENCY_SAMPLE);
}

static bool tun_stack_available(const char **path)
{
	/* Hook for tools/tun-stack, the user-space responder behind a TUN
	 * device (tools/tun/README.md): see rtt_tun_stack() in README. */
	static const char *const candidates[] = { "build/tun-stack", "build/tools/tun-stack" };

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (!access(candidates[i], X_OK)) {
			*path = candidates[i];
			return true;
		}
	}
	return false;
}

/* The flat-out trial's residence times, sampled by the sink (res_start). */
static int res_keep(struct bench_env *env, struct resp_result *rr)
{
	double p50, p99;

	if (res_read(env, &p50, &p99))
		return fail("no STAMP reply reported T2 and T3");
	series_add(&rr->res_p50, p50);
	series_add(&rr->res_p99, p99);
	return 0;
}

/* One configuration, one round: max rate, zero-loss rate, RTT. */
static int measure_one(struct bench_env *env, int ri, struct resp_result *rr, int round)
{
	const struct responder *r = &responders[ri];
	struct xdpong_read xdp_before = { 0 }, xdp_after = { 0 };
	struct rate_trial max, zl, peak;
	struct rtt_trial rtt;

	if (r->kind == RESP_TUN_STACK && responder_attach(env, r)) {
		/* A tool of tools/tun/, not xdpong: its failure must not sink the run. */
		responder_detach(env);
		env->tun_stack = false;
		say("tun-stack does not answer: its RTT row is left out");
		return 0;
	}
	if ((r->kind != RESP_TUN_STACK && responder_attach(env, r)) ||
	    layout_apply(env, env->layout) || gen_frame_set(env, r->stamp))
		return -1;
	usleep(20000);
	if (r->kind == RESP_XDPONG && round == 0 && xdpong_counters(env, &xdp_before))
		return -1;
	if (r->rate) {
		if (r->stamp)
			res_start(env);
		if (rate_trial(env, 0, env->trial_ms, &max) || (r->stamp && res_keep(env, rr)))
			return -1;
		series_add(&rr->max_offered, max.offered_pps);
		/* Nothing lost flat out across CPUs: the generator was the limit. */
		if (env->layout == LAYOUT_TWO_CPU && max.replies == max.sent)
			rr->generator_bound++;
		if (max.sent)
			series_add(&rr->max_loss, 1.0 - (double)max.replies / max.sent);
		if (r->kind == RESP_XDPONG && round == 0) {
			/* The replies must have come from xdpong, not the kernel. */
			if (xdpong_counters(env, &xdp_after))
				return -1;
			rr->xdp_replied = xdp_after.replied - xdp_before.replied;
			rr->sink_replied = max.replies;
			if (rr->xdp_replied < max.replies)
				return fail("%s: xdpong replied %llu, the sink saw %llu", r->name,
					    rr->xdp_replied, max.replies);
		}
		if (zero_loss_search(env, &max, env->step_ms, env->trial_ms, &zl, &peak))
			return -1;
		series_add(&rr->max_pps, peak.answered_pps);
		series_add(&rr->zero_pps, zl.answered_pps);
	}
	if (r->rtt) {
		if (rtt_trial(env, env->net.nsfd_s,
			      r->kind == RESP_TUN_STACK ? IP4_TUN_PEER : IP4_RESPONDER, env->probes,
			      env->probe_gap_us, &rtt))
			return -1;
		series_add(&rr->rtt[RTT_P50], rtt.p50_us);
		series_add(&rr->rtt[RTT_P90], rtt.p90_us);
		series_add(&rr->rtt[RTT_P99], rtt.p99_us);
		series_add(&rr->rtt[RTT_MAX], rtt.max_us);
		rr->rtt_lost += rtt.lost;
		rr->rtt_kernel_stamps = rtt.kernel_stamps;
	}
	rr->measured = true;
	return responder_detach(env);
}

/* --hold: one responder, flat out, for a profiler to watch. */
static int hold(struct bench_env *env, const char *name, int seconds)
{
	enum layout l = env->layouts & (1 << LAYOUT_ONE_CPU) ? LAYOUT_ONE_CPU : LAYOUT_TWO_CPU;
	struct rate_trial t;
	int ri;

	for (ri = 0; ri < NRESP; ri++)
		if (!strcmp(responders[ri].name, name) && responders[ri].rate)
			break;
	if (ri == NRESP)
		return fail("--hold: no responder with a rate called %s", name);
	if (net_setup(env) || rate_init(env))
		return -1;
	env->layout = l;
	if (responder_attach(env, &responders[ri]) || layout_apply(env, l) ||
	    gen_frame_set(env, responders[ri].stamp))
		return -1;
	say("holding %s (%s) flat out for %d s", name, layout_name[l], seconds);
	if (rate_trial(env, 0, seconds * 1000, &t))
		return -1;
	printf("%s %s: offered %.3f Mpps, answered %.3f Mpps over %.1f s\n", name, layout_name[l],
	       t.offered_pps / 1e6, t.answered_pps / 1e6, t.seconds);
	return 0;
}

static int measure_net(struct bench_env *env, struct bench_results *res)
{
	if (!(env->layouts & ((1 << LAYOUT_ONE_CPU) | (1 << LAYOUT_TWO_CPU))))
		return 0;
	if (net_setup(env) || rate_init(env))
		return -1;
	for (int l = 0; l < LAYOUT_N && !bench_stop; l++) {
		if (!(env->layouts & (1 << l)))
			continue;
		if (l == LAYOUT_TWO_CPU && env->ncpus < 2) {
			say("one CPU online: skipping the two-cpu layout");
			continue;
		}
		env->layout = l;
		for (int round = 0; round < env->trials && !bench_stop; round++) {
			say("layout %s, round %d of %d", layout_name[l], round + 1, env->trials);
			for (int ri = 0; ri < NRESP && !bench_stop; ri++) {
				if (ri == R_TUN_STACK && !env->tun_stack)
					continue;
				if (measure_one(env, ri, &res->r[l][ri], round))
					return -1;
			}
		}
		res->layout_done[l] = true;
	}
	return bench_stop ? -1 : 0;
}

static void machine_info(struct bench_results *res)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	time_t t = time(NULL);

	snprintf(res->cpu, sizeof(res->cpu), "unknown CPU");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && p) {
			snprintf(res->cpu, sizeof(res->cpu), "%s", p + 2);
			res->cpu[strcspn(res->cpu, "\n")] = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/sys/kernel/osrelease", "r");
	if (f && fgets(res->kernel, sizeof(res->kernel), f))
		res->kernel[strcspn(res->kernel, "\n")] = 0;
	if (f)
		fclose(f);
	strftime(res->date, sizeof(res->date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	res->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/* The command line, beyond what struct bench_env keeps. */
struct bench_opts {
	bool json, do_cost, do_net, do_tput;
	bool cost_brief; /* --only echo: the echo ratios' four rows */
	const char *out_dir, *hold_name;
	int hold_s;
};

static void env_defaults(struct bench_env *env)
{
	env->trials = 3;
	env->sample_n = DEFAULT_LATENCY_SAMPLE;
	env->layouts = (1 << LAYOUT_ONE_CPU) | (1 << LAYOUT_TWO_CPU) | LAYOUT_MQ_BIT;
	env->xdpong_bin = "build/xdpong";
	env->net.nsfd_s = env->net.nsfd_r = env->nsfd_orig = -1;
	env->mq.nsfd_s = env->mq.nsfd_r = -1;
	env->rpair = &env->net;
	env->trial_ms = 400;
	env->step_ms = 150;
	env->probes = 1000;
	env->probe_gap_us = 20;
	snprintf(env->id, sizeof(env->id), "%d", getpid() % 100000);
}

/* --layout LIST: one, two, mq, both (one,two), all; comma-separated. 0 or -1 (said). */
static int layout_parse(const char *arg, unsigned int *layouts)
{
	static const struct {
		const char *name;
		unsigned int bits;
	} names[] = {
		{ "one", 1 << LAYOUT_ONE_CPU },
		{ "two", 1 << LAYOUT_TWO_CPU },
		{ "mq", LAYOUT_MQ_BIT },
		{ "both", (1 << LAYOUT_ONE_CPU) | (1 << LAYOUT_TWO_CPU) },
		{ "all", (1 << LAYOUT_ONE_CPU) | (1 << LAYOUT_TWO_CPU) | LAYOUT_MQ_BIT },
	};
	const char *p = arg;

	*layouts = 0;
	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(p, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return fail("--layout: a list of one, two, mq, both, all");
		*layouts |= names[i].bits;
		p += len + (p[len] == ',');
	}
	return *layouts ? 0 : fail("--layout: a list of one, two, mq, both, all");
}

/* --only cost|echo|net|tput. 0 or -1 (said). */
static int only_parse(const char *arg, struct bench_opts *o)
{
	o->cost_brief = !strcmp(arg, "echo");
	o->do_cost = o->cost_brief || !strcmp(arg, "cost");
	o->do_net = !strcmp(arg, "net");
	o->do_tput = !strcmp(arg, "tput");
	if (!o->do_cost && !o->do_net && !o->do_tput)
		return fail("--only cost|echo|net|tput");
	return 0;
}

/* --hold NAME[:SECONDS] (arg is cut at the colon). 0 or -1 (said). */
static int hold_parse(char *arg, struct bench_opts *o)
{
	char *colon = strchr(arg, ':');

	o->hold_name = arg;
	if (colon) {
		*colon = 0;
		o->hold_s = atoi(colon + 1);
	}
	if (o->hold_s < 1 || o->hold_s > 60)
		return fail("--hold NAME[:SECONDS], 1..60 s");
	return 0;
}

/* 1. The options. -1 to go on, else main's exit code. */
static int args_parse(int argc, char **argv, struct bench_env *env, struct bench_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "trials", required_argument, NULL, 't' },
		{ "latency-sample", required_argument, NULL, 'L' },
		{ "layout", required_argument, NULL, 'l' },
		{ "only", required_argument, NULL, 'o' },
		{ "xdpong", required_argument, NULL, 'x' },
		{ "out", required_argument, NULL, 'O' },
		{ "id", required_argument, NULL, 'i' },
		{ "hold", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			o->json = true;
			break;
		case 't':
			env->trials = atoi(optarg);
			if (env->trials < 3 || env->trials > TRIALS_MAX - 2) {
				fail("--trials must be 3..%d", TRIALS_MAX - 2);
				return 2;
			}
			break;
		case 'L':
			env->sample_n = atoi(optarg);
			if (env->sample_n < 1) {
				fail("--latency-sample must be at least 1");
				return 2;
			}
			break;
		case 'l':
			if (layout_parse(optarg, &env->layouts))
				return 2;
			break;
		case 'o':
			if (only_parse(optarg, o))
				return 2;
			break;
		case 'x':
			env->xdpong_bin = optarg;
			break;
		case 'O':
			o->out_dir = optarg;
			break;
		case 'i':
			if (strlen(optarg) > 6 || strspn(optarg, "0123456789") != strlen(optarg)) {
				fail("--id: up to 6 digits");
				return 2;
			}
			snprintf(env->id, sizeof(env->id), "%s", optarg);
			break;
		case 'v':
			bench_verbose = 1;
			break;
		case 'H':
			if (hold_parse(optarg, o))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	return -1;
}

/* The responder's MAC and address, which the checking reflector answers. */
static void reflect_ours(struct reflect_bpf *rf)
{
	static const __u8 mac[6] = MAC_RESPONDER;
	__u64 word = 0;

	memcpy(&word, mac, sizeof(mac));
	rf->bss->check_mac = word;
	inet_pton(AF_INET, IP4_RESPONDER, (void *)&rf->bss->check_addr4);
}

/*
 * 2. Signals, the machine, and the bench's own BPF programs loaded. 0 or
 * -1; what it got this far is undone by main's teardown either way.
 */
static int bench_setup(struct bench_env *env, struct bench_results *res)
{
	libbpf_set_print(libbpf_quiet);
	cli_stop_signals(on_stop);
	/* A closed pipe (`| head`) must not kill us before the teardown. */
	signal(SIGPIPE, SIG_IGN);
	env->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	env->tun_stack = tun_stack_available(&env->tun_stack_bin);
	env->nsfd_orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	machine_info(res);
	res->trials = env->trials;
	res->cost_trials = env->trials + 2;
	res->latency_sample = env->sample_n;
	env->loader_default = res->loader_default = xdpong_latency_default(env);
	/* Generator, prober and test runs on CPU 0; the responder's place
	 * is what the layout decides. Nice -20: other processes on a shared
	 * machine take less from the trials. */
	if (pin_self_cpu(0))
		return -1;
	if (setpriority(PRIO_PROCESS, 0, -20))
		say("cannot raise priority: %s", strerror(errno));

	env->gen = gen_bpf__open_and_load();
	env->sink = sink_bpf__open_and_load();
	env->reflect = reflect_bpf__open_and_load();
	if (!env->gen || !env->sink || !env->reflect)
		return fail("cannot load the bench's BPF programs");
	reflect_ours(env->reflect);
	return 0;
}

/* Seconds of rest between the network parts and the last cost part. */
#define COST_SETTLE_S 3
/*
 * The last cost part is compared with the first only on a machine as fast
 * as it was then, and the XDP_PASS floor, which does nothing, says how fast
 * that is. These machines have slow phases of minutes in which every
 * program runs up to twice as long, and not all by the same factor, so a
 * ratio taken in one is not the ratio of a steady machine. Where the floor is
 * more than COST_FLOOR_PCT off its first reading, the parts are timed
 * again (cost_again), COST_END_TRIES times in all at most (report.h); the
 * report says how many it took.
 */
#define COST_END_WAIT_S 10

/*
 * The echo ratios again, at the speed of the first cost part. Where the
 * floor reads slower than at first, the machine is in a slow phase now:
 * wait and time the echo ratios again. Where it reads faster, the first
 * part ran in one: time the whole first part again. 0 or -1.
 */
static int cost_again(struct bench_env *env, struct bench_results *res)
{
	for (int t = 0; t < COST_END_TRIES && !bench_stop; t++) {
		double d = t ? cost_floor_drift_pct(res) : 0;

		if (d > 0) {
			say("the floor reads %+.0f%% from the first cost part's: a slow phase; "
			    "again in %d s",
			    d, COST_END_WAIT_S);
			sleep(COST_END_WAIT_S);
		} else if (d < 0) {
			say("the floor reads %+.0f%% from the first cost part's: the first ran in "
			    "a slow phase; timing it again",
			    d);
			if (cost_measure(env, env->trials + 2, false, &res->cost))
				return -1;
		}
		if (cost_measure(env, env->trials + 2, true, &res->cost_end))
			return -1;
		res->cost_end_tries = t + 1;
		if (fabs(cost_floor_drift_pct(res)) <= COST_FLOOR_PCT)
			break;
	}
	if (bench_stop)
		return -1;
	res->cost_end_done = true;
	return 0;
}

/* 3. The parts --only leaves in: costs, the veth part, TCP throughput. 0 or -1. */
static int measure_all(struct bench_env *env, struct bench_results *res, const struct bench_opts *o)
{
	if (o->do_cost) {
		say("cost per packet (BPF_PROG_TEST_RUN)");
		/* Cheap, and the most exposed to other load: two more trials. */
		if (cost_measure(env, env->trials + 2, o->cost_brief, &res->cost))
			return -1;
		res->cost_done = true;
	}
	if (o->do_net && measure_net(env, res))
		return -1;
	if (o->do_net && (env->layouts & LAYOUT_MQ_BIT)) {
		/* Cheap (no zero-loss search, no RTT) and noisy: two more rounds. */
		if (mq_measure(env, env->trials + 2, &res->mq))
			return -1;
	}
	if (o->do_tput) {
		say("TCP throughput through a veth pair (iperf3)");
		/* Per-round ratios spread widely over 2 s of iperf3: two
		 * more rounds than the other parts, as for the costs. */
		if (tput_measure(env, env->trials + 2, &res->tput))
			return -1;
		res->tput_done = res->tput.measured;
	}
	if (o->do_cost && (o->do_net || o->do_tput)) {
		/* The echo ratios again after the rest: the same figures, or
		 * what ran before changes them (README, stable figures). */
		say("cost per packet again, after the rest (echo ratios)");
		/* Nothing of the rest left: its namespaces gone, their
		 * cleanup and the CPUs' load settled (README). */
		net_teardown(env);
		sleep(COST_SETTLE_S);
		if (cost_again(env, res))
			return -1;
	}
	return 0;
}

/* 4. The verdicts on the targets, printed and written to --out. */
static void results_report(struct bench_results *res, const struct bench_opts *o)
{
	mkdir(o->out_dir, 0755);
	evaluate_targets(res);
	if (o->json)
		print_json(stdout, res);
	else
		print_table(stdout, res);
	write_results(o->out_dir, res);
}

int main(int argc, char **argv)
{
	static struct bench_results res;
	static struct bench_env env;
	struct bench_opts o = {
		.do_cost = true,
		.do_net = true,
		.do_tput = true,
		.out_dir = "build/bench",
		.hold_s = 5,
	};
	double t0 = now_s();
	int rc;

	env_defaults(&env);
	rc = args_parse(argc, argv, &env, &o);
	if (rc >= 0)
		return rc;
	if (geteuid()) {
		fail("must run as root (network namespaces, BPF)");
		return 1;
	}
	if ((o.do_net || o.do_tput) && access(env.xdpong_bin, X_OK)) {
		fail("%s not found: run `make` first", env.xdpong_bin);
		return 1;
	}
	rc = 1;
	if (bench_setup(&env, &res))
		goto out;
	if (o.hold_name) {
		rc = hold(&env, o.hold_name, o.hold_s) ? 1 : 0;
		net_teardown(&env);
		goto done;
	}
	if (measure_all(&env, &res, &o))
		goto out;
	rc = 0;
out:
	net_teardown(&env);
	res.elapsed_s = now_s() - t0;
	if (!rc)
		results_report(&res, &o);
	else if (bench_stop)
		fail("interrupted");
done:
	reflect_bpf__destroy(env.reflect);
	sink_bpf__destroy(env.sink);
	gen_bpf__destroy(env.gen);
	return rc;
}
