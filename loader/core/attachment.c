// SPDX-License-Identifier: GPL-2.0
/*
 * Find a live xdpong through the program attached to the interface, so
 * every command works where the pins are not visible (a fresh
 * `ip netns exec` has its own /sys without our bpffs).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "core.h"
#include "xdpong.skel.h"

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
				    map_name_matches(mi.name, map_defs[m].obj_name)) {
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
		if (a->map_fd[m] < 0 && !map_defs[m].optional)
			return -ENOENT;
	return 0;
}

const char *mode_name(int mode)
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

int attachment_of_prog(__u32 prog_id, struct attachment *a)
{
	int ret;

	memset(a, 0, sizeof(*a));
	for (int m = 0; m < MAP_COUNT; m++)
		a->map_fd[m] = -1;
	a->prog_id = prog_id;
	a->prog_fd = bpf_prog_get_fd_by_id(prog_id);
	ret = a->prog_fd < 0 ? -errno : open_maps(a);
	if (ret)
		attachment_close(a);
	return ret;
}

/*
 * Two xdpongs in one chain: a takeover under way, or one a killed takeover
 * left. The one the active word names is the live one (chain.c); with the
 * word 0, the first.
 */
static __u32 pick_active(const __u32 *ids, int n)
{
	for (int i = 0; i < n; i++) {
		struct xdpong_bpf__rodata ro;
		struct attachment t;
		__u64 active = 0;
		__u32 key = 0;
		bool match;

		match = !attachment_of_prog(ids[i], &t) && t.map_fd[MAP_ACTIVE] >= 0 &&
			!bpf_map_lookup_elem(t.map_fd[MAP_ACTIVE], &key, &active) && active &&
			!rodata_read(&t, &ro) && ro.cfg_gen == active;
		attachment_close(&t);
		if (match)
			return ids[i];
	}
	return ids[0];
}

__u32 mode_flag(int mode)
{
	return mode == XDP_MODE_SKB ? XDP_FLAGS_SKB_MODE :
	       mode == XDP_MODE_HW  ? XDP_FLAGS_HW_MODE :
				      XDP_FLAGS_DRV_MODE;
}

int self_record(const struct attachment *a)
{
	struct bss_access b;
	struct link_info now;
	int e;

	e = link_get(NULL, a->li.ifindex, &now);
	if (e)
		return e;
	e = bss_open(&b, a->map_fd[MAP_BSS]);
	if (!e)
		e = bss_set(&b, BSS_self_ids, (__u64)now.xdp_prog_id << 32 | a->prog_id);
	bss_close(&b);
	return e;
}

int attached_mode(const struct link_info *li)
{
	switch (li->xdp_attached) {
	case XDP_ATTACHED_SKB:
		return XDP_MODE_SKB;
	case XDP_ATTACHED_HW:
		return XDP_MODE_HW;
	default:
		return XDP_MODE_NATIVE;
	}
}

/*
 * Without CAP_SYS_ADMIN (privs.c): the maps through their pins, and proof
 * that they are the attached program's: built for this interface in this
 * namespace (.rodata), and naming the program the interface shows now
 * (self_ids, written once it was attached). 0; -ENOENT, the pins are not
 * the attached program's (*other_id: what is attached); -EPERM, said.
 */
