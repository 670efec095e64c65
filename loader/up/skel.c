// SPDX-License-Identifier: GPL-2.0
/*
 * Open xdpong's BPF object, in the build the running kernel can load: the
 * usual one, or where the kernel has no atomic compare-and-exchange
 * (FEAT_CMPXCHG) the one built without it (Makefile: xdpong_nocas). Both
 * have the same maps, programs and variables, so both go through struct
 * xdpong_bpf: only the ELF bytes differ. With --stamp-driver, the build
 * that reads the driver's receive timestamp (Makefile: xdpong_rxts),
 * bound to the interface.
 */
#include <errno.h>
#include <stdlib.h>
#include "up.h"
#include "xdpong.skel.h"
#include "xdpong_nocas.skel.h"
#include "xdpong_rxts.skel.h"

/* Linux 6.3's uapi: a program bound to a device that it does not offload
 * to (the kernel resolves the device's metadata kfuncs at load). */
#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif

/* The skeleton over another build's ELF bytes (of the same variables). */
static struct xdpong_bpf *open_build(const void *(*elf_bytes)(size_t *sz))
{
	struct xdpong_bpf *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = xdpong_bpf__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = (void *)elf_bytes(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	}
	if (err) {
		xdpong_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

struct xdpong_bpf *xdpong_skel_open(void)
{
	if (feature_have(FEAT_CMPXCHG))
		return xdpong_bpf__open();
	return open_build(xdpong_nocas_bpf__elf_bytes);
}

struct xdpong_bpf *xdpong_skel_open_rxts(int ifindex)
{
	struct xdpong_bpf *obj = open_build(xdpong_rxts_bpf__elf_bytes);
	struct bpf_program *p;

	if (!obj)
		return NULL;
	p = obj->progs.xdpong;
	bpf_program__set_ifindex(p, ifindex);
	bpf_program__set_flags(p, bpf_program__flags(p) | BPF_F_XDP_DEV_BOUND_ONLY);
	obj->rodata->cfg_stamp_driver = 1;
	return obj;
}

void xdpong_skel_set_frags(struct xdpong_bpf *skel)
{
	bool frags = feature_have(FEAT_FRAGS);

	skel->rodata->cfg_frags = frags;
	if (frags)
		bpf_program__set_flags(skel->progs.xdpong, bpf_program__flags(skel->progs.xdpong) |
								   BPF_F_XDP_HAS_FRAGS);
}

void xdpong_skel_set_txwatch(struct xdpong_bpf *skel)
{
	bool on = feature_have(FEAT_TXWATCH);

	bpf_program__set_autoload(skel->progs.xdpong_tx_exception, on);
	bpf_program__set_autoload(skel->progs.xdpong_tx_bulk, on);
}
