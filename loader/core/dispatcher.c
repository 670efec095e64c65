// SPDX-License-Identifier: GPL-2.0
/*
 * What runs on an interface, in run order: one XDP program alone, or
 * libxdp's dispatcher and the programs in its slots, asked by program id
 * (CAP_SYS_ADMIN). libxdp lists them from the links it pinned; where it
 * has no bpffs, the kernel's extension links and the dispatcher's own
 * configuration say the same. Sharing the interface is up/chain.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "core.h"

int chain_position(const struct chain_info *c, __u32 prog_id)
{
	for (int i = 0; i < c->n; i++)
		if (c->p[i].id == prog_id)
			return i;
	return -1;
}

/* libxdp's dispatcher configuration (its .rodata), version 2, as
 * <xdp/prog_dispatcher.h> has it. */
#define DISPATCHER_MAGIC 236
struct dispatcher_config {
	__u8 magic;
	__u8 version;
	__u8 num_progs_enabled;
	__u8 is_xdp_frags;
	__u32 chain_call_actions[CHAIN_MAX];
	__u32 run_prios[CHAIN_MAX];
};

static int dispatcher_config_read(__u32 disp_id, struct dispatcher_config *cfg)
{
	struct bpf_prog_info pi = { 0 };
	__u32 len = sizeof(pi), map_id = 0, key = 0;
	struct bpf_map_info mi = { 0 };
	__u32 mlen = sizeof(mi);
	int fd = bpf_prog_get_fd_by_id(disp_id), mfd, e = 0;
	void *val;

	if (fd < 0)
		return -errno;
	pi.nr_map_ids = 1;
	pi.map_ids = (__u64)(unsigned long)&map_id;
	if (bpf_obj_get_info_by_fd(fd, &pi, &len) || !map_id)
		e = -ENOENT;
	close(fd);
	if (e)
		return e;
	mfd = bpf_map_get_fd_by_id(map_id);
	if (mfd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(mfd, &mi, &mlen) || mi.value_size < sizeof(*cfg)) {
		close(mfd);
		return -EPROTO;
	}
	val = calloc(1, mi.value_size);
	if (!val || bpf_map_lookup_elem(mfd, &key, val))
		e = val ? -errno : -ENOMEM;
	else
		memcpy(cfg, val, sizeof(*cfg));
	free(val);
	close(mfd);
	if (!e && cfg->magic != DISPATCHER_MAGIC)
		e = -EPROTO;
	return e;
}

/*
 * The dispatcher's programs where libxdp cannot list them: it reads them
 * from the links it pinned, and a fresh `ip netns exec` has no bpffs. The
 * kernel knows them as the extension links whose target is the
 * dispatcher (Linux 5.13 says the target; 5.10 does not, and the chain
 * stays unlisted there), in slot order; the priorities are in the
 * dispatcher's configuration.
 */
static void chain_from_links(struct chain_info *c)
{
	struct dispatcher_config cfg = { 0 };
	__u32 id = 0, btf_ids[CHAIN_MAX];
	bool have_cfg = !dispatcher_config_read(c->dispatcher_id, &cfg);

	while (!bpf_link_get_next_id(id, &id) && c->n < CHAIN_MAX) {
		struct bpf_link_info li = { 0 };
		struct bpf_prog_info pi = { 0 };
		__u32 len = sizeof(li), plen = sizeof(pi);
		int fd = bpf_link_get_fd_by_id(id), pfd, i;

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &li, &len) || li.type != BPF_LINK_TYPE_TRACING ||
		    li.tracing.target_obj_id != c->dispatcher_id) {
			close(fd);
			continue;
		}
		close(fd);
		pfd = bpf_prog_get_fd_by_id(li.prog_id);
		if (pfd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(pfd, &pi, &plen)) {
			close(pfd);
			continue;
		}
		close(pfd);
		/* In slot order: insertion by the slot function's BTF id. */
		for (i = c->n; i > 0 && btf_ids[i - 1] > li.tracing.target_btf_id; i--) {
			c->p[i] = c->p[i - 1];
			btf_ids[i] = btf_ids[i - 1];
		}
		memset(&c->p[i], 0, sizeof(c->p[i]));
		c->p[i].id = li.prog_id;
		snprintf(c->p[i].name, sizeof(c->p[i].name), "%s", pi.name);
		c->p[i].xdpong = !strcmp(pi.name, "xdpong");
		btf_ids[i] = li.tracing.target_btf_id;
		c->n++;
	}
	for (int i = 0; have_cfg && i < c->n && i < cfg.num_progs_enabled; i++) {
		c->p[i].priority = cfg.run_prios[i];
		c->p[i].pass_continues = cfg.chain_call_actions[i] & (1U << XDP_PASS);
	}
}

int dispatcher_query(int ifindex, struct chain_info *c)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	int e;

	memset(c, 0, sizeof(*c));
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	e = libxdp_get_error(mp);
	if (e == -ENOENT || !mp) /* nothing attached */
		return 0;
	if (e)
		return e;
	c->mode = xdp_multiprog__attach_mode(mp);
	c->dispatcher = !xdp_multiprog__is_legacy(mp);
	/* Without its bpffs, libxdp takes its own dispatcher for a program
	 * alone: the kernel knows better (chain_from_links). */
	if (!c->dispatcher && xdp_multiprog__main_prog(mp) &&
	    !strcmp(xdp_program__name(xdp_multiprog__main_prog(mp)), "xdp_dispatcher")) {
		c->dispatcher = true;
		c->dispatcher_id = xdp_program__id(xdp_multiprog__main_prog(mp));
		xdp_multiprog__close(mp);
		chain_from_links(c);
		return 0;
	}
	if (c->dispatcher) {
		c->dispatcher_id = xdp_program__id(xdp_multiprog__main_prog(mp));
		p = xdp_multiprog__next_prog(NULL, mp);
	} else {
		p = xdp_multiprog__main_prog(mp);
	}
	for (; p && c->n < CHAIN_MAX; p = c->dispatcher ? xdp_multiprog__next_prog(p, mp) : NULL) {
		struct chain_prog *cp = &c->p[c->n];

		cp->id = xdp_program__id(p);
		snprintf(cp->name, sizeof(cp->name), "%s", xdp_program__name(p));
		cp->priority = xdp_program__run_prio(p);
		cp->pass_continues = c->dispatcher && xdp_program__chain_call_enabled(p, XDP_PASS);
		cp->xdpong = !strcmp(cp->name, "xdpong");
		c->n++;
	}
	xdp_multiprog__close(mp);
	if (c->dispatcher && !c->n)
		chain_from_links(c);
	return 0;
}
