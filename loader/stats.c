// SPDX-License-Identifier: GPL-2.0
/* xdpong stats: counters by outcome and reason, the latency histogram. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader.h"
#include "xdpong.skel.h"

#define X_NAME(name, outcome, desc) #name,
const char *const reason_names[XDPONG_R_MAX] = { XDPONG_REASONS(X_NAME) };
#undef X_NAME
#define X_DESC(name, outcome, desc) desc,
const char *const reason_descs[XDPONG_R_MAX] = { XDPONG_REASONS(X_DESC) };
#undef X_DESC
#define X_OUTCOME(name, outcome, desc) XDPONG_##outcome,
const int reason_outcomes[XDPONG_R_MAX] = { XDPONG_REASONS(X_OUTCOME) };
#undef X_OUTCOME
const char *const outcome_names[3] = { "replied", "passed", "dropped" };

int snapshot_read(const struct attachment *a, struct snapshot *s)
{
	int ncpu = libbpf_num_possible_cpus();
	struct xdpong_counters *c;
	struct xdpong_latency *l;
	__u32 key = 0;
	int ret = 0;

	if (ncpu < 1)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &s->mono);
	clock_gettime(CLOCK_REALTIME, &s->wall);
	c = calloc(ncpu, sizeof(*c));
	l = calloc(ncpu, sizeof(*l));
	if (!c || !l) {
		ret = -ENOMEM;
		goto out;
	}
	if (bpf_map_lookup_elem(a->map_fd[MAP_STATS], &key, c) ||
	    bpf_map_lookup_elem(a->map_fd[MAP_LATENCY], &key, l)) {
		ret = -errno;
		goto out;
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		const __u64 *v = (const __u64 *)&c[cpu];

		for (int r = 0; r < XDPONG_R_MAX; r++)
			s->reason[r] += v[r];
		for (int i = 0; i < XDPONG_LAT_SLOTS; i++)
			s->slots[i] += l[cpu].slots[i];
		s->lat_sum_ns += l[cpu].sum_ns;
		s->lat_count += l[cpu].count;
	}
	for (int r = 0; r < XDPONG_R_MAX; r++) {
		s->outcome[reason_outcomes[r]] += s->reason[r];
		s->received += s->reason[r];
	}
out:
	free(c);
	free(l);
	return ret;
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/* A "count distribution" table with star bars, as bcc's tools print it. */
static void print_histogram(const struct snapshot *s, __u32 sample_every)
{
	int first = -1, last = -1;
	__u64 max = 0;

	printf("\nservice time of replies (1 packet in %u timed: %llu timed",
	       sample_every, (unsigned long long)s->lat_count);
	if (s->lat_count)
		printf(", mean %.0f ns", (double)s->lat_sum_ns / s->lat_count);
	printf(")\n");
	for (int i = 0; i < XDPONG_LAT_SLOTS; i++) {
		if (!s->slots[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (s->slots[i] > max)
			max = s->slots[i];
	}
	if (first < 0) {
		printf("  (nothing timed yet)\n");
		return;
	}
	printf("%24s : %-10s distribution\n", "ns", "count");
	for (int i = first; i <= last; i++) {
		unsigned long long lo = i ? 1ULL << i : 0, hi = (1ULL << (i + 1)) - 1;
		int stars = (int)(s->slots[i] * 40 / max);
		char range[48];

		snprintf(range, sizeof(range), "%llu -> %llu", lo, hi);
		printf("%24s : %-10llu |%-40.*s|\n", range,
		       (unsigned long long)s->slots[i], stars,
		       "****************************************");
	}
}

static void print_text(const struct attachment *a, const struct snapshot *s,
		       __u32 sample_every, bool all_reasons)
{
	printf("xdpong on %s (program id %u, %s mode), counted since attach\n",
	       a->ifname, a->prog_id, a->mode);
	printf("  %-22s %14llu\n", "received", (unsigned long long)s->received);
	for (int o = 0; o < 3; o++)
		printf("  %-22s %14llu\n", outcome_names[o],
		       (unsigned long long)s->outcome[o]);
	printf("\n  %-22s %14s  %s\n", "reason", "packets", "meaning");
	for (int r = 0; r < XDPONG_R_MAX; r++) {
		if (!s->reason[r] && !all_reasons)
			continue;
		printf("  %-22s %14llu  %s\n", reason_names[r],
		       (unsigned long long)s->reason[r], reason_descs[r]);
	}
	print_histogram(s, sample_every);
}

void stats_print_json(const struct attachment *a, const struct snapshot *s,
		       const struct snapshot *prev, __u32 sample_every)
{
	double dt = prev ? seconds_between(&prev->mono, &s->mono) : 0;

	printf("{\"time\":%.3f,\"iface\":", s->wall.tv_sec + s->wall.tv_nsec / 1e9);
	json_str(stdout, a->ifname);
	printf(",\"ifindex\":%d,\"prog_id\":%u,\"mode\":\"%s\"", a->ifindex,
	       a->prog_id, a->mode);
	printf(",\"received\":%llu", (unsigned long long)s->received);
	for (int o = 0; o < 3; o++)
		printf(",\"%s\":%llu", outcome_names[o],
		       (unsigned long long)s->outcome[o]);
	printf(",\"reasons\":{");
	for (int r = 0; r < XDPONG_R_MAX; r++)
		printf("%s\"%s\":%llu", r ? "," : "", reason_names[r],
		       (unsigned long long)s->reason[r]);
	printf("},\"latency\":{\"sample_every\":%u,\"count\":%llu,\"sum_ns\":%llu,\"slots\":[",
	       sample_every, (unsigned long long)s->lat_count,
	       (unsigned long long)s->lat_sum_ns);
	for (int i = 0; i < XDPONG_LAT_SLOTS; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)s->slots[i]);
	printf("]}");
	if (prev && dt > 0) {
		printf(",\"interval_s\":%.3f,\"rates\":{\"received\":%.1f", dt,
		       (s->received - prev->received) / dt);
		for (int o = 0; o < 3; o++)
			printf(",\"%s\":%.1f", outcome_names[o],
			       (s->outcome[o] - prev->outcome[o]) / dt);
		printf("}");
	}
	printf("}\n");
	fflush(stdout);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void stats_usage(FILE *f)
{
	fprintf(f,
		"Usage: xdpong stats IFACE [INTERVAL [COUNT]] [--json] [--all]\n"
		"       xdpong stats IFACE --prometheus\n"
		"\n"
		"Counters by outcome (replied, passed, dropped) and reason, and the\n"
		"log2 histogram of the program's service time for replies. With\n"
		"INTERVAL (seconds, may be fractional), prints per-second rates every\n"
		"INTERVAL, COUNT times (default: until Ctrl-C), then the summary.\n"
		"The maps are found through the program attached to IFACE, so this\n"
		"works inside 'ip netns exec' too.\n"
		"\n"
		"Options:\n"
		"  -j, --json     one JSON object per sample, one per line\n"
		"  -a, --all      list reasons that are still zero too\n"
		"  -p, --prometheus\n"
		"                 one sample in the Prometheus text format (for the\n"
		"                 node_exporter textfile collector see 'xdpong run\n"
		"                 --metrics-file')\n"
		"\n"
		"Examples:\n"
		"  xdpong stats eth0\n"
		"  xdpong stats eth0 1 10\n"
		"  xdpong stats eth0 --json | jq .replied\n"
		"  xdpong stats eth0 --prometheus | promtool check metrics\n");
}

int cmd_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct snapshot cur, prev;
	struct xdpong_bpf__rodata ro;
	struct attachment a;
	struct link_info li;
	unsigned long long count = 0, n = 0;
	double interval = 0;
	bool json = false, all = false, prom = false;
	const char *ifname;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jvaph", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'a':
			all = true;
			break;
		case 'p':
			prom = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			stats_usage(stdout);
			return 0;
		default:
			err("unknown option '%s' (see 'xdpong stats --help')",
			    argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		err("missing interface (usage: xdpong stats IFACE [INTERVAL [COUNT]])");
		return EXIT_USAGE;
	}
	ifname = argv[optind++];
	if (optind < argc) {
		char *end;

		errno = 0;
		interval = strtod(argv[optind], &end);
		if (errno || *end || !(interval >= 0.01 && interval <= 86400)) {
			err("invalid interval '%s' (expected seconds, 0.01 to 86400)",
			    argv[optind]);
			return EXIT_USAGE;
		}
		optind++;
	}
	if (optind < argc) {
		if (parse_u64(argv[optind], 1, ~0ULL, &count)) {
			err("invalid count '%s' (expected a positive number)", argv[optind]);
			return EXIT_USAGE;
		}
		optind++;
	}
	if (optind < argc) {
		err("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (prom && (json || interval)) {
		err("--prometheus prints one sample and takes no --json or INTERVAL (for a file rewritten every interval: xdpong run %s --metrics-file PATH)",
		    ifname);
		return EXIT_USAGE;
	}
	if (attachment_open(ifname, &li, &a))
		return 1;
	rodata_read(&a, &ro);
	ret = snapshot_read(&a, &cur);
	if (ret) {
		err("cannot read the counters of %s: %s", li.name, strerror(-ret));
		goto out;
	}
	if (!interval) {
		if (prom)
			ret = prom_print(stdout, &a, &cur) || fflush(stdout) ? -EIO : 0;
		else if (json)
			stats_print_json(&a, &cur, NULL, ro.cfg_latency_sample);
		else
			print_text(&a, &cur, ro.cfg_latency_sample, all);
		goto out;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!json)
		printf("%-8s %12s %12s %12s %12s   (per second, %s)\n", "time",
		       "received", "replied", "passed", "dropped", li.name);
	while (!stop && (!count || n < count)) {
		struct timespec ts = {
			.tv_sec = (time_t)interval,
			.tv_nsec = (long)((interval - floor(interval)) * 1e9),
		};
		double dt;

		prev = cur;
		while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
			;
		if (stop)
			break;
		ret = snapshot_read(&a, &cur);
		if (ret) {
			err("%s: cannot read the counters (detached?): %s", li.name,
			    strerror(-ret));
			goto out;
		}
		n++;
		if (json) {
			stats_print_json(&a, &cur, &prev, ro.cfg_latency_sample);
			continue;
		}
		dt = seconds_between(&prev.mono, &cur.mono);
		{
			char tbuf[16];
			struct tm tm;

			localtime_r(&cur.wall.tv_sec, &tm);
			strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
			printf("%-8s %12.0f", tbuf, (cur.received - prev.received) / dt);
		}
		for (int o = 0; o < 3; o++)
			printf(" %12.0f", (cur.outcome[o] - prev.outcome[o]) / dt);
		printf("\n");
		fflush(stdout);
	}
	if (!json) {
		printf("\n");
		print_text(&a, &cur, ro.cfg_latency_sample, all);
	}
	ret = 0;
out:
	attachment_close(&a);
	return ret ? 1 : 0;
}
