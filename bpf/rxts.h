/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STAMP's T2 from the driver's receive timestamp (--stamp-driver), in the
 * build that has it (Makefile: xdpong_rxts, with XDPONG_STAMP_RXTS), which
 * the loader loads bound to the interface (BPF_F_XDP_DEV_BOUND_ONLY): a
 * kernel that has bpf_xdp_metadata_rx_timestamp (6.3) refuses any other
 * program that calls it, and the call is resolved to the driver's own
 * function at load. Included by stamp.h, which otherwise reads its clock.
 *
 * The timestamp is the NIC's clock (its PHC), which the loader relates to
 * UTC in stamp_phc_off_ns. Where the driver gives none (an error, e.g.
 * ENODATA or EOPNOTSUPP; or 0, as a veth does for an skb that carries no
 * hardware timestamp), or no offset is known (yet, or ever: a NIC without
 * a PHC), T2 is the system clock's, as without --stamp-driver;
 * stamp_t2_count says which, per packet.
 */
#ifndef XDPONG_BPF_RXTS_H
#define XDPONG_BPF_RXTS_H

extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx, __u64 *timestamp) __ksym;

/* T2 in UTC ns, *hw set where it is the driver's (Timestamp Information's
 * method, stamp.h). */
static __always_inline __u64 stamp_t2_ns(struct xdp_md *ctx, __u8 *hw)
{
	__u64 ts = 0;

	if (!bpf_xdp_metadata_rx_timestamp(ctx, &ts) && ts && stamp_phc_ok) {
		__sync_fetch_and_add(&stamp_t2_count.driver, 1);
		*hw = 1;
		return ts + stamp_phc_off_ns;
	}
	__sync_fetch_and_add(&stamp_t2_count.system, 1);
	return stamp_clock_ns();
}

#endif /* XDPONG_BPF_RXTS_H */
