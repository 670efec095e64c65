// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's network: two namespaces joined by a veth pair, the responder
 * under test on one end, the sink (and the generator) on the other.
 *
 *   ns xbench-s-ID                        ns xbench-r-ID
 *   +------------------------+            +------------------------+
 *   | xsID 198.18.0.1        |   veth     | xrID 198.18.0.2        |
 *   | XDP: sink (native)     |<---------->| kernel | xdpong | bare  |
 *   | generator: test_run    |            | GRO on (NAPI w/o XDP)  |
 *   +------------------------+            +------------------------+
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/wait.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include "driver.h"
#include "util.h"
#include "sink.skel.h"
#include "reflect.skel.h"

const char *const layout_name[LAYOUT_N] = { "one-cpu", "two-cpu" };
const char *const layout_desc[LAYOUT_N] = {
	"generator, responder and sink all on CPU 0 (closed loop)",
	"generator on CPU 0; responder and sink on CPU 1 (threaded NAPI)",
};

/*
 * Run `sh -c CMD` (in namespace nsfd unless -1), output to /dev/null
 * unless verbose, killed after timeout_s. Returns the exit status or -1.
 */
static int run_capture(int timeout_s, int nsfd, char *out, size_t out_size, const char *cmd)
{
	int pipefd[2] = { -1, -1 }, status = 0;
	size_t got = 0;
	double deadline;
	pid_t pid;

	dbg("+ %s", cmd);
	if (out && pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET))
			_exit(126);
		if (out)
			dup2(pipefd[1], 1);
		else if (!bench_verbose)
			dup2(devnull, 1);
		if (!bench_verbose)
			dup2(devnull, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	if (out) {
		close(pipefd[1]);
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	}
	deadline = now_s() + timeout_s;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (out) {
			ssize_t n;

			while (got + 1 < out_size &&
			       (n = read(pipefd[0], out + got, out_size - 1 - got)) > 0)
				got += n;
		}
		if (w == pid)
			break;
		if (now_s() > deadline) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail("timed out after %d s: %s", timeout_s, cmd);
			status = -1;
			break;
		}
		usleep(2000);
	}
	if (out) {
		ssize_t n;

		while (got + 1 < out_size &&
		       (n = read(pipefd[0], out + got, out_size - 1 - got)) > 0)
			got += n;
		out[got] = 0;
		close(pipefd[0]);
	}
	if (status == -1)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int run_cmd(int timeout_s, int nsfd, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return run_capture(timeout_s, nsfd, NULL, 0, cmd);
}

int run_out(int timeout_s, char *out, size_t size, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return run_capture(timeout_s, -1, out, size, cmd);
}

static int open_ns(const char *name)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("cannot open %s: %s", path, strerror(errno));
	return fd;
}

/*
 * For the user-space stack: a TUN device in the responder's namespace; the
 * responder forwards 198.18.1.0/24 into it and tun-stack answers for
 * 198.18.1.2, so its probes cross the same veth and NAPI as every other.
 */
static int tun_setup(struct bench_env *env)
{
	int err = 0;

	snprintf(env->if_tun, sizeof(env->if_tun), "xt%s", env->id);
	err |= run_cmd(10, -1, "ip -n %s tuntap add dev %s mode tun", env->net.ns_r, env->if_tun);
	err |= run_cmd(10, -1, "ip -n %s addr add " IP4_TUN_LOCAL "/24 dev %s", env->net.ns_r,
		       env->if_tun);
	err |= run_cmd(10, -1, "ip -n %s link set %s up", env->net.ns_r, env->if_tun);
	err |= run_cmd(10, -1, "ip netns exec %s sysctl -qw net.ipv4.ip_forward=1", env->net.ns_r);
	err |= run_cmd(10, -1, "ip -n %s route add " IP4_TUN_NET " via " IP4_RESPONDER,
		       env->net.ns_s);
	return err ? fail("cannot set up the TUN device for tun-stack") : 0;
}

static int tun_stack_start(struct bench_env *env)
{
	int cpu = env->layout == LAYOUT_TWO_CPU ? 1 : 0;
	pid_t pid = fork();

	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (pid == 0) {
		cpu_set_t set;

		setpgid(0, 0);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (setns(env->net.nsfd_r, CLONE_NEWNET) || sched_setaffinity(0, sizeof(set), &set))
			_exit(126);
		execl(env->tun_stack_bin, env->tun_stack_bin, "--tun", env->if_tun, "--addr",
		      IP4_TUN_PEER, (char *)NULL);
		_exit(127);
	}
	env->tun_pid = pid;
	if (rtt_wait_answer(env, IP4_TUN_PEER, 3.0))
		return fail("%s does not answer %s", env->tun_stack_bin, IP4_TUN_PEER);
	return 0;
}

