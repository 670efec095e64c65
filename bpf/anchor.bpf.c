// SPDX-License-Identifier: GPL-2.0
/*
 * The anchor that xdpong is loaded against to join libxdp's dispatcher.
 *
 * In a dispatcher chain each program is an extension (BPF_PROG_TYPE_EXT)
 * that replaces one of the dispatcher's slot functions. The kernel
 * verifies an extension against a target function at load time, and
 * lets it be linked later to any function of the same signature
 * (Linux 5.10: re-attaching freplace programs). So the loader verifies
 * xdpong against xdpong_slot here, fills its maps, and only then hands it
 * to libxdp, which links it into the dispatcher's next free slot
 * (loader/up/chain.c). This program is never attached anywhere.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* The signature of libxdp's slots (prog0..prog9): global, not inlined,
 * and not foldable to a constant, or there would be nothing to replace. */
__attribute__((noinline)) int xdpong_slot(struct xdp_md *ctx)
{
	volatile int ret = XDP_PASS;

	if (!ctx)
		return XDP_ABORTED;
	return ret;
}

SEC("xdp")
int xdpong_anchor(struct xdp_md *ctx)
{
	return xdpong_slot(ctx);
}

/* The smallest extension, to ask the kernel whether it takes extension
 * programs at all (loader/up/chain.c, chain_possible), before xdpong is
 * loaded as one. Loaded only for that, against xdpong_slot. */
SEC("freplace/xdpong_slot")
int xdpong_probe(struct xdp_md *ctx)
{
	return XDP_PASS;
}
