/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel can do for xdpong, found by trying, never by
 * its version: each probe loads a few instructions that use the feature.
 * Self-contained (libbpf and libc only): the tests' fixture links it too.
 */
#ifndef XDPONG_PROBE_H
#define XDPONG_PROBE_H

#include <stdbool.h>
#include <stddef.h>

enum feature {
	FEAT_XDP,     /* an XDP program loads at all */
	FEAT_BTF,     /* the kernel describes itself (/sys/kernel/btf/vmlinux) */
	FEAT_RINGBUF, /* BPF ring buffers (5.8): the trace */
	FEAT_FRAGS,   /* multi-buffer XDP: the frags flag, bpf_xdp_load_bytes
			* and bpf_xdp_get_buff_len (all three came in 5.18) */
	FEAT_CMPXCHG, /* BPF atomic compare-and-exchange (5.12): rate limits */
	FEAT_TXWATCH, /* BTF-typed programs on the xdp tracepoints (5.5): the
			* count of XDP_TX the driver did not send */
	FEAT_COUNT
};

struct feature_info {
	const char *name;    /* "frags", as status and its JSON say it */
	const char *what;    /* what xdpong does with it */
	const char *without; /* what xdpong does without it */
	const char *since;   /* the first Linux release that has it, for people */
};

extern const struct feature_info feature_info[FEAT_COUNT];

/* Probe once (later calls answer from memory). Needs CAP_BPF (root). */
bool feature_have(enum feature f);
/*
 * Why f is missing, for an error or status: "the kernel refused a
 * program with BPF_F_XDP_HAS_FRAGS (Invalid argument)". "" if present.
 */
const char *feature_why(enum feature f);
/* The running kernel's release, for messages ("5.10.0-46-amd64"). */
const char *kernel_release(void);

#endif /* XDPONG_PROBE_H */
