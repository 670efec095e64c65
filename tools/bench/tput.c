// SPDX-License-Identifier: GPL-2.0
/*
 * TCP throughput through a veth pair (iperf3): with no XDP, with a bare
 * XDP_PASS and with xdpong, in skb and native mode, round by round. What
 * attaching costs the traffic xdpong does not answer, and what XDP itself
 * costs on a veth.
 *
 * Its own pair of namespaces (xbench-ts-ID, xbench-tr-ID) with the
 * kernel's default offloads: the rate part's pair runs with TSO off on
 * purpose (README), which TCP throughput must not inherit. iperf3 sends
 * from the sender's namespace to a server behind the veth that the XDP
 * program is on, for TPUT_SECONDS after TPUT_OMIT_S of slow start,
 * unpinned (the driver itself is pinned to CPU 0).
 *
 * Native mode: a veth hands native XDP_TX frames only to a peer that runs
 * XDP too, and native XDP on either end changes how veth moves packets.
 * Both native configurations therefore run the bare XDP_PASS on the
 * sender's end as well, so their ratio compares the responder's program
 * alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include "driver.h"
#include "util.h"
#include "pass.skel.h"

#define TPUT_SECONDS 2
#define TPUT_OMIT_S 1
#define TPUT_PORT 5299
#define TPUT_IP_S "198.18.2.1"
#define TPUT_IP_R "198.18.2.2"

const char *const tput_name[TPUT_N] = {
	[TPUT_NONE] = "none",
	[TPUT_PASS_SKB] = "xdp_pass-skb",
	[TPUT_XDPONG_SKB] = "xdpong-skb",
	[TPUT_PASS_NATIVE] = "xdp_pass-native",
	[TPUT_XDPONG_NATIVE] = "xdpong-native",
};

const char *const tput_desc[TPUT_N] = {
	[TPUT_NONE] = "no XDP",
	[TPUT_PASS_SKB] = "XDP_PASS, skb mode",
	[TPUT_XDPONG_SKB] = "xdpong, skb mode",
	[TPUT_PASS_NATIVE] = "XDP_PASS, native (both ends)",
	[TPUT_XDPONG_NATIVE] = "xdpong native, XDP_PASS on the sender",
};

/* XDP_PASS on ifindex in namespace nsfd (flags: mode), or off (prog_fd < 0). */
static int pass_set(struct bench_env *env, int nsfd, int ifindex, int prog_fd, __u32 flags)
{
	int err;

	if (enter_ns(nsfd))
		return -1;
	err = prog_fd >= 0 ? bpf_xdp_attach(ifindex, prog_fd, flags, NULL) :
			     bpf_xdp_detach(ifindex, flags, NULL);
	enter_ns(env->nsfd_orig);
	return err ? fail("cannot %s XDP_PASS: %s", prog_fd >= 0 ? "attach" : "detach",
			  strerror(-err)) :
		     0;
}

static int xdpong_set(struct bench_env *env, const struct veth_pair *n, const char *mode)
{
	if (mode)
		return run_cmd(60, -1, "ip netns exec %s %s attach %s --mode %s", n->ns_r,
			       env->xdpong_bin, n->if_r, mode) ?
			       fail("`xdpong attach %s --mode %s` failed (-v shows why)", n->if_r,
				    mode) :
			       0;
	return run_cmd(60, -1, "ip netns exec %s %s detach %s", n->ns_r, env->xdpong_bin, n->if_r) ?
		       fail("`xdpong detach %s` failed", n->if_r) :
		       0;
}

/* Put configuration c on the pair (on = true) or take it off again. */
static int config_set(struct bench_env *env, const struct veth_pair *n, int pass_fd,
		      enum tput_config c, bool on)
{
	int fd = on ? pass_fd : -1;

	switch (c) {
	case TPUT_NONE:
		return 0;
	case TPUT_PASS_SKB:
		return pass_set(env, n->nsfd_r, n->ifindex_r, fd, XDP_FLAGS_SKB_MODE);
	case TPUT_XDPONG_SKB:
		return xdpong_set(env, n, on ? "skb" : NULL);
	case TPUT_PASS_NATIVE:
		if (on)
			return pass_set(env, n->nsfd_s, n->ifindex_s, fd, XDP_FLAGS_DRV_MODE) ||
			       pass_set(env, n->nsfd_r, n->ifindex_r, fd, XDP_FLAGS_DRV_MODE);
		return pass_set(env, n->nsfd_r, n->ifindex_r, fd, XDP_FLAGS_DRV_MODE) |
		       pass_set(env, n->nsfd_s, n->ifindex_s, fd, XDP_FLAGS_DRV_MODE);
	case TPUT_XDPONG_NATIVE:
		if (on)
			return pass_set(env, n->nsfd_s, n->ifindex_s, fd, XDP_FLAGS_DRV_MODE) ||
			       xdpong_set(env, n, "native");
		return xdpong_set(env, n, NULL) |
		       pass_set(env, n->nsfd_s, n->ifindex_s, fd, XDP_FLAGS_DRV_MODE);
	case TPUT_N:
		break;
	}
	return -1;
}

