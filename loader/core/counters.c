// SPDX-License-Identifier: GPL-2.0
/* The counters and the latency histogram, summed over CPUs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "core.h"

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
	struct map_layout l;
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
	struct map_layout l;
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

/* The count of XDP_TX the driver did not send: its links are up/txwatch.c's. */

/* Is program prog_id a tracepoint program that uses the map map_id? (The
 * XDP program names the map too, and in libxdp's dispatcher it is held by
 * a link of its own.) */
static bool prog_uses_map(__u32 prog_id, __u32 map_id)
{
	struct bpf_prog_info pi = { 0 };
	__u32 ids[32], len = sizeof(pi);
	bool uses = false;
	int fd = bpf_prog_get_fd_by_id(prog_id);

	if (fd < 0)
		return false;
	pi.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	pi.map_ids = (__u64)(unsigned long)ids;
	if (!bpf_obj_get_info_by_fd(fd, &pi, &len) && pi.type == BPF_PROG_TYPE_TRACING)
		for (__u32 i = 0; i < pi.nr_map_ids && i < 32; i++)
			uses |= ids[i] == map_id;
	close(fd);
	return uses;
}

/*
 * The links are found the way the maps are (attachment.c): from what the
 * kernel holds, not from pins, which `ip netns exec` cannot see. Every
 * link on the host is looked at: a handful, and only when asked.
 */
int txwatch_count(const struct attachment *a)
{
	__u32 id = 0;
	int n = 0;

	if (a->map_fd[MAP_TXFAIL] < 0)
		return -ENOENT;
	/* Without CAP_SYS_ADMIN no link can be had by id: the pinned ones. */
	if (!privs_by_id) {
		for (int i = 0; i < TXWATCH_LINKS; i++) {
			char path[320];
			int fd;

			pin_link_path(a->li.name, i, path, sizeof(path));
			fd = bpf_obj_get(path);
			if (fd >= 0) {
				n++;
				close(fd);
			}
		}
		return n;
	}
	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info li = { 0 };
		__u32 len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone meanwhile */
		if (!bpf_obj_get_info_by_fd(fd, &li, &len) &&
		    prog_uses_map(li.prog_id, a->map_id[MAP_TXFAIL]))
			n++;
		close(fd);
	}
	return n;
}

int txwatch_read(int fd, __u64 *tx_failed)
{
	struct map_layout l;
	const struct layout_field *f;
	void *buf = NULL;
	int ncpu, ret;

	*tx_failed = 0;
	ret = layout_of_fd(fd, &l);
	if (ret)
		return ret;
	f = layout_find(&l, "tx_failed");
	if (!f || f->size != sizeof(__u64))
		return -EPROTO;
	ret = layout_read_one(fd, &l, &buf, &ncpu);
	for (int cpu = 0; !ret && cpu < ncpu; cpu++) {
		__u64 v;

		memcpy(&v, (char *)layout_cpu(&l, buf, cpu) + f->off, sizeof(v));
		*tx_failed += v;
	}
	free(buf);
	return ret;
}
