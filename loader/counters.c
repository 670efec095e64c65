// SPDX-License-Identifier: GPL-2.0
/* The counters and the latency histogram, summed over CPUs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "loader.h"

/* The outcome a reason's name says (reply_*, pass_*, drop_*); -1 if none. */
static int outcome_of_name(const char *name)
{
	static const char *const prefixes[3] = { "reply_", "pass_", "drop_" };

	for (int o = 0; o < 3; o++)
		if (!strncmp(name, prefixes[o], strlen(prefixes[o])))
			return o;
	return -1;
}

static int reason_index(const char *name)
{
	for (int r = 0; r < XDPONG_R_MAX; r++)
		if (!strcmp(reason_names[r], name))
			return r;
	return -1;
}

/* One counter of the attached build's stats struct, summed over CPUs. */
static int add_counter(struct snapshot *s, const struct layout_field *f, __u64 v)
{
	int r = reason_index(f->name), o;

	if (r >= 0) {
		s->reason[r] += v;
		s->outcome[reason_outcomes[r]] += v;
		s->received += v;
		return 0;
	}
	o = outcome_of_name(f->name);
	if (o < 0)
		return -EPROTO; /* not a reason: not a stats map we can read */
	for (int i = 0; i < s->n_extra; i++) {
		if (!strcmp(s->extra_name[i], f->name)) {
			s->extra[i] += v;
			goto counted;
		}
	}
	if (s->n_extra >= SNAPSHOT_MAX_EXTRA)
		return -E2BIG;
	snprintf(s->extra_name[s->n_extra], sizeof(s->extra_name[0]), "%s", f->name);
	s->extra_outcome[s->n_extra] = o;
	s->extra[s->n_extra++] = v;
counted:
	s->outcome[o] += v;
	s->received += v;
	return 0;
}

static int read_stats(int fd, struct snapshot *s)
{
	struct layout l;
	void *buf = NULL;
	int ncpu, ret;

	ret = layout_of_fd(fd, &l);
	if (!ret && !l.n)
		ret = -EPROTO;
	if (!ret)
		ret = layout_read_one(fd, &l, &buf, &ncpu);
	for (int i = 0; !ret && i < l.n; i++) {
		__u64 sum = 0, v;

		if (l.f[i].size != sizeof(__u64)) {
			ret = -EPROTO;
			break;
		}
		for (int cpu = 0; cpu < ncpu; cpu++) {
			memcpy(&v, (char *)layout_cpu(&l, buf, cpu) + l.f[i].off, sizeof(v));
			sum += v;
		}
		ret = add_counter(s, &l.f[i], sum);
	}
	free(buf);
	return ret;
}

static int read_latency(int fd, struct snapshot *s)
{
	const struct layout_field *slots, *sum, *count;
	struct layout l;
	void *buf = NULL;
	int ncpu, ret;

	ret = layout_of_fd(fd, &l);
	if (ret)
		return ret;
	slots = layout_find(&l, "slots");
	sum = layout_find(&l, "sum_ns");
	count = layout_find(&l, "count");
	if (!slots || slots->size != sizeof(s->slots) || !sum || sum->size != 8 || !count ||
	    count->size != 8)
		return -EPROTO;
	ret = layout_read_one(fd, &l, &buf, &ncpu);
	for (int cpu = 0; !ret && cpu < ncpu; cpu++) {
		const char *v = layout_cpu(&l, buf, cpu);
		__u64 x[XDPONG_LAT_SLOTS];

		memcpy(x, v + slots->off, sizeof(x));
		for (int i = 0; i < XDPONG_LAT_SLOTS; i++)
			s->slots[i] += x[i];
		memcpy(x, v + sum->off, 8);
		s->lat_sum_ns += x[0];
		memcpy(x, v + count->off, 8);
		s->lat_count += x[0];
	}
	free(buf);
	return ret;
}

int snapshot_read(const struct attachment *a, struct snapshot *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &s->mono);
	clock_gettime(CLOCK_REALTIME, &s->wall);
	ret = read_stats(a->map_fd[MAP_STATS], s);
	if (!ret)
		ret = read_latency(a->map_fd[MAP_LATENCY], s);
	/* What an upgrade carried over (loader/takeover.c), where there is
	 * a carry map (builds before it have none). */
	if (!ret && a->map_fd[MAP_CARRY] >= 0)
		ret = read_stats(a->map_fd[MAP_CARRY], s);
	if (!ret && a->map_fd[MAP_LATCARRY] >= 0)
		ret = read_latency(a->map_fd[MAP_LATCARRY], s);
	s->tx_watch = -ENOENT;
	if (!ret && a->map_fd[MAP_TXFAIL] >= 0) {
		ret = txwatch_read(a->map_fd[MAP_TXFAIL], &s->tx_failed);
		s->tx_watch = txwatch_count(a);
	}
	return ret;
}

double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}
