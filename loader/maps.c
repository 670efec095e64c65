// SPDX-License-Identifier: GPL-2.0
/*
 * Find a live xdpong through the program attached to the interface, so
 * every command works where the pins are not visible (a fresh
 * `ip netns exec` has its own /sys without our bpffs).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "loader.h"
#include "xdpong.skel.h"

const char *const map_obj_names[MAP_COUNT] = {
	[MAP_STATS] = "xdpong_stats",
	[MAP_LATENCY] = "xdpong_latency",
	[MAP_ADDR4] = "xdpong_addr4",
	[MAP_ADDR6] = "xdpong_addr6",
	[MAP_RATELIM] = "xdpong_ratelim",
	[MAP_TRACE] = "xdpong_trace",
	[MAP_BSS] = ".bss", /* the kernel name is "<object prefix>.bss" */
	[MAP_RODATA] = ".rodata",
};

const char *const map_pin_names[MAP_COUNT] = {
	[MAP_STATS] = "stats",
	[MAP_LATENCY] = "latency",
	[MAP_ADDR4] = "addr4",
	[MAP_ADDR6] = "addr6",
	[MAP_RATELIM] = "ratelim",
	[MAP_TRACE] = "trace",
	[MAP_BSS] = "bss",
	[MAP_RODATA] = "rodata",
};

void pin_dir(const char *ifname, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", PIN_ROOT, ifname);
}

int bpffs_ensure(void)
{
	struct statfs st;

	if (!statfs(BPFFS_ROOT, &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mkdir(BPFFS_ROOT, 0755) && errno != EEXIST)
		return err("cannot create %s: %s", BPFFS_ROOT, strerror(errno));
	if (mount("bpf", BPFFS_ROOT, "bpf", 0, "mode=0700"))
		return err("no bpffs at %s and mounting one failed: %s (mount one: mount -t bpf bpf %s)",
			   BPFFS_ROOT, strerror(errno), BPFFS_ROOT);
	if (verbose)
		note("mounted a bpffs at %s", BPFFS_ROOT);
	return 0;
}

static bool map_name_matches(const char *kernel_name, const char *want)
{
	size_t kl = strlen(kernel_name), wl = strlen(want);

	if (want[0] == '.') /* section maps: match the suffix */
		return kl >= wl && !strcmp(kernel_name + kl - wl, want);
	return !strcmp(kernel_name, want);
}

static int open_maps(struct attachment *a)
{
	struct bpf_prog_info info = { 0 };
	__u32 ids[32], len = sizeof(info);

	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(a->prog_fd, &info, &len))
		return -errno;
	for (__u32 i = 0; i < info.nr_map_ids && i < 32; i++) {
		struct bpf_map_info mi = { 0 };
		__u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);
		bool kept = false;

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &mi, &mlen)) {
			for (int m = 0; m < MAP_COUNT; m++) {
				if (a->map_fd[m] < 0 &&
				    map_name_matches(mi.name, map_obj_names[m])) {
					a->map_fd[m] = fd;
					a->map_id[m] = mi.id;
					kept = true;
					break;
				}
			}
		}
		if (!kept)
			close(fd);
	}
	for (int m = 0; m < MAP_COUNT; m++)
		if (a->map_fd[m] < 0)
			return -ENOENT;
	return 0;
}

static const char *mode_name(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return "native";
	case XDP_MODE_SKB:
		return "skb";
	case XDP_MODE_HW:
		return "hw";
	default:
		return "unknown";
	}
}

int attachment_find(int ifindex, struct attachment *a, __u32 *other_id)
{
	struct xdp_multiprog *mp;
	struct xdp_program *prog = NULL, *p;
	int ret = -ENOENT;

	memset(a, 0, sizeof(*a));
	a->ifindex = ifindex;
	a->prog_fd = -1;
	for (int m = 0; m < MAP_COUNT; m++)
		a->map_fd[m] = -1;
	if (other_id)
		*other_id = 0;
	if (!if_indextoname(ifindex, a->ifname))
		return -ENODEV;

	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (libxdp_get_error(mp))
		return -ENOENT; /* nothing attached */
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && !strcmp(xdp_program__name(p), "xdpong"))
			prog = p;
		else if (p && other_id)
			*other_id = xdp_program__id(p);
	} else {
		a->dispatcher = true;
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp)) {
			if (!strcmp(xdp_program__name(p), "xdpong")) {
				prog = p;
				break;
			}
			if (other_id && !*other_id)
				*other_id = xdp_program__id(p);
		}
	}
	if (!prog)
		goto out;
	a->xdp_mode = xdp_multiprog__attach_mode(mp);
	a->mode = mode_name(a->xdp_mode);
	a->prog_id = xdp_program__id(prog);
	a->prog_fd = bpf_prog_get_fd_by_id(a->prog_id);
	if (a->prog_fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = open_maps(a);
out:
	xdp_multiprog__close(mp);
	if (ret)
		attachment_close(a);
	return ret;
}

