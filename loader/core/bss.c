// SPDX-License-Identifier: GPL-2.0
/*
 * The .bss map (trace switch, lost events, the interface MAC, the global
 * limit's state), written one field at a time through an mmap so the
 * program's own updates to other fields are never clobbered; lookup and
 * update of the whole value where mmap fails. Fields are found by name in
 * the attached build's BTF, so another build's .bss is used right, or
 * refused when it lacks the field.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "core.h"
#include "xdpong.skel.h"

static const struct {
	const char *name;
	__u32 size;
} bss_fields[] = {
#define X(f, bytes) [BSS_##f] = { #f, bytes },
	XDPONG_BSS_FIELDS(X)
#undef X
};

/* Each named field is this build's, of the width said. */
#define X(f, bytes)                                                                              \
	_Static_assert(sizeof(((struct xdpong_bpf__bss *)0)->f) == (bytes), "XDPONG_BSS_FIELDS:" \
									    " " #f " is not a "  \
									    "field of "          \
									    "that width "        \
									    "in .bss");
XDPONG_BSS_FIELDS(X)
#undef X

int bss_open(struct bss_access *b, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *mem;
	int ret;

	b->fd = fd;
	b->mem = NULL;
	ret = layout_of_fd(fd, &b->layout);
	if (ret)
		return ret;
	if (!b->layout.n)
		return -EPROTO; /* no BTF: nothing to go by */
	b->len = (b->layout.value_size + page - 1) / page * page;
	mem = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		if (verbose)
			log_note("cannot mmap the .bss map (%s); using lookup and update",
				 strerror(errno));
		return 0;
	}
	b->mem = mem;
	return 0;
}

void bss_close(struct bss_access *b)
{
	if (b->mem)
		munmap(b->mem, b->len);
	b->mem = NULL;
}

/* The field's place in the attached build's .bss, if it has it, of that size. */
static __u64 *field(const struct bss_access *b, void *base, const char *name, __u32 size)
{
	const struct layout_field *f = layout_find(&b->layout, name);

	if (!f || f->size != size || f->off % size)
		return NULL;
	return (__u64 *)((char *)base + f->off);
}

int bss_get(const struct bss_access *b, enum bss_field f, __u64 *out)
{
	const char *name = bss_fields[f].name;
	__u32 key = 0, size = bss_fields[f].size;
	void *buf;
	__u64 *p;

	*out = 0;
	if (b->mem) {
		p = field(b, b->mem, name, size);
		if (!p)
			return -EPROTO;
		*out = size == 4 ? __atomic_load_n((__u32 *)p, __ATOMIC_RELAXED) :
				   __atomic_load_n(p, __ATOMIC_RELAXED);
		return 0;
	}
	buf = calloc(1, b->layout.value_size);
	if (!buf)
		return -ENOMEM;
	p = field(b, buf, name, size);
	if (!p || bpf_map_lookup_elem(b->fd, &key, buf)) {
		free(buf);
		return p ? -errno : -EPROTO;
	}
	*out = size == 4 ? *(__u32 *)p : *p;
	free(buf);
	return 0;
}

int bss_set(const struct bss_access *b, enum bss_field f, __u64 value)
{
	const char *name = bss_fields[f].name;
	__u32 key = 0, size = bss_fields[f].size;
	void *buf;
	__u64 *p;
	int ret;

	if (b->mem) {
		p = field(b, b->mem, name, size);
		if (!p)
			return -EPROTO;
		/* One aligned store: the program never sees half a MAC. */
		if (size == 4)
			__atomic_store_n((__u32 *)p, (__u32)value, __ATOMIC_RELAXED);
		else
			__atomic_store_n(p, value, __ATOMIC_RELAXED);
		return 0;
	}
	/*
	 * Without mmap the whole value is rewritten: an increment of
	 * trace_lost or a rate-limit update between the two calls is lost.
	 */
	buf = calloc(1, b->layout.value_size);
	if (!buf)
		return -ENOMEM;
	p = field(b, buf, name, size);
	ret = !p ? -EPROTO : bpf_map_lookup_elem(b->fd, &key, buf) ? -errno : 0;
	if (!ret) {
		if (size == 4)
			*(__u32 *)p = value;
		else
			*p = value;
		ret = bpf_map_update_elem(b->fd, &key, buf, BPF_ANY) ? -errno : 0;
	}
	free(buf);
	return ret;
}

/*
 * The exact lists of own addresses (include/xdpong.h): written to the copy
 * the program is not reading, then made live with one aligned store of
 * own_addrs_cur, so a packet sees the old lists or the new ones, never a
 * mix. (Two updates within one packet's few hundred nanoseconds could
 * still race; updates follow netlink events and commands, far apart.)
 * own NULL: no lists, the program uses its tries alone.
 */
int bss_set_own(const struct bss_access *b, const struct xdpong_own_addrs *own)
{
	const struct layout_field *fa = layout_find(&b->layout, BSS_NAME(own_addrs));
	const struct layout_field *fc = layout_find(&b->layout, BSS_NAME(own_addrs_cur));
	__u32 key = 0, cur, next;
	char *buf;
	int ret;

	if (!fa || !fc || fa->size != 2 * sizeof(*own) || fc->size != 4 || fc->off % 4)
		return -EPROTO; /* another build: it goes by its tries */
	if (b->mem) {
		__u32 *pcur = (__u32 *)((char *)b->mem + fc->off);

		cur = __atomic_load_n(pcur, __ATOMIC_RELAXED);
		if (!own) {
			__atomic_store_n(pcur, 0, __ATOMIC_RELEASE);
			return 0;
		}
		next = cur == 1 ? 2 : 1;
		memcpy((char *)b->mem + fa->off + (next - 1) * sizeof(*own), own, sizeof(*own));
		__atomic_store_n(pcur, next, __ATOMIC_RELEASE);
		return 0;
	}
	/* Without mmap: the whole value at once (see bss_set). */
	buf = calloc(1, b->layout.value_size);
	if (!buf)
		return -ENOMEM;
	ret = bpf_map_lookup_elem(b->fd, &key, buf) ? -errno : 0;
	if (!ret) {
		memcpy(&cur, buf + fc->off, 4);
		next = !own ? 0 : cur == 1 ? 2 : 1;
		if (own)
			memcpy(buf + fa->off + (next - 1) * sizeof(*own), own, sizeof(*own));
		memcpy(buf + fc->off, &next, 4);
		ret = bpf_map_update_elem(b->fd, &key, buf, BPF_ANY) ? -errno : 0;
	}
	free(buf);
	return ret;
}

int bss_set_mac(const struct bss_access *b, const __u8 mac[6])
{
	__u64 word = 0;

	memcpy(&word, mac, 6);
	return bss_set(b, BSS_if_mac, word);
}