static void tun_stack_stop(struct bench_env *env)
{
	int status;

	if (env->tun_pid <= 0)
		return;
	kill(env->tun_pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(env->tun_pid, &status, WNOHANG) == env->tun_pid) {
			env->tun_pid = 0;
			return;
		}
		usleep(10000);
	}
	kill(-env->tun_pid, SIGKILL);
	waitpid(env->tun_pid, &status, 0);
	env->tun_pid = 0;
}

int pair_create(struct bench_env *env, struct veth_pair *p, const char *tag, const char *mac_s,
		const char *mac_r, const char *ip_s, const char *ip_r)
{
	char addr_s[32] = "", addr_r[32] = "", q[64] = "";
	int err = 0;

	snprintf(p->ns_s, sizeof(p->ns_s), "xbench-%ss-%s", tag, env->id);
	snprintf(p->ns_r, sizeof(p->ns_r), "xbench-%sr-%s", tag, env->id);
	snprintf(p->if_s, sizeof(p->if_s), "x%ss%s", tag, env->id);
	snprintf(p->if_r, sizeof(p->if_r), "x%sr%s", tag, env->id);
	if (mac_s && mac_r) {
		snprintf(addr_s, sizeof(addr_s), "address %s", mac_s);
		snprintf(addr_r, sizeof(addr_r), "address %s", mac_r);
	}
	if (p->queues > 0)
		snprintf(q, sizeof(q), "numtxqueues %d numrxqueues %d", p->queues, p->queues);
	p->nsfd_s = p->nsfd_r = -1;
	if (run_cmd(10, -1, "ip netns add %s", p->ns_s))
		return fail("cannot create namespace %s", p->ns_s);
	p->up = true;
	if (run_cmd(10, -1, "ip netns add %s", p->ns_r))
		return fail("cannot create namespace %s", p->ns_r);
	p->nsfd_s = open_ns(p->ns_s);
	p->nsfd_r = open_ns(p->ns_r);
	if (p->nsfd_s < 0 || p->nsfd_r < 0)
		return -1;
	err |= run_cmd(10, -1,
		       "ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
		       "net.ipv6.conf.default.disable_ipv6=1",
		       p->ns_s);
	err |= run_cmd(10, -1,
		       "ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
		       "net.ipv6.conf.default.disable_ipv6=1",
		       p->ns_r);
	err |= run_cmd(10, -1, "ip -n %s link add %s %s %s type veth peer name %s %s %s netns %s",
		       p->ns_s, p->if_s, addr_s, q, p->if_r, addr_r, q, p->ns_r);
	err |= run_cmd(10, -1, "ip -n %s addr add %s/24 dev %s", p->ns_s, ip_s, p->if_s);
	err |= run_cmd(10, -1, "ip -n %s addr add %s/24 dev %s", p->ns_r, ip_r, p->if_r);
	err |= run_cmd(10, -1, "ip -n %s link set lo up && ip -n %s link set %s up", p->ns_s,
		       p->ns_s, p->if_s);
	err |= run_cmd(10, -1, "ip -n %s link set lo up && ip -n %s link set %s up", p->ns_r,
		       p->ns_r, p->if_r);
	if (err)
		return fail("cannot set up the veth pair %s/%s", p->if_s, p->if_r);
	if (enter_ns(p->nsfd_r))
		return -1;
	p->ifindex_r = if_nametoindex(p->if_r);
	if (enter_ns(p->nsfd_s))
		return -1;
	p->ifindex_s = if_nametoindex(p->if_s);
	if (!p->ifindex_s || !p->ifindex_r)
		return fail("veth pair %s/%s not found", p->if_s, p->if_r);
	return 0;
}

void pair_delete(struct bench_env *env, struct veth_pair *p)
{
	if (env->nsfd_orig >= 0)
		enter_ns(env->nsfd_orig);
	if (p->nsfd_s >= 0)
		close(p->nsfd_s);
	if (p->nsfd_r >= 0)
		close(p->nsfd_r);
	p->nsfd_s = p->nsfd_r = -1;
	if (p->up) {
		run_cmd(10, -1, "ip netns del %s", p->ns_s);
		run_cmd(10, -1, "ip netns del %s", p->ns_r);
		p->up = false;
	}
}

/*
 * Static neighbours both ways (the sink drops nothing but replies, yet ARP
 * timing must not add to any trial), and NAPI on the responder's end: frames
 * injected into a veth arrive only with NAPI on (GRO, or XDP). 0, or not 0.
 */
