// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong: answer ICMP and ICMPv6 echo requests in the driver (XDP_TX).
 *
 * Only echo requests that the kernel would answer are answered; what the
 * kernel would discard is dropped, everything else is passed to the kernel
 * unchanged. Every packet is counted once, by reason (include/xdpong.h).
 *
 * This file holds the entry points: the XDP program and the tracepoint
 * programs that count the replies the driver failed to send. The packet
 * path is in the headers beside it (wire.h lists them, bottom up; echo.h
 * is the top).
 */
#include "echo.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/*
 * Frags-aware (multi-buffer XDP): it attaches natively where the MTU
 * exceeds a page (jumbo frames). Headers are read from the first buffer;
 * an echo request longer than it is summed with bpf_xdp_load_bytes and
 * answered in place, its fragments untouched.
 *
 * Plain "xdp": the loader adds BPF_F_XDP_HAS_FRAGS where the kernel has it
 * (probe.h). libbpf 1.1 would add it at load time for "xdp.frags", and a
 * kernel before 5.18 refuses the flag.
 */
SEC("xdp")
int xdpong(struct xdp_md *ctx)
{
	return xdpong_packet(ctx);
}

/*
 * XDP_TX is a request: the driver may still fail to send the frame (a
 * veth whose peer runs no XDP program, a full TX ring). The kernel says
 * so in two tracepoints, which these count for this interface only. The
 * loader attaches them next to the XDP program (loader/up/txwatch.c).
 */
static __always_inline bool tx_dev_ours(const struct net_device *dev)
{
	return cfg_ifindex && BPF_CORE_READ(dev, ifindex) == (int)cfg_ifindex &&
	       BPF_CORE_READ(dev, nd_net.net, ns.inum) == cfg_netns_ino && !stood_down();
}

static __always_inline void tx_failed_add(__u64 n)
{
	struct xdpong_tx_counters *c;
	__u32 key = 0;

	c = bpf_map_lookup_elem(&xdpong_txfail, &key);
	if (c)
		c->tx_failed += n;
}

/* Any driver: an XDP_TX it could not even queue (generic XDP, virtio_net,
 * veth, mlx5 and others call it with the action). */
SEC("tp_btf/xdp_exception")
int BPF_PROG(xdpong_tx_exception, const struct net_device *dev, const struct bpf_prog *xdp,
	     __u32 act)
{
	if (act == XDP_TX && tx_dev_ours(dev))
		tx_failed_add(1);
	return 0;
}

/* veth: XDP_TX frames are queued, then handed to the peer in bulk at the
 * end of the poll; those the peer refused are "drops" here. */
SEC("tp_btf/xdp_bulk_tx")
int BPF_PROG(xdpong_tx_bulk, const struct net_device *dev, int sent, int drops, int err)
{
	if (drops > 0 && tx_dev_ours(dev))
		tx_failed_add((__u64)drops);
	return 0;
}
