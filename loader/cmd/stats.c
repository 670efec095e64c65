// SPDX-License-Identifier: GPL-2.0
/* xdpong stats: counters by outcome and reason, the latency histogram. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "xdpong.skel.h"

/* A "count distribution" table with star bars, as bcc's tools print it. */
static void print_histogram(const struct snapshot *s, __u32 sample_every)
{
	int first = -1, last = -1;
	__u64 max = 0;

	printf("\nservice time of replies (1 packet in %u timed%s: %llu timed", sample_every,
	       sample_every > 1 ? ", at most one a tick per CPU" : "",
	       (unsigned long long)s->lat_count);
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
		printf("%24s : %-10llu |%-40.*s|\n", range, (unsigned long long)s->slots[i], stars,
		       "****************************************");
	}
}

static void print_text(const struct attachment *a, const struct snapshot *s, __u32 sample_every,
		       bool all_reasons)
{
	printf("xdpong on %s (program id %u, %s mode), counted since attach\n", a->li.name,
	       a->prog_id, a->mode);
	printf("  %-22s %14llu\n", "received", (unsigned long long)s->received);
	for (int o = 0; o < 3; o++)
		printf("  %-22s %14llu\n", outcome_names[o], (unsigned long long)s->outcome[o]);
	if (s->tx_watch != -ENOENT)
		printf("  %-22s %14llu  of the replied, not sent by the driver%s\n", "tx_failed",
		       (unsigned long long)s->tx_failed,
		       s->tx_watch == TXWATCH_LINKS ? "" :
						      " (not being counted: see xdpong status)");
	printf("\n  %-22s %14s  %s\n", "reason", "packets", "meaning");
	for (int r = 0; r < XDPONG_R_MAX; r++) {
		if (!s->reason[r] && !all_reasons)
			continue;
		printf("  %-22s %14llu  %s\n", reason_names[r], (unsigned long long)s->reason[r],
		       reason_descs[r]);
	}
	for (int i = 0; i < s->n_extra; i++)
		printf("  %-22s %14llu  %s (a reason of the attached build, not this one's)\n",
		       s->extra_name[i], (unsigned long long)s->extra[i],
		       outcome_names[s->extra_outcome[i]]);
	print_histogram(s, sample_every);
}

/* One line of per-second rates between two samples. */
static void print_rates(const struct snapshot *prev, const struct snapshot *cur)
{
	double dt = seconds_between(&prev->mono, &cur->mono);
	char tbuf[16];
	struct tm tm;

	localtime_r(&cur->wall.tv_sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
	printf("%-8s %12.0f", tbuf, (cur->received - prev->received) / dt);
	for (int o = 0; o < 3; o++)
		printf(" %12.0f", (cur->outcome[o] - prev->outcome[o]) / dt);
	printf("\n");
	fflush(stdout);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int stats_main(const struct opts *o)
{
	const char *ifname = o->args[0];
	struct snapshot cur, prev;
	struct xdpong_bpf__rodata ro;
	struct attachment a;
	unsigned long long count = 0, n = 0;
	double interval = 0;
	bool json = o->json, all = o->all, prom = o->prometheus;
	int ret;

	if (o->n_args > 1 && parse_seconds(o->args[1], 0.01, 86400, &interval)) {
		log_error("invalid INTERVAL '%s': expected seconds, 0.01 to 86400", o->args[1]);
		return EXIT_USAGE;
	}
	if (o->n_args > 2 && parse_u64(o->args[2], 1, ~0ULL, &count)) {
		log_error("invalid COUNT '%s': expected a whole number from 1", o->args[2]);
		return EXIT_USAGE;
	}
	if (prom && (json || interval)) {
		log_error("--prometheus prints one sample and takes no --json or INTERVAL (for a "
			  "file rewritten every interval: xdpong run %s --metrics-file PATH)",
			  ifname);
		return EXIT_USAGE;
	}
	if (attachment_open(ifname, &a))
		return 1;
	rodata_read(&a, &ro);
	ret = snapshot_read(&a, &cur);
	if (ret) {
		log_error("cannot read the counters of %s: %s", a.li.name, strerror(-ret));
		goto out;
	}
	if (!interval) {
		if (prom)
			ret = prom_print(stdout, &a, &cur) || fflush(stdout) ? -EIO : 0;
		else if (json)
			ret = json_print(stdout, json_stats(&a, &cur, NULL, ro.cfg_latency_sample));
		else
			print_text(&a, &cur, ro.cfg_latency_sample, all);
		goto out;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!json)
		printf("%-8s %12s %12s %12s %12s   (per second, %s)\n", "time", "received",
		       "replied", "passed", "dropped", a.li.name);
	while (!stop && (!count || n < count)) {
		struct timespec ts = {
			.tv_sec = (time_t)interval,
			.tv_nsec = (long)((interval - floor(interval)) * 1e9),
		};

		prev = cur;
		while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
			;
		if (stop)
			break;
		ret = snapshot_read(&a, &cur);
		if (ret) {
			log_error("%s: cannot read the counters (detached?): %s", a.li.name,
				  strerror(-ret));
			goto out;
		}
		n++;
		if (json) {
			if (json_print(stdout, json_stats(&a, &cur, &prev, ro.cfg_latency_sample)))
				break;
			continue;
		}
		print_rates(&prev, &cur);
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

const struct cmd_def cmd_stats = {
	.id = CMD_STATS,
	.name = "stats",
	.synopsis = "IFACE [INTERVAL [COUNT]] [--json] [--all] | IFACE --prometheus",
	.min_args = 1,
	.max_args = 3,
	.iface_arg = true,
	.summary = "counters by outcome and reason, latency histogram",
	.description = "Counters by outcome (replied, passed, dropped) and reason, and the\n"
		       "log2 histogram of the program's service time for replies. With\n"
		       "INTERVAL (decimal seconds, may be fractional), prints per-second rates\n"
		       "every INTERVAL, COUNT times (default: until Ctrl-C), then the summary.\n"
		       "The maps are found through the program attached to IFACE, so this\n"
		       "works inside 'ip netns exec' too. For the node_exporter textfile\n"
		       "collector see 'xdpong run --metrics-file'.",
	.examples = "  xdpong stats eth0\n"
		    "  xdpong stats eth0 1 10\n"
		    "  xdpong stats eth0 --json | jq .replied\n"
		    "  xdpong stats eth0 --prometheus | promtool check metrics\n",
	.run = stats_main,
};
