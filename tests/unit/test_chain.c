// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of loader/up/chain.c (sharing the interface through libxdp's
 * dispatcher) that run without a dispatcher, which this machine's kernel
 * refuses: the VM suite's netns/dispatcher covers the rest.
 *  - The run configuration written into the object's BTF is what libxdp
 *    reads back: the priority, XDP_PASS going on, no other action.
 *  - chain_possible's answers without asking the kernel: the off switch,
 *    and a directory that is not a bpffs.
 *  - Which load errors count as the kernel refusing extension programs.
 *  - Generations are nonzero and differ.
 * Needs no root. Prints "N passed, N failed"; exit 1 on any failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "up/up.h"
#include "xdpong.skel.h"

static int passed, failed;

static void check(bool ok, const char *what)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s\n", what);
	}
}

static int quiet(enum libbpf_print_level level __attribute__((unused)),
		 const char *fmt __attribute__((unused)), va_list ap __attribute__((unused)))
{
	return 0;
}

static void run_config(unsigned int prio)
{
	struct xdpong_bpf *skel = xdpong_bpf__open();
	struct xdp_program *p;
	char what[96];

	snprintf(what, sizeof(what), "priority %u: open", prio);
	check(skel != NULL, what);
	if (!skel)
		return;
	snprintf(what, sizeof(what), "priority %u: added to the BTF", prio);
	check(!chain_run_config_add(skel->obj, prio), what);
	/* libxdp's defaults (priority 50, XDP_PASS goes on) are what it
	 * assumes without one: the section itself must be there. */
	snprintf(what, sizeof(what), "priority %u: .xdp_run_config holds _xdpong", prio);
	check(btf__find_by_name_kind(bpf_object__btf(skel->obj), ".xdp_run_config",
				     BTF_KIND_DATASEC) > 0 &&
	      btf__find_by_name_kind(bpf_object__btf(skel->obj), "_xdpong", BTF_KIND_VAR) > 0,
	      what);
	p = xdp_program__from_bpf_obj(skel->obj, "xdp");
	snprintf(what, sizeof(what), "priority %u: libxdp reads the object", prio);
	check(!libxdp_get_error(p), what);
	if (!libxdp_get_error(p)) {
		snprintf(what, sizeof(what), "priority %u: libxdp's run priority", prio);
		check(xdp_program__run_prio(p) == prio, what);
		snprintf(what, sizeof(what), "priority %u: XDP_PASS goes on", prio);
		check(xdp_program__chain_call_enabled(p, XDP_PASS), what);
		snprintf(what, sizeof(what), "priority %u: XDP_DROP and XDP_TX end the chain",
			 prio);
		check(!xdp_program__chain_call_enabled(p, XDP_DROP) &&
		      !xdp_program__chain_call_enabled(p, XDP_TX), what);
		xdp_program__close(p);
	}
	xdpong_bpf__destroy(skel);
}

int main(void)
{
	static const unsigned int prios[] = { 0, 1, 10, CHAIN_DEFAULT_PRIORITY, 999,
					      CHAIN_PRIORITY_MAX };
	char why[400];
	__u64 a, b;

	libbpf_set_print(quiet);
	libxdp_set_print((libxdp_print_fn_t)quiet);
	for (size_t i = 0; i < sizeof(prios) / sizeof(prios[0]); i++)
		run_config(prios[i]);

	setenv("LIBXDP_SKIP_DISPATCHER", "1", 1);
	check(chain_possible(why, sizeof(why)) == CHAIN_SKIPPED,
	      "LIBXDP_SKIP_DISPATCHER=1: skipped");
	check(strstr(why, "LIBXDP_SKIP_DISPATCHER=1 is set") != NULL, "LIBXDP_SKIP_DISPATCHER=1: "
		"said");
	unsetenv("LIBXDP_SKIP_DISPATCHER");
	setenv("LIBXDP_BPFFS", "/proc", 1);
	check(chain_possible(why, sizeof(why)) == CHAIN_NO_BPFFS, "no bpffs at LIBXDP_BPFFS");
	check(strstr(why, "no bpffs at /proc") && strstr(why, "nsenter --net"),
	      "no bpffs: said, with the way out");
	unsetenv("LIBXDP_BPFFS");

	check(chain_refused(EPERM) && chain_refused(EOPNOTSUPP) && chain_refused(EINVAL) &&
	      chain_refused(524), "refusals");
	check(!chain_refused(EACCES) && !chain_refused(E2BIG) && !chain_refused(ENOMEM),
	      "a verifier rejection or no memory is not a refusal");

	a = chain_new_gen();
	b = chain_new_gen();
	check(a && b && a != b, "generations nonzero and distinct");

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
