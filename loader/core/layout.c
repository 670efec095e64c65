// SPDX-License-Identifier: GPL-2.0
/*
 * Map values as named fields, from BTF: what lets one build read, reuse or
 * migrate the maps of another. A map is reused as it is only when its
 * shape and its fields (names, offsets, sizes) match; otherwise its
 * contents are carried over field by field, by name, so a counter is never
 * filed under another reason whatever the two builds' orders.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "core.h"

/* Struct members or datasec variables of type_id, resolved through typedefs. */
static int fields_of(const struct btf *btf, __u32 type_id, struct map_layout *l)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t)
		return -ENOENT;
	if (btf_is_struct(t)) {
		const struct btf_member *m = btf_members(t);

		for (int i = 0; i < btf_vlen(t) && l->n < LAYOUT_MAX_FIELDS; i++, m++) {
			struct layout_field *f = &l->f[l->n];
			long size = btf__resolve_size(btf, m->type);

			if (btf_member_bitfield_size(t, i) || size < 0)
				return -EPROTO;
			snprintf(f->name, sizeof(f->name), "%s",
				 btf__name_by_offset(btf, m->name_off));
			f->off = btf_member_bit_offset(t, i) / 8;
			f->size = size;
			l->n++;
		}
		return 0;
	}
	if (btf_is_datasec(t)) {
		const struct btf_var_secinfo *v = btf_var_secinfos(t);

		for (int i = 0; i < btf_vlen(t) && l->n < LAYOUT_MAX_FIELDS; i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);
			struct layout_field *f = &l->f[l->n];

			snprintf(f->name, sizeof(f->name), "%s",
				 btf__name_by_offset(btf, var->name_off));
			f->off = v->offset;
			f->size = v->size;
			l->n++;
		}
		return 0;
	}
	return -EPROTO; /* a scalar or an array value: no names to go by */
}

int layout_of_fd(int map_fd, struct map_layout *l)
{
	struct bpf_map_info mi = { 0 };
	__u32 len = sizeof(mi);
	struct btf *btf;
	int ret;

	memset(l, 0, sizeof(*l));
	if (bpf_obj_get_info_by_fd(map_fd, &mi, &len))
		return -errno;
	l->type = mi.type;
	l->key_size = mi.key_size;
	l->value_size = mi.value_size;
	l->max_entries = mi.max_entries;
	l->flags = mi.map_flags;
	if (!mi.btf_id || !mi.btf_value_type_id)
		return 0; /* shape only */
	btf = btf__load_from_kernel_by_id(mi.btf_id);
	/* Without CAP_SYS_ADMIN: the copy its loader left (btfstore.c). */
	if (!btf && errno == EPERM)
		btf = btfstore_load(mi.btf_id);
	if (!btf)
		return errno == ENOENT ? -EPERM : -errno;
	ret = fields_of(btf, mi.btf_value_type_id, l);
	btf__free(btf);
	return ret == -EPROTO ? 0 : ret;
}

int layout_of_map(const struct bpf_object *obj, const struct bpf_map *map, struct map_layout *l)
{
	const struct btf *btf = bpf_object__btf(obj);
	int ret;

	memset(l, 0, sizeof(*l));
	l->type = bpf_map__type(map);
	l->key_size = bpf_map__key_size(map);
	l->value_size = bpf_map__value_size(map);
	l->max_entries = bpf_map__max_entries(map);
	l->flags = bpf_map__map_flags(map);
	if (!btf || !bpf_map__btf_value_type_id(map))
		return 0;
	ret = fields_of(btf, bpf_map__btf_value_type_id(map), l);
	return ret == -EPROTO ? 0 : ret;
}

bool layout_same(const struct map_layout *a, const struct map_layout *b)
{
	if (a->type != b->type || a->key_size != b->key_size || a->value_size != b->value_size ||
	    a->max_entries != b->max_entries || a->flags != b->flags || a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->f[i].name, b->f[i].name) || a->f[i].off != b->f[i].off ||
		    a->f[i].size != b->f[i].size)
			return false;
	return true;
}

const struct layout_field *layout_find(const struct map_layout *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->f[i].name, name))
			return &l->f[i];
	return NULL;
}

/* Per-CPU values are laid out at 8-byte strides (the kernel's round_up). */
size_t layout_stride(const struct map_layout *l)
{
	return (l->value_size + 7) & ~7UL;
}

int layout_read_one(int map_fd, const struct map_layout *l, void **buf, int *ncpu)
{
	bool percpu = l->type == BPF_MAP_TYPE_PERCPU_ARRAY;
	__u32 key = 0;

	*ncpu = percpu ? libbpf_num_possible_cpus() : 1;
	if (*ncpu < 1)
		return -EINVAL;
	*buf = calloc(*ncpu, layout_stride(l));
	if (!*buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &key, *buf)) {
		int e = -errno;

		free(*buf);
		*buf = NULL;
		return e;
	}
	return 0;
}

void *layout_cpu(const struct map_layout *l, void *buf, int cpu)
{
	return (char *)buf + (size_t)cpu * layout_stride(l);
}

static bool named_in(const char *const *names, const char *name)
{
	for (int s = 0; names && names[s]; s++)
		if (!strcmp(names[s], name))
			return true;
	return false;
}

/* dst's fields that src's layout has too (same name and size, not in
 * skip): copied, or with add, added as 64-bit words (counters only). */
static int merge_fields(const struct map_layout *from, const void *src, const struct map_layout *to,
			void *dst, const char *const *skip, bool add)
{
	int n = 0;

	for (int i = 0; i < to->n; i++) {
		const struct layout_field *t = &to->f[i];
		const struct layout_field *f = layout_find(from, t->name);
		const char *in;
		char *out;

		if (!f || f->size != t->size || named_in(skip, t->name) || (add && t->size % 8))
			continue;
		in = (const char *)src + f->off;
		out = (char *)dst + t->off;
		if (!add)
			memcpy(out, in, t->size);
		for (__u32 w = 0; add && w < t->size; w += 8) {
			__u64 a, b;

			memcpy(&a, in + w, 8);
			memcpy(&b, out + w, 8);
			b += a;
			memcpy(out + w, &b, 8);
		}
		n++;
	}
	return n;
}

int layout_add_fields(const struct map_layout *from, const void *src, const struct map_layout *to,
		      void *dst, const char *const *skip)
{
	return merge_fields(from, src, to, dst, skip, true);
}

int layout_copy_fields(const struct map_layout *from, const void *src, const struct map_layout *to,
		       void *dst, const char *const *skip)
{
	return merge_fields(from, src, to, dst, skip, false);
}
