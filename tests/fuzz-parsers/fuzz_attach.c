// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the command line of `xdpong attach` and `xdpong run`
 * (loader/core/opts.c opts_parse, driven by the option table), and through it
 * the static parse_rate of --rate-limit and --global-limit.
 *
 * Byte 0 picks the mode:
 *  bit 0 clear: the rest, cut at its first NUL, is the value of
 *    --rate-limit (bit 1 clear) or --global-limit (bit 1 set) in
 *    "attach OPTION VALUE eth0". Invariant: accepted exactly when VALUE
 *    is PPS or PPS:BURST, each a plain decimal in [1, 1e9], VALUE under
 *    64 bytes; BURST defaults to PPS; the other limit stays off.
 *  bit 0 set: the rest, split at NUL bytes, is the whole argument list
 *    (at most 16 arguments) of attach (bit 1 clear) or run (bit 1 set).
 *    Invariants when accepted: the interface is one of the arguments,
 *    every --addr is a masked prefix, the numbers lie in their ranges,
 *    run-only options stay unset for attach.
 * `--help` returns OPTS_HELP; the parser never exits (fuzz_exit traps it).
 * The rule: docs/input-rules.md, "Options".
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "cmd/cmd.h"

#define MAX_ARGS 16
#define RATE_MAX 1000000000ULL

static bool ref_decimal(const char *t, size_t n, unsigned long long *v)
{
	*v = 0;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (t[i] < '0' || t[i] > '9')
			return false;
		*v = *v * 10 + (t[i] - '0');
		if (*v > RATE_MAX)
			return false;
	}
	return *v >= 1;
}

/* The reference for PPS[:BURST]. */
static bool ref_rate(const char *t, unsigned long long *pps, unsigned long long *burst)
{
	const char *colon = strchr(t, ':');

	if (strlen(t) >= 64)
		return false;
	if (!colon)
		return ref_decimal(t, strlen(t), pps) && (*burst = *pps, true);
	return ref_decimal(t, colon - t, pps) &&
	       ref_decimal(colon + 1, strlen(colon + 1), burst);
}

/* opts_parse of attach or run: 0 accepted, -1 refused, 1 for --help. */
static int guarded_parse(int argc, char **argv, struct opts *o, bool run)
{
	volatile int ret = 1;

	fuzz_getopt_reset();
	verbose = 0; /* -v counts up; keep it from growing run after run */
	fuzz_exit_armed = 1;
	if (!setjmp(fuzz_exit_jmp)) {
		ret = opts_parse(run ? &cmd_run : &cmd_attach, argc, argv, o);
		ret = ret == OPTS_HELP ? 1 : ret ? -1 : 0;
	} else {
		FUZZ_CHECK(0, "the parser called exit()");
	}
	fuzz_exit_armed = 0;
	return ret;
}

static void check_rate(const uint8_t *data, size_t size)
{
	bool global = data[0] & 2;
	char *value = fuzz_cstr(data + 1, size - 1);
	char arg0[] = "attach", opt[] = "--rate-limit", opt_g[] = "--global-limit";
	char ifname[] = "eth0";
	char *argv[] = { arg0, global ? opt_g : opt, value, ifname, NULL };
	unsigned long long pps = 0, burst = 0;
	struct opts o;
	bool ref = ref_rate(value, &pps, &burst);
	int ret = guarded_parse(4, argv, &o, false);

	FUZZ_CHECK(ret != 1, "%s \"%s\" printed help", argv[1], value);
	FUZZ_CHECK((ret == 0) == ref, "%s \"%s\" %s, the reference %s", argv[1],
		   value, ret ? "refused" : "accepted", ref ? "accepts" : "refuses");
	if (!ret) {
		unsigned long long got_pps = global ? o.global_pps : o.rate_pps;
		unsigned long long got_burst = global ? o.global_burst : o.rate_burst;

		FUZZ_CHECK(got_pps == pps && got_burst == burst,
			   "%s \"%s\" gave %llu:%llu, expected %llu:%llu", argv[1], value,
			   got_pps, got_burst, pps, burst);
		FUZZ_CHECK(!(global ? o.rate_pps || o.rate_burst :
				      o.global_pps || o.global_burst),
			   "%s \"%s\" also set the other limit", argv[1], value);
		FUZZ_CHECK(o.n_args == 1 && o.args[0] == ifname,
			   "interface is not the last argument");
	}
	opts_free(&o);
	free(value);
}

