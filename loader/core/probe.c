// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel feature probes (core.h). Each loads a program of a few
 * instructions that uses the feature and keeps the kernel's answer: a
 * feature is there when the kernel accepts it, whatever its version says
 * (distributions backport, and configurations differ).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include "core.h"

#ifndef BPF_F_XDP_HAS_FRAGS
#define BPF_F_XDP_HAS_FRAGS (1U << 5)
#endif
#ifndef BPF_ATOMIC
#define BPF_ATOMIC 0xc0
#endif
#ifndef BPF_CMPXCHG
#define BPF_CMPXCHG (0xf0 | 0x01)
#endif

const struct feature_info feature_info[FEAT_COUNT] = {
	[FEAT_XDP] = { "xdp", "XDP programs", "xdpong cannot run", "4.8" },
	[FEAT_BTF] = { "btf", "the kernel's BTF (/sys/kernel/btf/vmlinux)", "xdpong cannot run",
		       "5.4 with CONFIG_DEBUG_INFO_BTF" },
	[FEAT_RINGBUF] = { "ringbuf", "BPF ring buffers (the trace)", "xdpong cannot run", "5.8" },
	[FEAT_FRAGS] = { "frags", "multi-buffer XDP (jumbo frames)",
			 "no native attach above a page-sized MTU; an echo request longer than the "
			 "first buffer goes to the kernel; trace captures whole 8-byte words",
			 "5.18" },
	[FEAT_CMPXCHG] = { "rate_limits",
			   "BPF atomic compare-and-exchange (the rate limits' state)",
			   "--rate-limit and --global-limit are refused", "5.12" },
	[FEAT_TXWATCH] = { "tx_failures",
			   "BPF programs on the xdp tracepoints (the count of replies the driver "
			   "did not send)",
			   "tx_failed is not counted", "5.5" },
	[FEAT_TAI] = { "tai_clock", "bpf_ktime_get_tai_ns (STAMP timestamps from CLOCK_TAI)",
		       "STAMP reads the monotonic clock, offset to UTC by the loader", "6.1" },
	[FEAT_RXTS] = { "rx_timestamp",
			"bpf_xdp_metadata_rx_timestamp (STAMP's T2 from the driver: "
			"--stamp-driver)",
			"--stamp-driver is refused", "6.3" },
};

static bool probed[FEAT_COUNT], have[FEAT_COUNT];
static char why[FEAT_COUNT][160];
static int refused[FEAT_COUNT]; /* the errno of a refused load */

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* Load an XDP program; 0, or -errno with the kernel's answer in why[f]. */
static int try_load(enum feature f, const struct bpf_insn *insns, size_t n, __u32 flags,
		    const char *what)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_flags = flags);
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, NULL, "GPL", insns, n, &opts);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	fd = -errno;
	refused[f] = -fd;
	snprintf(why[f], sizeof(why[f]), "the kernel refused a program with %s (%s)", what,
		 strerror(-fd));
	return fd;
}

static bool probe_helper(enum feature f, enum bpf_func_id id, const char *name)
{
	int r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_XDP, id, NULL);

	if (r == 1)
		return true;
	snprintf(why[f], sizeof(why[f]), "the kernel has no helper %s%s%s", name, r < 0 ? ": " : "",
		 r < 0 ? strerror(-r) : "");
	return false;
}

/* A do-nothing BTF-typed program on the tracepoint typedef'd as name. */
static bool probe_tracepoint(enum feature f, const struct btf *vmlinux, const char *tp)
{
	const struct bpf_insn ret0[] = { MOV64_IMM(BPF_REG_0, 0), EXIT() };
	char name[64];
	int id, fd;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0) {
		snprintf(why[f], sizeof(why[f]), "the kernel's BTF has no tracepoint %s", tp);
		return false;
	}
	{
		LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP,
			    .attach_btf_id = id);

		fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", ret0, 2, &opts);
	}
	if (fd < 0) {
		snprintf(why[f], sizeof(why[f]),
			 "the kernel refused a program on the tracepoint "
			 "%s (%s)",
			 tp, strerror(errno));
		return false;
	}
	close(fd);
	return true;
}

