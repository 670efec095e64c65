// SPDX-License-Identifier: GPL-2.0
/*
 * Taking over from an attached xdpong without a gap and without losing
 * state: before the new program is loaded, every map of the old one whose
 * layout matches this build's is handed to it as it is (bpf_map__reuse_fd),
 * so counters, histogram, prefixes, rate-limiter state and a running
 * trace carry on in the very same maps. A map whose layout differs (an
 * upgrade from another build) is created anew and its contents are copied
 * over field by field, by name (layout.c), before the new program is
 * attached. The replace itself is atomic (hook.c). The limits' per-CPU
 * state (xdpong_rlcpu: each CPU's clock and the cells it holds) is not
 * carried: the new program's CPUs start holding none, which can only
 * answer less, never more. Their shared state is (ratelim, and .bss's
 * global_limit between builds that have it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "up.h"
#include "xdpong.skel.h"

struct bpf_map *skel_map(struct xdpong_bpf *skel, int m)
{
	switch (m) {
#define X(id, obj, member, ...) \
	case id:                \
		return skel->maps.member;
		XDPONG_MAPS(X)
#undef X
	}
	return NULL;
}

/* Reused by shape alone (scalar values, the ring buffer): no names to match. */
static bool by_shape(int m)
{
	enum map_takeover k = map_defs[m].takeover;

	return k == TAKE_ENTRIES || k == TAKE_SOFT || k == TAKE_TRANSIENT;
}

int takeover_prepare(const struct attachment *old, struct xdpong_bpf *skel, struct takeover *t)
{
	memset(t, 0, sizeof(*t));
	for (int m = 0; m < MAP_COUNT; m++) {
		struct map_layout theirs, ours;

		/* The configuration is this run's, frozen at load: never reused. */
		if (map_defs[m].takeover == TAKE_FRESH || old->map_fd[m] < 0)
			continue;
		if (layout_of_fd(old->map_fd[m], &theirs) ||
		    layout_of_map(skel->obj, skel_map(skel, m), &ours))
			continue;
		/* Structs must agree by BTF name, not just size (a renamed
		 * reason in a same-sized struct is another layout); scalar
		 * values (rate limiter) and the ring buffer by shape. */
		if (!layout_same(&theirs, &ours) || (!theirs.n && !by_shape(m)))
			continue;
		if (bpf_map__reuse_fd(skel_map(skel, m), old->map_fd[m]))
			return log_error("cannot reuse map %s of program id %u: %s",
					 map_defs[m].obj_name, old->prog_id, strerror(errno));
		t->reused[m] = true;
		t->n_reused++;
	}
	/* A .bss of another layout: its state by name, before load. */
	if (!t->reused[MAP_BSS] && old->map_fd[MAP_BSS] >= 0) {
		const char *const skip[] = { BSS_NAME(if_mac), NULL };
		struct map_layout theirs, ours;
		void *buf = NULL;
		int ncpu;

		if (!layout_of_fd(old->map_fd[MAP_BSS], &theirs) &&
		    !layout_of_map(skel->obj, skel->maps.bss, &ours) &&
		    !layout_read_one(old->map_fd[MAP_BSS], &theirs, &buf, &ncpu))
			layout_copy_fields(&theirs, buf, &ours, skel->bss, skip);
		free(buf);
	}
	return 0;
}

/* One-entry arrays (per-CPU or not): each CPU's value, field by field.
 * With keep, *keep gets the old values as read (free it), *ncpu their CPUs. */
static int migrate_one(int from_fd, int to_fd, void **keep, int *keep_ncpu)
{
	struct map_layout theirs, ours;
	void *src = NULL, *dst = NULL;
	int ncpu, ncpu2, ret;
	__u32 key = 0;

	ret = layout_of_fd(from_fd, &theirs);
	if (!ret)
		ret = layout_of_fd(to_fd, &ours);
	if (!ret && (!theirs.n || !ours.n))
		ret = -EPROTO;
	if (!ret)
		ret = layout_read_one(from_fd, &theirs, &src, &ncpu);
	if (!ret)
		ret = layout_read_one(to_fd, &ours, &dst, &ncpu2);
	if (!ret && ncpu != ncpu2)
		ret = -EPROTO;
	for (int cpu = 0; !ret && cpu < ncpu; cpu++)
		layout_copy_fields(&theirs, layout_cpu(&theirs, src, cpu), &ours,
				   layout_cpu(&ours, dst, cpu), NULL);
	if (!ret && bpf_map_update_elem(to_fd, &key, dst, BPF_ANY))
		ret = -errno;
	if (!ret && keep) {
		*keep = src;
		*keep_ncpu = ncpu;
		src = NULL;
	}
	free(src);
	free(dst);
	return ret;
}