int pair_neigh_napi(const struct veth_pair *p, const char *mac_s, const char *mac_r)
{
	int err = 0;

	err |= run_cmd(10, -1,
		       "ip -n %s neigh replace " IP4_RESPONDER " lladdr %s dev %s "
		       "nud permanent",
		       p->ns_s, mac_r, p->if_s);
	err |= run_cmd(10, -1,
		       "ip -n %s neigh replace " IP4_SENDER " lladdr %s dev %s "
		       "nud permanent",
		       p->ns_r, mac_s, p->if_r);
	err |= run_cmd(10, p->nsfd_r, "ethtool -K %s gro on", p->if_r);
	return err;
}

/* The sink, native, on the sender's end; ends in the sender's namespace. 0 or -1, said. */
int pair_sink_attach(struct bench_env *env, const struct veth_pair *p)
{
	int err;

	if (enter_ns(p->nsfd_s))
		return -1;
	err = bpf_xdp_attach(p->ifindex_s, bpf_program__fd(env->sink->progs.bench_sink),
			     XDP_FLAGS_DRV_MODE, NULL);
	if (err)
		return fail("cannot attach the sink to %s: %s", p->if_s, strerror(-err));
	return 0;
}

int net_setup(struct bench_env *env)
{
	static const char *mac_s = "02:b0:00:00:00:01", *mac_r = "02:b0:00:00:00:02";
	struct veth_pair *p = &env->net;
	int err = 0;

	if (pair_create(env, p, "", mac_s, mac_r, IP4_SENDER, IP4_RESPONDER))
		return -1;
	err = pair_neigh_napi(p, mac_s, mac_r);
	/* Without TSO on the sender, veth hands the prober's skbs to the
	 * responder's NAPI too (not netif_rx on the sending CPU), so every
	 * responder, kernel included, runs where the layout puts the NAPI. */
	err |= run_cmd(10, p->nsfd_s, "ethtool -K %s tso off", p->if_s);
	if (env->tun_stack)
		err |= tun_setup(env);
	if (err)
		return fail("cannot set up the veth pair");
	return pair_sink_attach(env, p);
}

void net_teardown(struct bench_env *env)
{
	if (env->attached)
		responder_detach(env);
	env->rpair = &env->net;
	pair_delete(env, &env->mq);
	pair_delete(env, &env->net);
}

static int xdpong_cmd(struct bench_env *env, const char *args)
{
	return run_cmd(60, -1, "ip netns exec %s %s %s", env->rpair->ns_r, env->xdpong_bin, args);
}

int responder_attach(struct bench_env *env, const struct responder *r)
{
	__u32 flags = r->native ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
	char args[256];
	int err = 0, n;

	if (env->attached)
		responder_detach(env);
	switch (r->kind) {
	case RESP_KERNEL:
		break;
	case RESP_TUN_STACK:
		env->attached = r;
		if (tun_stack_start(env))
			return -1;
		break;
	case RESP_XDPONG:
		n = snprintf(args, sizeof(args), "attach %s --mode %s --force", env->rpair->if_r,
			     r->native ? "native" : "skb");
		if (r->latency_sample != LAT_LOADER_DEFAULT)
			n += snprintf(args + n, sizeof(args) - n, " --latency-sample %d",
				      r->latency_sample == LAT_BENCH_N ? env->sample_n :
									 r->latency_sample);
		if (r->limits)
			n += snprintf(args + n, sizeof(args) - n,
				      " --rate-limit %s --global-limit %s", LIMITS_FAR_ABOVE,
				      LIMITS_FAR_ABOVE);
		if (r->stamp) /* the default port, BENCH_STAMP_PORT */
			snprintf(args + n, sizeof(args) - n, " --stamp");
		if (xdpong_cmd(env, args))
			return fail("`xdpong %s` failed (run with -v to see why)", args);
		break;
	case RESP_BARE:
	case RESP_CHECK:
		if (enter_ns(env->rpair->nsfd_r))
			return -1;
		err = bpf_xdp_attach(env->rpair->ifindex_r,
				     bpf_program__fd(r->kind == RESP_CHECK ?
							     env->reflect->progs.bench_check :
							     env->reflect->progs.bench_reflect),
				     flags, NULL);
		enter_ns(env->rpair->nsfd_s);
		if (err)
			return fail("cannot attach %s to %s: %s", r->name, env->rpair->if_r,
				    strerror(-err));
		break;
	}
	env->attached = r;
	env->attached_flags = flags;
	return 0;
}

int responder_detach(struct bench_env *env)
{
	const struct responder *r = env->attached;
	char args[128];
	int err = 0;

	if (!r)
		return 0;
	env->attached = NULL;
	switch (r->kind) {
	case RESP_KERNEL:
		break;
	case RESP_TUN_STACK:
		tun_stack_stop(env);
		break;
	case RESP_XDPONG:
		snprintf(args, sizeof(args), "detach %s", env->rpair->if_r);
		err = xdpong_cmd(env, args);
		break;
	case RESP_BARE:
	case RESP_CHECK:
		if (enter_ns(env->rpair->nsfd_r))
			return -1;
		err = bpf_xdp_detach(env->rpair->ifindex_r, env->attached_flags, NULL);
		enter_ns(env->rpair->nsfd_s);
		break;
	}
	return err ? fail("cannot detach %s from %s", r->name, env->rpair->if_r) : 0;
}

