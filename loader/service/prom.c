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
#include <bpf/libbpf.h>
#include "service.h"
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

/*
 * The interface label is "device", as node_exporter's network metrics name
 * it (node_network_receive_packets_total{device="eth0"}): the two join on
 * it without relabeling.
 */
static void prom_dev(FILE *f, const char *name, const char *dev)
{
	fprintf(f, "%s{device=", name);
	prom_label(f, dev);
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

/* What each family needs of an attached interface, read once. */
struct prom_row {
	const struct prom_iface *v;
	struct xdpong_bpf__rodata ro;
	struct xdpong_bpf__bss bss;
	struct addr_count ac;
	/* What runs there (chain.c); chain_err: it could not be read, and
	 * the chain's families leave the interface out. pos: xdpong's index,
	 * -1 if its program id is not in the chain. */
	struct chain_info chain;
	int chain_err, pos;
};

/* ---- the families' samples, one interface at a time ---- */

static unsigned long long v_up(const struct prom_row *r)
{
	return r->v->a && r->v->s;
}

static unsigned long long v_tx_failed(const struct prom_row *r)
{
	return r->v->s->tx_failed;
}

static unsigned long long v_tx_counted(const struct prom_row *r)
{
	return r->v->s->tx_watch == TXWATCH_LINKS;
}

static unsigned long long v_sample_every(const struct prom_row *r)
{
	return r->ro.cfg_latency_sample;
}

static unsigned long long v_trace_lost(const struct prom_row *r)
{
	return r->bss.trace_lost;
}

static unsigned long long v_dispatcher(const struct prom_row *r)
{
	return r->v->a->dispatcher;
}

/* Only in the dispatcher: alone, a priority means nothing. */
static void s_chain_priority(FILE *f, const char *name, const struct prom_row *r)
{
	if (r->chain_err || !r->chain.dispatcher || r->pos < 0)
		return;
	prom_dev(f, name, r->v->name);
	fprintf(f, "} %u\n", r->chain.p[r->pos].priority);
}

static void s_chain_position(FILE *f, const char *name, const struct prom_row *r)
{
	if (r->chain_err || r->pos < 0)
		return;
	prom_dev(f, name, r->v->name);
	fprintf(f, "} %d\n", r->pos + 1);
}

/* Every program in the chain, xdpong too; no priority label alone. */
static void s_chain_programs(FILE *f, const char *name, const struct prom_row *r)
{
	const struct chain_info *c = &r->chain;

	for (int i = 0; !r->chain_err && i < c->n; i++) {
		prom_dev(f, name, r->v->name);
		fprintf(f, ",id=\"%u\",name=", c->p[i].id);
		prom_label(f, c->p[i].name);
		if (c->dispatcher)
			fprintf(f, ",priority=\"%u\"", c->p[i].priority);
		fprintf(f, ",position=\"%d\"} 1\n", i + 1);
	}
}

static void s_info(FILE *f, const char *name, const struct prom_row *r)
{
	prom_dev(f, name, r->v->name);
	fprintf(f, ",mode=\"%s\",prog_id=\"%u\",framing=\"%s\",version=\"%s\"} 1\n", r->v->a->mode,
		r->v->a->prog_id, r->ro.cfg_framing == XDPONG_FRAMING_IP ? "ip" : "ethernet",
		XDPONG_VERSION);
}

static void s_packets(FILE *f, const char *name, const struct prom_row *r)
{
	const struct snapshot *s = r->v->s;

	for (int k = 0; k < XDPONG_R_MAX; k++) {
		prom_dev(f, name, r->v->name);
		fprintf(f, ",result=\"%s\",reason=\"%s\"} %llu\n",
			outcome_names[reason_outcomes[k]], reason_names[k],
			(unsigned long long)s->reason[k]);
	}
	for (int k = 0; k < s->n_extra; k++) { /* the attached build's own reasons */
		prom_dev(f, name, r->v->name);
		fprintf(f, ",result=\"%s\",reason=", outcome_names[s->extra_outcome[k]]);
		prom_label(f, s->extra_name[k]);
		fprintf(f, "} %llu\n", (unsigned long long)s->extra[k]);
	}
}

/*
 * slots[i] holds integer ns in [2^i, 2^(i+1)), so its inclusive upper
 * bound is 2^(i+1) - 1 ns; the last slot also takes everything longer.
 */
static void s_service_time(FILE *f, const char *name, const struct prom_row *r)
{
	const struct snapshot *s = r->v->s;
	unsigned long long cum = 0;
	char series[64];

	snprintf(series, sizeof(series), "%s_bucket", name);
	for (int i = 0; i < XDPONG_LAT_SLOTS - 1; i++) {
		cum += s->slots[i];
		prom_dev(f, series, r->v->name);
		fprintf(f, ",le=\"");
		prom_seconds(f, (1ULL << (i + 1)) - 1);
		fprintf(f, "\"} %llu\n", cum);
	}
	/* _count equals +Inf by definition: both from the slots read together. */
	cum += s->slots[XDPONG_LAT_SLOTS - 1];
	prom_dev(f, series, r->v->name);
	fprintf(f, ",le=\"+Inf\"} %llu\n", cum);
	snprintf(series, sizeof(series), "%s_sum", name);
	prom_dev(f, series, r->v->name);
	fprintf(f, "} ");
	prom_seconds(f, s->lat_sum_ns);
	fprintf(f, "\n");
	snprintf(series, sizeof(series), "%s_count", name);
	prom_dev(f, series, r->v->name);
	fprintf(f, "} %llu\n", cum);
}

static void s_rate_limits(FILE *f, const char *name, const struct prom_row *r)
{
	prom_dev(f, name, r->v->name);
	fprintf(f, ",scope=\"source\"} %llu\n",
		r->ro.cfg_rate_cost_ns ? 1000000000ULL / r->ro.cfg_rate_cost_ns : 0);
	prom_dev(f, name, r->v->name);
	fprintf(f, ",scope=\"global\"} %llu\n",
		r->ro.cfg_global_cost_ns ? 1000000000ULL / r->ro.cfg_global_cost_ns : 0);
}

static void s_prefixes(FILE *f, const char *name, const struct prom_row *r)
{
	prom_dev(f, name, r->v->name);
	fprintf(f, ",family=\"ipv4\"} %llu\n", r->ac.n4);
	prom_dev(f, name, r->v->name);
	fprintf(f, ",family=\"ipv6\"} %llu\n", r->ac.n6);
}

/* With --stamp-driver only: where STAMP's T2s came from. */
static void s_stamp_t2(FILE *f, const char *name, const struct prom_row *r)
{
	if (!r->ro.cfg_stamp_driver)
		return;
	prom_dev(f, name, r->v->name);
	fprintf(f, ",clock=\"driver\"} %llu\n", (unsigned long long)r->bss.stamp_t2_count.driver);
	prom_dev(f, name, r->v->name);
	fprintf(f, ",clock=\"system\"} %llu\n", (unsigned long long)r->bss.stamp_t2_count.system);
}

/*
 * Every family, in the order written: its head, then per interface either
 * one value (value) or its series (samples). Only xdpong_up covers the
 * interfaces that are configured but not attached.
 */
static const struct prom_family {
	const char *name, *type, *help;
	unsigned long long (*value)(const struct prom_row *r);
	void (*samples)(FILE *f, const char *name, const struct prom_row *r);
	bool unattached_too;
} families[] = {
	{ "xdpong_up", "gauge",
	  "1 when xdpong is attached to the interface and answering, 0 when it is not (yet).",
	  .value = v_up, .unattached_too = true },
	{ "xdpong_info", "gauge",
	  "xdpong attached to an interface: program id, XDP mode and framing (value always 1).",
	  .samples = s_info },
	{ "xdpong_packets_total", "counter",
	  "Packets the XDP program decided on, by result (replied, passed, dropped) and reason, "
	  "since attach.",
	  .samples = s_packets },
	{ "xdpong_tx_failed_total", "counter",
	  "Replies (XDP_TX) the driver did not send, of those counted as replied; replied minus "
	  "these left the interface.",
	  .value = v_tx_failed },
	{ "xdpong_tx_failed_counted", "gauge",
	  "1 when the XDP_TX failures are being counted (the xdp tracepoints are attached), 0 when "
	  "the count stands still.",
	  .value = v_tx_counted },
	{ "xdpong_service_time_seconds", "histogram",
	  "Time from the echo request's recognition (to this host) to the verdict, for the replies "
	  "that were timed (see xdpong_latency_sample_every).",
	  .samples = s_service_time },
	{ "xdpong_latency_sample_every", "gauge",
	  "One reply in this many is timed for the histogram, and where it is more than 1 at most "
	  "one a timer tick per CPU; 0 means timing is off.",
	  .value = v_sample_every },
	{ "xdpong_rate_limit_replies_per_second", "gauge",
	  "Configured reply rate limit, per source (IPv4 /32, IPv6 /64) or global; 0 means no "
	  "limit.",
	  .samples = s_rate_limits },
	{ "xdpong_answered_prefixes", "gauge",
	  "Prefixes in the address maps xdpong answers for, by IP family.", .samples = s_prefixes },
	{ "xdpong_stamp_t2_total", "counter",
	  "With --stamp-driver: STAMP's receive timestamps (T2) taken from the driver, and those "
	  "taken from the system clock because the driver gave none or the NIC clock's offset was "
	  "not known.",
	  .samples = s_stamp_t2 },
	{ "xdpong_trace_lost_events_total", "counter",
	  "Trace events dropped because the trace ring buffer was full.", .value = v_trace_lost },
	{ "xdpong_dispatcher", "gauge",
	  "1 when xdpong runs in libxdp's dispatcher, sharing the interface with other XDP "
	  "programs; 0 when it is attached alone.",
	  .value = v_dispatcher },
	{ "xdpong_chain_priority", "gauge",
	  "xdpong's run priority in libxdp's dispatcher (lower runs first); absent when attached "
	  "alone.",
	  .samples = s_chain_priority },
	{ "xdpong_chain_position", "gauge",
	  "xdpong's place in the order the programs on the interface run, from 1 (1 when alone).",
	  .samples = s_chain_position },
	{ "xdpong_chain_program_info", "gauge",
	  "Every XDP program on the interface, xdpong included, in run order: id, name, priority "
	  "in the dispatcher (none alone) and position (value always 1).",
	  .samples = s_chain_programs },
};

int prom_print_all(FILE *f, const struct prom_iface *v, int n)
{
	struct prom_row *rows = calloc(n ? n : 1, sizeof(*rows));

	if (!rows)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		rows[i].v = &v[i];
		if (!v[i].a || !v[i].s)
			continue;
		rodata_read(v[i].a, &rows[i].ro);
		map_read_own(v[i].a, MAP_BSS, &rows[i].bss, sizeof(rows[i].bss));
		addr_map_walk(v[i].a->map_fd[MAP_ADDR4], v[i].a->map_fd[MAP_ADDR6], count_cb,
			      &rows[i].ac);
		rows[i].chain_err = chain_query(v[i].a->li.ifindex, &rows[i].chain);
		rows[i].pos = rows[i].chain_err ? -1 :
						  chain_position(&rows[i].chain, v[i].a->prog_id);
	}

	prom_head(f, "xdpong_build_info", "gauge",
		  "The xdpong build that writes these metrics (value always 1).");
	fprintf(f, "xdpong_build_info{version=\"%s\",libbpf=\"%s\"} 1\n", XDPONG_VERSION,
		libbpf_version_string());
	for (size_t k = 0; k < sizeof(families) / sizeof(families[0]); k++) {
		const struct prom_family *fam = &families[k];

		prom_head(f, fam->name, fam->type, fam->help);
		for (const struct prom_row *r = rows; r < rows + n; r++) {
			if (!fam->unattached_too && (!r->v->a || !r->v->s))
				continue;
			if (fam->samples) {
				fam->samples(f, fam->name, r);
				continue;
			}
			prom_dev(f, fam->name, r->v->name);
			fprintf(f, "} %llu\n", fam->value(r));
		}
	}
	free(rows);
	return ferror(f) ? -EIO : 0;
}

int prom_print(FILE *f, const struct attachment *a, const struct snapshot *s)
{
	struct prom_iface one = { .name = a->li.name, .a = a, .s = s };

	return prom_print_all(f, &one, 1);
}

/* Write path atomically: a temp file in the same directory, fsync, rename. */
static int prom_write_file(const char *path, const struct prom_iface *v, int n)
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
	ret = prom_print_all(f, v, n);
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

int prom_update_file(const char *path, const struct prom_iface *v, int n)
{
	static int last_err;
	int ret = prom_write_file(path, v, n);

	/* Say it once when it breaks and once when it works again, not every interval. */
	if (ret && ret != last_err)
		log_error("cannot write the metrics file %s: %s%s", path, strerror(-ret),
			  ret == -ENOENT                  ? " (create its directory first)" :
			  ret == -EACCES || ret == -EROFS ? " (the directory must be writable by "
							    "xdpong)" :
							    "");
	else if (!ret && last_err)
		log_note("writing the metrics file %s again", path);
	last_err = ret;
	return ret;
}
