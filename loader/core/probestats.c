// SPDX-License-Identifier: GPL-2.0
/*
 * The prober's numbers (core.h): the RTT histogram every target keeps
 * (bounded: PROBE_BUCKETS counts), the samples the command keeps for its
 * percentiles (bounded: a reservoir past PROBE_SAMPLES_MAX), their
 * summary, and the Prometheus text of both counters and histogram.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

/* Fine enough for microseconds on a LAN, wide enough for a WAN. */
const double probe_bucket_le[PROBE_BUCKETS - 1] = {
	10e-6, 20e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3, 2e-3,
	5e-3,  10e-3, 20e-3, 50e-3,  0.1,    0.2,    0.5,  1,
};

const char *probe_protocol(const struct probe_cfg *c)
{
	return c->icmp ? "icmp" : "stamp";
}

void probe_hist_add(struct probe_target *t, double rtt_ns)
{
	double s = rtt_ns / 1e9;
	int i = 0;

	while (i < PROBE_BUCKETS - 1 && s > probe_bucket_le[i])
		i++;
	t->bucket[i]++;
	t->rtt_sum_s += s;
}

void probe_samples_add(struct probe_samples *s, double ns)
{
	if (!s->seen || ns < s->min)
		s->min = ns;
	if (!s->seen || ns > s->max)
		s->max = ns;
	s->seen++;
	s->sum += ns;
	s->sumsq += ns * ns;
	if (s->n < s->room) {
		s->v[s->n++] = ns;
		return;
	}
	if (s->room < PROBE_SAMPLES_MAX) {
		unsigned int room = s->room ? s->room * 2 : 64;
		double *v = realloc(s->v, room * sizeof(*v));

		if (v) {
			s->v = v;
			s->room = room;
			s->v[s->n++] = ns;
		}
		return;
	}
	/* Algorithm R: each of the seen kept with the same chance. */
	unsigned long long k = ((unsigned long long)random() << 31 | random()) % s->seen;

	if (k < s->n)
		s->v[k] = ns;
}

void probe_samples_free(struct probe_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile q (0 to 1) of n sorted values. */
static double rank(const double *v, unsigned int n, double q)
{
	unsigned int k = (unsigned int)ceil(q * n);

	return v[k ? k - 1 : 0];
}

void probe_dist_of(const struct probe_samples *s, struct probe_dist *d)
{
	double *v, mean, var;

	memset(d, 0, sizeof(*d));
	if (!s->seen || !s->n)
		return;
	mean = s->sum / s->seen;
	var = s->sumsq / s->seen - mean * mean;
	*d = (struct probe_dist){
		.min = s->min, .mean = mean, .max = s->max, .mdev = var > 0 ? sqrt(var) : 0
	};
	v = malloc(s->n * sizeof(*v));
	if (!v)
		return;
	memcpy(v, s->v, s->n * sizeof(*v));
	qsort(v, s->n, sizeof(*v), cmp_double);
	d->p50 = rank(v, s->n, 0.50);
	d->p90 = rank(v, s->n, 0.90);
	d->p99 = rank(v, s->n, 0.99);
	free(v);
}

/* A label value, escaped as the text format asks (\\, \", \n). */
static void label(FILE *f, const char *name, const char *v)
{
	fprintf(f, "%s=\"", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fprintf(f, "\\n");
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

static void series(FILE *f, const char *name, const struct prober *p, const struct probe_target *t)
{
	fprintf(f, "%s{", name);
	label(f, "probe", p->cfg.label);
	fputc(',', f);
	label(f, "target", t->addr);
	fprintf(f, ",protocol=\"%s\"", probe_protocol(&p->cfg));
}

static void histogram(FILE *f, const struct prober *p, const struct probe_target *t)
{
	unsigned long long cum = 0;

	for (int i = 0; i < PROBE_BUCKETS; i++) {
		cum += t->bucket[i];
		series(f, "xdpong_probe_rtt_seconds_bucket", p, t);
		if (i < PROBE_BUCKETS - 1)
			fprintf(f, ",le=\"%g\"} %llu\n", probe_bucket_le[i], cum);
		else
			fprintf(f, ",le=\"+Inf\"} %llu\n", cum);
	}
	series(f, "xdpong_probe_rtt_seconds_sum", p, t);
	fprintf(f, "} %.9f\n", t->rtt_sum_s);
	series(f, "xdpong_probe_rtt_seconds_count", p, t);
	fprintf(f, "} %llu\n", cum);
}

void probe_prom_print(FILE *f, const struct prober *const *v, int n)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} counters[] = {
		{ "xdpong_probe_sent_total", "Probes sent to the target.",
		  offsetof(struct probe_target, sent) },
		{ "xdpong_probe_received_total",
		  "Replies received in time, duplicates not counted.",
		  offsetof(struct probe_target, received) },
		{ "xdpong_probe_lost_total", "Probes not answered within the timeout.",
		  offsetof(struct probe_target, lost) },
	};

	fprintf(f, "# HELP xdpong_probe_rtt_seconds Round-trip time of the probes answered, "
		   "without the reflector's residence (STAMP).\n"
		   "# TYPE xdpong_probe_rtt_seconds histogram\n");
	for (int k = 0; k < n; k++)
		for (int i = 0; i < v[k]->n; i++)
			histogram(f, v[k], &v[k]->t[i]);
	for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", counters[c].name, counters[c].help,
			counters[c].name);
		for (int k = 0; k < n; k++) {
			for (int i = 0; i < v[k]->n; i++) {
				const struct probe_target *t = &v[k]->t[i];

				series(f, counters[c].name, v[k], t);
				fprintf(f, "} %llu\n",
					*(const unsigned long long *)((const char *)t +
								      counters[c].off));
			}
		}
	}
}