/* bits_per_second the server received, from iperf3's JSON; < 0 if none. */
static double parse_bps(const char *json)
{
	struct json_object *o = json_tokener_parse(json), *end, *sum, *bps;
	double v = -1;

	if (o && json_object_object_get_ex(o, "end", &end) &&
	    json_object_object_get_ex(end, "sum_received", &sum) &&
	    json_object_object_get_ex(sum, "bits_per_second", &bps))
		v = json_object_get_double(bps);
	json_object_put(o);
	return v;
}

/* One iperf3 run; the server exits after it (-1), or is killed by its pid. */
static int iperf_once(struct bench_env *env, const struct veth_pair *n, double *gbps)
{
	static char out[1 << 17];
	char pidfile[64];
	double bps = -1;
	FILE *f;
	int pid;

	snprintf(pidfile, sizeof(pidfile), "/tmp/xbench-iperf3-%s.pid", env->id);
	if (run_cmd(10, -1, "ip netns exec %s taskset -c 0-%d iperf3 -s -1 -D -p %d -I %s", n->ns_r,
		    env->ncpus - 1, TPUT_PORT, pidfile))
		return fail("cannot start the iperf3 server");
	for (int tries = 0; tries < 5 && bps < 0 && !bench_stop; tries++) {
		usleep(200000); /* the daemon binds after it forks */
		if (run_out(TPUT_SECONDS + TPUT_OMIT_S + 20, out, sizeof(out),
			    "ip netns exec %s taskset -c 0-%d iperf3 -c %s -p %d -t %d -O %d -J",
			    n->ns_s, env->ncpus - 1, TPUT_IP_R, TPUT_PORT, TPUT_SECONDS,
			    TPUT_OMIT_S) >= 0)
			bps = parse_bps(out);
	}
	f = fopen(pidfile, "r");
	if (f) {
		if (fscanf(f, "%d", &pid) == 1 && pid > 0 && !kill(pid, 0))
			kill(pid, SIGTERM); /* still waiting: no client ever came */
		fclose(f);
	}
	unlink(pidfile);
	if (bps < 0)
		return fail("iperf3 gave no throughput (run with -v)");
	*gbps = bps / 1e9;
	return 0;
}

int tput_measure(struct bench_env *env, int trials, struct tput_results *res)
{
	struct veth_pair n = { .nsfd_s = -1, .nsfd_r = -1 };
	struct pass_bpf *pass = NULL;
	int err = -1, pass_fd;

	memset(res, 0, sizeof(*res));
	if (access("/usr/bin/iperf3", X_OK)) {
		say("no iperf3 (tools/deps.sh installs it): no throughput rows");
		return 0;
	}
	pass = pass_bpf__open_and_load();
	if (!pass) {
		fail("cannot load the XDP_PASS program");
		goto out;
	}
	pass_fd = bpf_program__fd(pass->progs.xdp_pass);
	if (pair_create(env, &n, "t", NULL, NULL, TPUT_IP_S, TPUT_IP_R))
		goto out;
	for (int t = 0; t < trials && !bench_stop; t++) {
		for (int c = 0; c < TPUT_N && !bench_stop; c++) {
			double gbps = 0;

			if (config_set(env, &n, pass_fd, c, true))
				goto out;
			if (iperf_once(env, &n, &gbps)) {
				config_set(env, &n, pass_fd, c, false);
				goto out;
			}
			dbg("  throughput %s: %.2f Gbit/s", tput_name[c], gbps);
			series_add(&res->gbps[c], gbps);
			if (config_set(env, &n, pass_fd, c, false))
				goto out;
		}
	}
	res->measured = !bench_stop;
	err = bench_stop ? -1 : 0;
out:
	pair_delete(env, &n);
	pass_bpf__destroy(pass);
	return err;
}