static int find_by_pins(struct attachment *a, __u32 *other_id)
{
	const struct link_info *li = &a->li;
	struct xdpong_bpf__rodata ro;
	struct bss_access b;
	__u64 ids = 0;
	int e;

	if (!li->xdp_prog_id)
		return -ENOENT;
	e = pins_open(li->name, a->map_fd, a->map_id);
	if (e == -ENOENT) {
		if (other_id)
			*other_id = li->xdp_prog_id;
		return -ENOPKG; /* attachment_no_pins() says it */
	}
	if (e)
		return e;
	e = rodata_read(a, &ro);
	if (e == -EPERM) {
		log_error("%s: the layout of xdpong's maps is unknown without CAP_SYS_ADMIN: its "
			  "loader left no BTF in /run/xdpong/btf (an older build, or a reboot "
			  "since?)",
			  li->name);
		return -EPERM;
	}
	if (e)
		return e;
	if (ro.cfg_netns_ino != netns_ino() || ro.cfg_ifindex != (__u32)li->ifindex)
		goto not_ours; /* an interface of the same name elsewhere */
	e = bss_open(&b, a->map_fd[MAP_BSS]);
	if (!e)
		e = bss_get(&b, BSS_self_ids, &ids);
	bss_close(&b);
	if (e)
		return e == -EPROTO ? -ENOENT : e;
	if ((__u32)(ids >> 32) != li->xdp_prog_id) {
		if ((__u32)ids != (__u32)(ids >> 32) && ids >> 32) {
			log_error("%s: xdpong (program id %u) was in libxdp's dispatcher, which "
				  "has changed since: finding it there needs CAP_SYS_ADMIN (libxdp "
				  "finds a dispatcher by program id)",
				  li->name, (__u32)ids);
			return -EPERM;
		}
		goto not_ours;
	}
	a->prog_id = (__u32)ids;
	a->dispatcher = a->prog_id != li->xdp_prog_id;
	a->xdp_mode = attached_mode(li);
	a->mode = mode_name(a->xdp_mode);
	return 0;
not_ours:
	if (other_id)
		*other_id = li->xdp_prog_id;
	return -ENOENT;
}

void attachment_no_pins(const struct link_info *li)
{
	log_error("%s: XDP program id %u is attached, and there are no xdpong pins in %s/%s: "
		  "without CAP_SYS_ADMIN, xdpong knows itself only by its pins (under 'ip netns "
		  "exec' each command has a /sys of its own: use 'nsenter --net=/run/netns/NAME', "
		  "or grant CAP_SYS_ADMIN)",
		  li->name, li->xdp_prog_id, PIN_ROOT, li->name);
}

bool attachment_said(int ret, const struct link_info *li)
{
	if (ret == -ENOPKG)
		attachment_no_pins(li);
	return ret == -ENOPKG || (ret == -EPERM && !privs_by_id);
}

int attachment_find(int ifindex, struct attachment *a, __u32 *other_id)
{
	struct chain_info c;
	__u32 ids[CHAIN_MAX];
	int ret, n = 0;

	memset(a, 0, sizeof(*a));
	a->prog_fd = -1;
	for (int m = 0; m < MAP_COUNT; m++)
		a->map_fd[m] = -1;
	if (other_id)
		*other_id = 0;
	ret = link_get(NULL, ifindex, &a->li);
	if (ret)
		return ret;
	if (!privs_by_id) {
		ret = find_by_pins(a, other_id);
		if (ret)
			attachment_close(a);
		return ret;
	}
	/* libxdp's view, or the kernel's where libxdp has no bpffs. */
	ret = dispatcher_query(ifindex, &c);
	if (ret || !c.n)
		return -ENOENT; /* nothing attached, or nothing to be read */
	for (int i = 0; i < c.n; i++) {
		if (c.p[i].xdpong)
			ids[n++] = c.p[i].id;
		else if (other_id && !*other_id)
			*other_id = c.p[i].id;
	}
	if (!n)
		return -ENOENT;
	a->dispatcher = c.dispatcher;
	a->xdp_mode = c.mode;
	a->mode = mode_name(a->xdp_mode);
	a->prog_id = n > 1 ? pick_active(ids, n) : ids[0];
	a->prog_fd = bpf_prog_get_fd_by_id(a->prog_id);
	ret = a->prog_fd < 0 ? -errno : open_maps(a);
	if (ret)
		attachment_close(a);
	return ret;
}

int attachment_open(const char *ifname, struct attachment *a)
{
	struct link_info li;
	int ret;

	memset(a, 0, sizeof(*a));
	a->prog_fd = -1;
	for (int m = 0; m < MAP_COUNT; m++)
		a->map_fd[m] = -1;
	if (require_privileges(PRIVS_READ) || iface_lookup(ifname, &li))
		return -1;
	ret = attachment_find(li.ifindex, a, NULL);
	if (attachment_said(ret, &li))
		return -1;
	if (ret == -ENOENT)
		return log_error("%s: xdpong is not attached (attach it with 'xdpong attach %s')",
				 li.name, li.name);
	if (ret)
		return log_error("cannot read xdpong's maps on %s: %s", li.name, strerror(-ret));
	return 0;
}

