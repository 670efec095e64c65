/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Open xdpong's BPF object, in the build the running kernel can load: the
 * usual one, or where the kernel has no atomic compare-and-exchange
 * (probe.h, FEAT_CMPXCHG) the one built without it (Makefile:
 * xdpong_nocas). Both have the same maps, programs and variables, so
 * both go through struct xdpong_bpf: only the ELF bytes differ.
 */
#ifndef XDPONG_SKEL_H
#define XDPONG_SKEL_H

#include <stdlib.h>
#include "xdpong.skel.h"
#include "xdpong_nocas.skel.h"
#include "probe.h"

/* Like xdpong_bpf__open(): NULL with errno set on failure. */
static inline struct xdpong_bpf *xdpong_skel_open(void)
{
	struct xdpong_bpf *obj;
	int err;

	if (feature_have(FEAT_CMPXCHG))
		return xdpong_bpf__open();
	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = xdpong_bpf__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = (void *)xdpong_nocas_bpf__elf_bytes(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	}
	if (err) {
		xdpong_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

/*
 * Multi-buffer XDP where the kernel has it: the frags flag (which a kernel
 * without it refuses) and cfg_frags, behind which the program keeps the
 * helpers such a kernel lacks. Between open and load.
 */
static inline void xdpong_skel_set_frags(struct xdpong_bpf *skel)
{
	bool frags = feature_have(FEAT_FRAGS);

	skel->rodata->cfg_frags = frags;
	if (frags)
		bpf_program__set_flags(skel->progs.xdpong, bpf_program__flags(skel->progs.xdpong) |
								   BPF_F_XDP_HAS_FRAGS);
}

/*
 * The count of replies the driver did not send (loader/txwatch.c): its
 * tracepoint programs are loaded only where the kernel takes them, so
 * that the XDP program loads everywhere. Between open and load.
 */
static inline void xdpong_skel_set_txwatch(struct xdpong_bpf *skel)
{
	bool on = feature_have(FEAT_TXWATCH);

	bpf_program__set_autoload(skel->progs.xdpong_tx_exception, on);
	bpf_program__set_autoload(skel->progs.xdpong_tx_bulk, on);
}

#endif /* XDPONG_SKEL_H */
