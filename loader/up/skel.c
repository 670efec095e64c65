// SPDX-License-Identifier: GPL-2.0
/*
 * Open xdpong's BPF object, in the build the running kernel can load: the
 * usual one, or where the kernel has no atomic compare-and-exchange
 * (FEAT_CMPXCHG) the one built without it (Makefile: xdpong_nocas). Both
 * have the same maps, programs and variables, so both go through struct
 * xdpong_bpf: only the ELF bytes differ.
 */
#include <errno.h>
#include <stdlib.h>
#include "up.h"
#include "xdpong.skel.h"
#include "xdpong_nocas.skel.h"

struct xdpong_bpf *xdpong_skel_open(void)
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