void attachment_close(struct attachment *a)
{
	if (!a->loaded) { /* else its skeleton's: load_down closes them */
		if (a->prog_fd >= 0)
			close(a->prog_fd);
		for (int m = 0; m < MAP_COUNT; m++)
			if (a->map_fd[m] >= 0)
				close(a->map_fd[m]);
	}
	a->prog_fd = -1;
	for (int m = 0; m < MAP_COUNT; m++)
		a->map_fd[m] = -1;
}

/* xdpong by its pins, as the interface shows it: the dispatcher's others
 * stay unseen. */
static int chain_by_pins(int ifindex, struct chain_info *c)
{
	struct attachment a;
	struct chain_prog *p = &c->p[0];
	int e = attachment_find(ifindex, &a, NULL);

	if (e == -ENOENT && !a.li.xdp_prog_id)
		return 0; /* nothing attached */
	if (e && e != -ENOENT && e != -ENOPKG)
		return e;
	c->n = 1;
	c->mode = attached_mode(&a.li);
	p->id = a.li.xdp_prog_id;
	snprintf(p->name, sizeof(p->name), "%s", "unknown");
	if (!e) {
		p->id = a.prog_id;
		p->xdpong = true;
		snprintf(p->name, sizeof(p->name), "%s", "xdpong");
		c->dispatcher = a.dispatcher;
		c->dispatcher_id = a.dispatcher ? a.li.xdp_prog_id : 0;
		attachment_close(&a);
	}
	return 0;
}

int chain_query(int ifindex, struct chain_info *c)
{
	if (privs_by_id)
		return dispatcher_query(ifindex, c);
	memset(c, 0, sizeof(*c));
	return chain_by_pins(ifindex, c);
}

/* This build's own layout of a map, from the skeleton's BTF (opened once). */
static int own_layout(int map, struct map_layout *l)
{
	static struct map_layout cache[MAP_COUNT];
	static bool have[MAP_COUNT];
	struct xdpong_bpf *skel;
	struct bpf_map *m;
	int ret;

	if (have[map]) {
		*l = cache[map];
		return 0;
	}
	skel = xdpong_bpf__open();
	if (!skel)
		return -errno;
	m = map == MAP_RODATA ? skel->maps.rodata : map == MAP_BSS ? skel->maps.bss : NULL;
	ret = m ? layout_of_map(skel->obj, m, &cache[map]) : -EINVAL;
	xdpong_bpf__destroy(skel);
	if (ret)
		return ret;
	have[map] = true;
	*l = cache[map];
	return 0;
}

int map_read_own(const struct attachment *a, int map, void *out, size_t size)
{
	struct map_layout theirs, ours;
	__u32 key = 0;
	void *buf;
	int ret, n;

	memset(out, 0, size);
	ret = layout_of_fd(a->map_fd[map], &theirs);
	if (!ret)
		ret = own_layout(map, &ours);
	if (ret)
		return ret;
	/* The skeleton's struct may be padded past the section's end. */
	if (ours.value_size > size || size - ours.value_size >= 8)
		return -EINVAL;
	buf = calloc(1, theirs.value_size);
	if (!buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(a->map_fd[map], &key, buf)) {
		ret = -errno;
		goto out;
	}
	/* Another build's fields, by name: those it lacks stay zero. */
	n = layout_copy_fields(&theirs, buf, &ours, out, NULL);
	ret = n == ours.n ? 0 : -EPROTO;
out:
	free(buf);
	return ret;
}

int rodata_read(const struct attachment *a, struct xdpong_bpf__rodata *ro)
{
	return map_read_own(a, MAP_RODATA, ro, sizeof(*ro));
}