int attachment_open(const char *ifname, struct link_info *li,
		    struct attachment *a)
{
	int ret;

	if (require_root() || iface_lookup(ifname, li))
		return -1;
	ret = attachment_find(li->ifindex, a, NULL);
	if (ret == -ENOENT)
		return err("%s: xdpong is not attached (attach it with 'xdpong attach %s')",
			   li->name, li->name);
	if (ret)
		return err("cannot read xdpong's maps on %s: %s", li->name,
			   strerror(-ret));
	return 0;
}

void attachment_close(struct attachment *a)
{
	if (a->prog_fd >= 0)
		close(a->prog_fd);
	a->prog_fd = -1;
	for (int m = 0; m < MAP_COUNT; m++) {
		if (a->map_fd[m] >= 0)
			close(a->map_fd[m]);
		a->map_fd[m] = -1;
	}
}

int rodata_read(const struct attachment *a, struct xdpong_bpf__rodata *ro)
{
	struct bpf_map_info mi = { 0 };
	__u32 len = sizeof(mi), key = 0;

	memset(ro, 0, sizeof(*ro));
	/* A program from another xdpong build may lay its rodata out otherwise. */
	if (bpf_obj_get_info_by_fd(a->map_fd[MAP_RODATA], &mi, &len) ||
	    mi.value_size != sizeof(*ro))
		return -EPROTO;
	if (bpf_map_lookup_elem(a->map_fd[MAP_RODATA], &key, ro))
		return -errno;
	return 0;
}

/* ---- the .bss map: one field at a time, never the whole value ---- */

int bss_open(struct bss_access *b, int fd)
{
	struct bpf_map_info mi = { 0 };
	__u32 len = sizeof(mi);
	long page = sysconf(_SC_PAGESIZE);
	void *mem;

	b->fd = fd;
	b->mem = NULL;
	if (bpf_obj_get_info_by_fd(fd, &mi, &len))
		return -errno;
	/* A program from another xdpong build may lay .bss out otherwise. */
	if (mi.value_size != sizeof(struct xdpong_bpf__bss))
		return -EPROTO;
	b->len = (sizeof(struct xdpong_bpf__bss) + page - 1) / page * page;
	mem = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		if (verbose)
			note("cannot mmap the .bss map (%s); using lookup and update",
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

int bss_read(const struct bss_access *b, struct xdpong_bpf__bss *out)
{
	__u32 key = 0;

	if (b->mem) {
		out->trace_enabled = __atomic_load_n(&b->mem->trace_enabled,
						     __ATOMIC_RELAXED);
		out->trace_lost = __atomic_load_n(&b->mem->trace_lost,
						  __ATOMIC_RELAXED);
		out->global_tat_ns = b->mem->global_tat_ns;
		out->if_mac = __atomic_load_n(&b->mem->if_mac, __ATOMIC_RELAXED);
		return 0;
	}
	return bpf_map_lookup_elem(b->fd, &key, out) ? -errno : 0;
}

int bss_set_trace(const struct bss_access *b, __u32 on)
{
	struct xdpong_bpf__bss v;
	__u32 key = 0;

	if (b->mem) {
		__atomic_store_n(&b->mem->trace_enabled, on, __ATOMIC_RELAXED);
		return 0;
	}
	/*
	 * Without mmap the whole value is rewritten: an increment of
	 * trace_lost or a rate-limit update between the two calls is lost.
	 */
	if (bpf_map_lookup_elem(b->fd, &key, &v))
		return -errno;
	v.trace_enabled = on;
	return bpf_map_update_elem(b->fd, &key, &v, BPF_ANY) ? -errno : 0;
}

int bss_set_mac(const struct bss_access *b, const __u8 mac[6])
{
	struct xdpong_bpf__bss v;
	__u64 word = 0;
	__u32 key = 0;

	memcpy(&word, mac, 6);
	if (b->mem) {
		/* One aligned 8-byte store: the program never sees half a MAC. */
		__atomic_store_n(&b->mem->if_mac, word, __ATOMIC_RELAXED);
		return 0;
	}
	if (bpf_map_lookup_elem(b->fd, &key, &v))
		return -errno;
	v.if_mac = word;
	return bpf_map_update_elem(b->fd, &key, &v, BPF_ANY) ? -errno : 0;
}