/* The kernel's BTF, or NULL with why[f] said. */
static struct btf *vmlinux_btf(enum feature f)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();

	if (!vmlinux)
		snprintf(why[f], sizeof(why[f]), "cannot read the kernel's BTF: %s",
			 strerror(errno));
	return vmlinux;
}

static bool probe_txwatch(enum feature f)
{
	struct btf *vmlinux = vmlinux_btf(f);
	bool ok;

	if (!vmlinux)
		return false;
	ok = probe_tracepoint(f, vmlinux, "xdp_exception") &&
	     probe_tracepoint(f, vmlinux, "xdp_bulk_tx");
	btf__free(vmlinux);
	return ok;
}

/* A kfunc the kernel's BTF names (calling it needs a device-bound program,
 * which needs a device: its presence is what can be asked here). */
static bool probe_kfunc(enum feature f, const char *name)
{
	struct btf *vmlinux = vmlinux_btf(f);
	bool ok;

	if (!vmlinux)
		return false;
	ok = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
	btf__free(vmlinux);
	if (!ok)
		snprintf(why[f], sizeof(why[f]), "the kernel has no kfunc %s", name);
	return ok;
}

static bool probe(enum feature f)
{
	const struct bpf_insn pass[] = { MOV64_IMM(BPF_REG_0, XDP_PASS), EXIT() };
	/* *(u64 *)(r10 - 8) = 0; r0 = 0; r1 = 1; cmpxchg(r10 - 8, r0 -> r1) */
	const struct bpf_insn cas[] = {
		MOV64_IMM(BPF_REG_1, 0),
		INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_1, -8, 0),
		MOV64_IMM(BPF_REG_0, 0),
		MOV64_IMM(BPF_REG_1, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_10, BPF_REG_1, -8, BPF_CMPXCHG),
		MOV64_IMM(BPF_REG_0, XDP_PASS),
		EXIT(),
	};

	switch (f) {
	case FEAT_XDP:
		return !try_load(f, pass, 2, 0, "no feature at all");
	case FEAT_BTF:
		if (!access("/sys/kernel/btf/vmlinux", R_OK))
			return true;
		snprintf(why[f], sizeof(why[f]), "/sys/kernel/btf/vmlinux: %s", strerror(errno));
		return false;
	case FEAT_RINGBUF:
		if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1)
			return true;
		snprintf(why[f], sizeof(why[f]), "the kernel refused a BPF ring buffer");
		return false;
	case FEAT_FRAGS:
		return !try_load(f, pass, 2, BPF_F_XDP_HAS_FRAGS, "BPF_F_XDP_HAS_FRAGS") &&
		       probe_helper(f, BPF_FUNC_xdp_load_bytes, "bpf_xdp_load_bytes") &&
		       probe_helper(f, BPF_FUNC_xdp_get_buff_len, "bpf_xdp_get_buff_len");
	case FEAT_CMPXCHG:
		return !try_load(f, cas, sizeof(cas) / sizeof(cas[0]), 0,
				 "an atomic compare-and-exchange");
	case FEAT_TXWATCH:
		return probe_txwatch(f);
	case FEAT_TAI:
		return probe_helper(f, BPF_FUNC_ktime_get_tai_ns, "bpf_ktime_get_tai_ns");
	case FEAT_RXTS:
		return probe_kfunc(f, "bpf_xdp_metadata_rx_timestamp");
	case FEAT_COUNT:
		break;
	}
	return false;
}

bool feature_have(enum feature f)
{
	if (!probed[f]) {
		have[f] = probe(f);
		probed[f] = true;
	}
	return have[f];
}

const char *feature_why(enum feature f)
{
	return feature_have(f) ? "" : why[f];
}

bool feature_denied(enum feature f)
{
	return !feature_have(f) && refused[f] == EPERM;
}

const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		snprintf(u.release, sizeof(u.release), "(unknown)");
	return u.release;
}