static void check_argv(const uint8_t *data, size_t size)
{
	bool run = data[0] & 2;
	char *args[MAX_ARGS + 2], *orig[MAX_ARGS + 2];
	struct opts o;
	int argc = 0, ret;
	size_t pos = 1;

	args[argc++] = strdup(run ? "run" : "attach");
	while (pos < size && argc < MAX_ARGS + 1) {
		const uint8_t *start = data + pos;
		size_t n = strnlen((const char *)start, size - pos);

		args[argc++] = fuzz_cstr(start, n);
		pos += n + 1;
	}
	args[argc] = NULL;
	memcpy(orig, args, sizeof(args));
	ret = guarded_parse(argc, args, &o, run);
	if (ret == 0) {
		bool found = false;

		/* run may name no interface: they come from --config then
		 * (run_main says "missing interface" without one). */
		FUZZ_CHECK(o.n_args == 1 || (run && o.n_args == 0),
			   "%d interfaces accepted", o.n_args);
		for (int i = 0; o.n_args && i < argc; i++)
			found |= o.args[0] == orig[i];
		FUZZ_CHECK(!o.n_args || found, "the interface is not one of the arguments");
		FUZZ_CHECK(!o.n_args || (*o.args[0] && strlen(o.args[0]) < IF_NAMESIZE),
			   "interface name '%s' accepted", o.n_args ? o.args[0] : "");
		FUZZ_CHECK(o.n_addrs >= 0 && o.n_addrs < argc, "%d addresses of %d arguments",
			   o.n_addrs, argc);
		for (int i = 0; i < o.n_addrs; i++) {
			struct prefix m = o.addrs[i];

			prefix_mask(&m);
			FUZZ_CHECK(!memcmp(&m, &o.addrs[i], sizeof(m)),
				   "--addr %d kept host bits", i);
			FUZZ_CHECK(o.addrs[i].family == AF_INET ? o.addrs[i].len <= 32 :
				   o.addrs[i].family == AF_INET6 && o.addrs[i].len <= 128,
				   "--addr %d: family %d len %u", i, o.addrs[i].family,
				   o.addrs[i].len);
		}
		FUZZ_CHECK(o.latency_sample <= 1U << 30, "latency sample %llu",
			   o.latency_sample);
		FUZZ_CHECK(!o.rate_pps == !o.rate_burst && o.rate_pps <= RATE_MAX &&
			   o.rate_burst <= RATE_MAX, "rate %llu:%llu", o.rate_pps,
			   o.rate_burst);
		FUZZ_CHECK(!o.global_pps == !o.global_burst && o.global_pps <= RATE_MAX &&
			   o.global_burst <= RATE_MAX, "global %llu:%llu", o.global_pps,
			   o.global_burst);
		FUZZ_CHECK(o.mode == MODE_AUTO || o.mode == MODE_NATIVE ||
			   o.mode == MODE_SKB, "mode %d", o.mode);
		if (run)
			FUZZ_CHECK(o.interval == 0 ||
				   (o.interval >= 0.01 && o.interval <= 86400),
				   "interval %g", o.interval);
		else
			FUZZ_CHECK(o.interval == 0 && !o.json && !o.metrics_file,
				   "attach accepted a run-only option");
	}
	opts_free(&o);
	for (int i = 0; i < argc; i++)
		free(orig[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		check_argv(data, size);
	else
		check_rate(data, size);
	return 0;
}
