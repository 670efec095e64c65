// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition format (version 0.0.4) for `stats
 * --prometheus` and `run --metrics-file`, the node_exporter textfile
 * collector's input. Every series is written on every sample, zeros too,
 * so rate() sees a counter from its first scrape.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "loader.h"
#include "xdpong.skel.h"

/* A label value: backslash, double quote and newline escaped. */
static void prom_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Nanoseconds as exact decimal seconds: no float rounding in le or _sum. */
static void prom_seconds(FILE *f, unsigned long long ns)
{
	char frac[16];
	int n;

	n = snprintf(frac, sizeof(frac), "%09llu", ns % 1000000000ULL);
	while (n > 1 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(f, "%llu.%s", ns / 1000000000ULL, frac);
}

static void prom_head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void prom_iface(FILE *f, const char *name, const struct attachment *a)
{
	fprintf(f, "%s{iface=", name);
	prom_label(f, a->ifname);
}

struct addr_count {
	unsigned long long n4, n6;
};

static int count_cb(const struct prefix *p, __u32 origin, void *arg)
{
	struct addr_count *c = arg;

	(void)origin;
	if (p->family == AF_INET)
		c->n4++;
	else
		c->n6++;
	return 0;
}

int prom_print(FILE *f, const struct attachment *a, const struct snapshot *s)
{
	struct xdpong_bpf__rodata ro;
	struct xdpong_bpf__bss bss = { 0 };
	struct addr_count ac = { 0 };
	unsigned long long cum = 0, bound;
	__u32 key = 0;

	rodata_read(a, &ro);
	bpf_map_lookup_elem(a->map_fd[MAP_BSS], &key, &bss);
	addr_map_walk(a->map_fd[MAP_ADDR4], a->map_fd[MAP_ADDR6], count_cb, &ac);

	prom_head(f, "xdpong_info", "gauge",
		  "xdpong attached to an interface: program id, XDP mode and framing (value always 1).");
	prom_iface(f, "xdpong_info", a);
	fprintf(f, ",mode=\"%s\",prog_id=\"%u\",framing=\"%s\",version=\"%s\"} 1\n",
		a->mode, a->prog_id,
		ro.cfg_framing == XDPONG_FRAMING_IP ? "ip" : "ethernet", XDPONG_VERSION);

	prom_head(f, "xdpong_packets_total", "counter",
		  "Packets the XDP program decided on, by result (replied, passed, dropped) and reason, since attach.");
	for (int r = 0; r < XDPONG_R_MAX; r++) {
		prom_iface(f, "xdpong_packets_total", a);
		fprintf(f, ",result=\"%s\",reason=\"%s\"} %llu\n",
			outcome_names[reason_outcomes[r]], reason_names[r],
			(unsigned long long)s->reason[r]);
	}

	/*
	 * slots[i] holds integer ns in [2^i, 2^(i+1)), so its inclusive upper
	 * bound is 2^(i+1) - 1 ns; the last slot also takes everything longer.
	 */
	prom_head(f, "xdpong_service_time_seconds", "histogram",
		  "Time from program entry to verdict for the replies that were timed (1 in sample_every).");
	for (int i = 0; i < XDPONG_LAT_SLOTS - 1; i++) {
		cum += s->slots[i];
		bound = (1ULL << (i + 1)) - 1;
		prom_iface(f, "xdpong_service_time_seconds_bucket", a);
		fprintf(f, ",le=\"");
		prom_seconds(f, bound);
		fprintf(f, "\"} %llu\n", cum);
	}
	/* _count equals +Inf by definition: both from the slots read together. */
	cum += s->slots[XDPONG_LAT_SLOTS - 1];
	prom_iface(f, "xdpong_service_time_seconds_bucket", a);
	fprintf(f, ",le=\"+Inf\"} %llu\n", cum);
	prom_iface(f, "xdpong_service_time_seconds_sum", a);
	fprintf(f, "} ");
	prom_seconds(f, s->lat_sum_ns);
	fprintf(f, "\n");
	prom_iface(f, "xdpong_service_time_seconds_count", a);
	fprintf(f, "} %llu\n", cum);

	prom_head(f, "xdpong_latency_sample_every", "gauge",
		  "One reply in this many is timed for the histogram; 0 means timing is off.");
	prom_iface(f, "xdpong_latency_sample_every", a);
	fprintf(f, "} %u\n", ro.cfg_latency_sample);

	prom_head(f, "xdpong_rate_limit_replies_per_second", "gauge",
		  "Configured reply rate limit, per source (IPv4 /32, IPv6 /64) or global; 0 means no limit.");
	prom_iface(f, "xdpong_rate_limit_replies_per_second", a);
	fprintf(f, ",scope=\"source\"} %llu\n",
		ro.cfg_rate_cost_ns ? 1000000000ULL / ro.cfg_rate_cost_ns : 0);
	prom_iface(f, "xdpong_rate_limit_replies_per_second", a);
	fprintf(f, ",scope=\"global\"} %llu\n",
		ro.cfg_global_cost_ns ? 1000000000ULL / ro.cfg_global_cost_ns : 0);

	prom_head(f, "xdpong_answered_prefixes", "gauge",
		  "Prefixes in the address maps xdpong answers for, by IP family.");
	prom_iface(f, "xdpong_answered_prefixes", a);
	fprintf(f, ",family=\"ipv4\"} %llu\n", ac.n4);
	prom_iface(f, "xdpong_answered_prefixes", a);
	fprintf(f, ",family=\"ipv6\"} %llu\n", ac.n6);

	prom_head(f, "xdpong_trace_lost_events_total", "counter",
		  "Trace events dropped because the trace ring buffer was full.");
	prom_iface(f, "xdpong_trace_lost_events_total", a);
	fprintf(f, "} %llu\n", (unsigned long long)bss.trace_lost);

	return ferror(f) ? -EIO : 0;
}

/* Write path atomically: a temp file in the same directory, fsync, rename. */
static int prom_write_file(const char *path, const struct attachment *a,
			   const struct snapshot *s)
{
	char *dir = strdup(path), *base = strdup(path), *tmp = NULL;
	int fd = -1, ret = 0;
	FILE *f = NULL;

	if (!dir || !base) {
		ret = -ENOMEM;
		goto out;
	}
	/* Not *.prom, so the textfile collector never reads a half-written file. */
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dirname(dir), basename(base)) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	/* Readable by node_exporter, which does not run as root. */
	if (fchmod(fd, 0644)) {
		ret = -errno;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		goto out;
	}
	fd = -1;
	ret = prom_print(f, a, s);
	if (!ret && fflush(f))
		ret = -errno;
	if (!ret && fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	f = NULL;
	if (!ret && rename(tmp, path))
		ret = -errno;
out:
	if (fd >= 0)
		close(fd);
	if (ret && tmp && access(tmp, F_OK) == 0)
		unlink(tmp);
	free(tmp);
	free(base);
	free(dir);
	return ret;
}

int prom_update_file(const char *path, const struct attachment *a,
		     const struct snapshot *s)
{
	static int last_err;
	int ret = prom_write_file(path, a, s);

	/* Say it once when it breaks and once when it works again, not every interval. */
	if (ret && ret != last_err)
		err("%s: cannot write the metrics file %s: %s%s", a->ifname, path,
		    strerror(-ret),
		    ret == -ENOENT ? " (create its directory first)" :
		    ret == -EACCES || ret == -EROFS ? " (the directory must be writable by xdpong)" : "");
	else if (!ret && last_err)
		note("%s: writing the metrics file %s again", a->ifname, path);
	last_err = ret;
	return ret;
}