#define NAPI_RT_PRIO 50

/* Pin every NAPI kthread of the responder's veth ("napi/IF-ID") to cpu. */
static int pin_napi_threads(const char *ifname, int cpu)
{
	char prefix[32], path[64], comm[32];
	struct dirent *de;
	int found = 0;
	struct sched_param rt = { .sched_priority = NAPI_RT_PRIO };
	cpu_set_t set;
	DIR *d;

	snprintf(prefix, sizeof(prefix), "napi/%s-", ifname);
	d = opendir("/proc");
	if (!d)
		return fail("cannot read /proc");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	while ((de = readdir(d))) {
		FILE *f;
		int pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, prefix, strlen(prefix))) {
			/* Real-time, as softirq NAPI on a real NIC: other
			 * processes on the CPU must not delay it. */
			if (sched_setaffinity(pid, sizeof(set), &set) ||
			    sched_setscheduler(pid, SCHED_FIFO, &rt))
				fail("cannot place NAPI thread %d on CPU %d: %s", pid, cpu,
				     strerror(errno));
			else
				found++;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

int layout_apply(struct bench_env *env, enum layout layout)
{
	int threaded = layout == LAYOUT_TWO_CPU;
	int found;

	if (run_cmd(10, -1, "ip netns exec %s sh -c 'echo %d > /sys/class/net/%s/threaded'",
		    env->net.ns_r, threaded, env->net.if_r))
		return fail("cannot set threaded NAPI %d on %s", threaded, env->net.if_r);
	env->layout = layout;
	if (!threaded)
		return 0;
	/* The kthread is created with the NAPI; the scheduler may still move it. */
	for (int i = 0; i < 50; i++) {
		found = pin_napi_threads(env->net.if_r, 1);
		if (found > 0)
			return 0;
		usleep(10000);
	}
	return fail("no NAPI thread for %s: cannot place the responder on CPU 1", env->net.if_r);
}

/* A counter of `xdpong stats --json`: at the top level, or under "reasons". */
static int json_counter(struct json_object *o, const char *name, unsigned long long *v)
{
	struct json_object *reasons, *n;

	if (!json_object_object_get_ex(o, name, &n) &&
	    !(json_object_object_get_ex(o, "reasons", &reasons) &&
	      json_object_object_get_ex(reasons, name, &n)))
		return fail("no \"%s\" in `xdpong stats --json`", name);
	*v = json_object_get_uint64(n);
	return 0;
}

int xdpong_counters(struct bench_env *env, struct xdpong_read *out)
{
	struct json_object *o;
	char buf[16384];
	int err;

	if (run_out(20, buf, sizeof(buf), "ip netns exec %s %s stats %s --json", env->rpair->ns_r,
		    env->xdpong_bin, env->rpair->if_r))
		return fail("`xdpong stats %s --json` failed", env->rpair->if_r);
	o = json_tokener_parse(buf);
	if (!o)
		return fail("`xdpong stats --json` is not JSON: %.200s", buf);
	err = json_counter(o, "replied", &out->replied) ||
	      json_counter(o, "tx_failed", &out->tx_failed) ||
	      json_counter(o, "drop_rate_limited", &out->rate_limited) ||
	      json_counter(o, "drop_global_limited", &out->global_limited);
	json_object_put(o);
	return err ? -1 : 0;
}

int veth_rxq_packets(struct bench_env *env, unsigned long long *pkts, int queues)
{
	char buf[16384], key[48], *p;

	if (run_out(10, buf, sizeof(buf), "ip netns exec %s ethtool -S %s", env->rpair->ns_r,
		    env->rpair->if_r))
		return fail("`ethtool -S %s` failed", env->rpair->if_r);
	for (int q = 0; q < queues; q++) {
		snprintf(key, sizeof(key), "rx_queue_%d_xdp_packets:", q);
		p = strstr(buf, key);
		if (!p)
			return fail("no %s in `ethtool -S %s`", key, env->rpair->if_r);
		pkts[q] = strtoull(p + strlen(key), NULL, 10);
	}
	return 0;
}

/* The loader's default for --latency-sample, from its help: "(default N". */
int xdpong_latency_default(struct bench_env *env)
{
	char out[8192], *p;

	if (run_out(10, out, sizeof(out), "%s attach --help 2>&1", env->xdpong_bin) < 0)
		return -1;
	p = strstr(out, "--latency-sample");
	if (!p || !(p = strstr(p, "(default ")))
		return -1;
	return atoi(p + strlen("(default "));
}