/* Hash and LPM maps: every entry, the key as it is, the value by name. */
static int migrate_entries(int from_fd, int to_fd)
{
	struct map_layout theirs, ours;
	void *key = NULL, *next = NULL, *val = NULL, *nval = NULL;
	bool first = true;
	int ret, n = 0;

	ret = layout_of_fd(from_fd, &theirs);
	if (!ret)
		ret = layout_of_fd(to_fd, &ours);
	if (ret)
		return ret;
	/* Keys of another shape: nothing to carry by. A per-CPU hash holds
	 * one value per CPU: its entries are not another one's. */
	if (theirs.key_size != ours.key_size || theirs.type != ours.type ||
	    (theirs.value_size != ours.value_size && (!theirs.n || !ours.n)))
		return -EPROTO;
	key = calloc(1, theirs.key_size);
	next = calloc(1, theirs.key_size);
	val = calloc(1, theirs.value_size);
	nval = calloc(1, ours.value_size);
	if (!key || !next || !val || !nval) {
		ret = -ENOMEM;
		goto out;
	}
	while (!bpf_map_get_next_key(from_fd, first ? NULL : key, next)) {
		first = false;
		memcpy(key, next, theirs.key_size);
		if (bpf_map_lookup_elem(from_fd, key, val))
			continue; /* gone meanwhile (LRU) */
		if (theirs.n && ours.n) {
			memset(nval, 0, ours.value_size);
			layout_copy_fields(&theirs, val, &ours, nval, NULL);
		} else {
			memcpy(nval, val, ours.value_size);
		}
		if (bpf_map_update_elem(to_fd, key, nval, BPF_ANY)) {
			ret = -errno;
			break;
		}
		n++;
	}
out:
	free(key);
	free(next);
	free(val);
	free(nval);
	return ret ? ret : n;
}

int takeover_migrate(const struct attachment *old, const struct attachment *new, struct takeover *t)
{
	for (int m = 0; m < MAP_COUNT; m++) {
		int ret;

		if (t->reused[m] || old->map_fd[m] < 0 || new->map_fd[m] < 0)
			continue;
		switch (map_defs[m].takeover) {
		case TAKE_COUNTS:
			ret = migrate_one(old->map_fd[m], new->map_fd[m], &t->copied[m],
					  &t->ncpu[m]);
			break;
		case TAKE_FIELDS:
			ret = migrate_one(old->map_fd[m], new->map_fd[m], NULL, NULL);
			break;
		case TAKE_ENTRIES:
		case TAKE_SOFT:
			ret = migrate_entries(old->map_fd[m], new->map_fd[m]);
			break;
		default: /* .bss before load; .rodata is ours; the ring buffer is transient */
			continue;
		}
		if (ret < 0) {
			/* The counters and prefixes are what a takeover must keep. */
			if (map_defs[m].takeover != TAKE_SOFT)
				return log_error("%s: cannot carry map %s over from program id %u: "
						 "%s",
						 old->li.name, map_defs[m].obj_name, old->prog_id,
						 strerror(-ret));
			/* Soft state: starting afresh forgets how much of
			 * its burst each source has used. */
			log_note("%s: rate limiter state of program id %u not carried over (%s): "
				 "per-source limits start afresh",
				 old->li.name, old->prog_id,
				 ret == -EPROTO ? "another layout" : strerror(-ret));
		}
	}
	return 0;
}

/*
 * The old program counts until the replace, and a run already under way
 * on another CPU may finish just after it: read its maps until they stop
 * changing (bounded: 20 reads 5 ms apart), then add what it counted since
 * takeover_migrate's copy to the new program's carry map. The carry maps
 * have no other writer, so nothing races with this update.
 */
static int settle_one(int old_fd, const void *copied, int ncpu, int carry_fd)
{
	static const char *const state[] = { "sample_countdown", NULL };
	struct map_layout theirs, ours;
	void *now = NULL, *prev = NULL, *delta = NULL, *carry = NULL;
	int n, n2, ret;
	__u32 key = 0;

	ret = layout_of_fd(old_fd, &theirs);
	if (!ret)
		ret = layout_of_fd(carry_fd, &ours);
	for (int i = 0; !ret && i < 20; i++) {
		usleep(5000);
		free(prev);
		prev = now;
		now = NULL;
		ret = layout_read_one(old_fd, &theirs, &now, &n);
		if (!ret && n != ncpu)
			ret = -EPROTO;
		if (!ret && prev && !memcmp(prev, now, (size_t)n * layout_stride(&theirs)))
			break;
	}
	if (!ret)
		ret = layout_read_one(carry_fd, &ours, &carry, &n2);
	delta = calloc(1, theirs.value_size + 8);
	if (!ret && !delta)
		ret = -ENOMEM;
	/* delta = sum over CPUs of (now - copied), word by word: the fields
	 * are 64-bit counters (layout_add_fields skips any that are not). */
	for (int cpu = 0; !ret && cpu < ncpu; cpu++) {
		const char *a = layout_cpu(&theirs, now, cpu);
		const char *b = layout_cpu(&theirs, (void *)copied, cpu);

		for (__u32 w = 0; w + 8 <= theirs.value_size; w += 8) {
			__u64 x, y, d;

			memcpy(&x, a + w, 8);
			memcpy(&y, b + w, 8);
			memcpy(&d, (char *)delta + w, 8);
			d += x - y;
			memcpy((char *)delta + w, &d, 8);
		}
	}
	if (!ret && layout_add_fields(&theirs, delta, &ours, carry, state) > 0 &&
	    bpf_map_update_elem(carry_fd, &key, carry, BPF_ANY))
		ret = -errno;
	free(now);
	free(prev);
	free(delta);
	free(carry);
	return ret;
}

void takeover_settle(const struct attachment *old, const struct attachment *new, struct takeover *t)
{
	for (int m = 0; m < MAP_COUNT; m++) {
		int ret;

		if (!t->copied[m])
			continue;
		ret = settle_one(old->map_fd[m], t->copied[m], t->ncpu[m],
				 new->map_fd[map_defs[m].carry]);
		if (ret)
			log_note("%s: the counts of program id %u after its last copy were not "
				 "carried over (%s)",
				 old->li.name, old->prog_id, strerror(-ret));
		free(t->copied[m]);
		t->copied[m] = NULL;
	}
}
