// SPDX-License-Identifier: GPL-2.0
/* The XDP program's test fixture: see xdpong_fixture.h. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpong_fixture.h" /* xdpong.h: the skeleton names its structs */
#include "xdpong.skel.h"
#include "../../loader/up/up.h"

const uint8_t xf_our_mac[6] = XF_OUR_MAC;

int xf_ncpus;

/* RFC 5737 / RFC 3849 documentation ranges, as `xdpong attach` would load them. */
static const char *const local_prefixes[] = {
	"192.0.2.1/32", "198.51.100.0/24", "2001:db8::1/128", "2001:db8:1::/64",
	"198.51.100.255/32",
};
static const uint32_t local_origin[] = {
	XDPONG_ADDR_IFACE, XDPONG_ADDR_OPERATOR, XDPONG_ADDR_IFACE,
	XDPONG_ADDR_OPERATOR, XDPONG_ADDR_BROADCAST,
};

#define N_PREFIXES ARRAY_SIZE(local_prefixes)
static struct prefix prefixes[N_PREFIXES];
static struct prefix own_prefixes[N_PREFIXES];
static size_t n_own;
/* What the reference answers for, and the subnet broadcasts it must not. */
static struct prefix ours[N_PREFIXES];
static size_t n_ours;
static struct prefix bcast_prefixes[N_PREFIXES];
static size_t n_bcast;

int xf_init(void)
{
	xf_ncpus = libbpf_num_possible_cpus();
	if (xf_ncpus <= 0) {
		fprintf(stderr, "cannot count possible CPUs\n");
		return -1;
	}
	n_own = n_ours = n_bcast = 0;
	for (size_t p = 0; p < N_PREFIXES; p++) {
		if (prefix_parse(local_prefixes[p], &prefixes[p])) {
			fprintf(stderr, "bad fixture prefix %s\n", local_prefixes[p]);
			return -1;
		}
		if (local_origin[p] == XDPONG_ADDR_IFACE)
			own_prefixes[n_own++] = prefixes[p];
		if (local_origin[p] == XDPONG_ADDR_BROADCAST)
			bcast_prefixes[n_bcast++] = prefixes[p];
		else
			ours[n_ours++] = prefixes[p];
	}
	return 0;
}

const char *xf_action_name(unsigned int action)
{
	static const char *const names[] = { "XDP_ABORTED", "XDP_DROP", "XDP_PASS",
					     "XDP_TX", "XDP_REDIRECT" };

	return action < ARRAY_SIZE(names) ? names[action] : "XDP_?";
}

int xf_libbpf_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int xf_open(struct xf_instance *in, enum pkt_framing framing, bool check_mac,
	    __u32 latency_sample)
{
	/* The build and flags the loader would use on this kernel. */
	struct xdpong_bpf *skel = xdpong_skel_open();

	if (!skel)
		return -errno;
	xdpong_skel_set_frags(skel);
	xdpong_skel_set_txwatch(skel);
	skel->rodata->cfg_framing = framing == PKT_FRAMING_IP ? XDPONG_FRAMING_IP :
								XDPONG_FRAMING_ETH;
	skel->rodata->cfg_check_mac = check_mac;
	memcpy((void *)&skel->bss->if_mac, xf_our_mac, 6);
	skel->rodata->cfg_latency_sample = latency_sample;
	in->skel = skel;

	in->ref.framing = framing;
	in->ref.check_mac = check_mac;
	memcpy(in->ref.mac, xf_our_mac, 6);
	in->ref.local = ours;
	in->ref.n_local = n_ours;
	in->ref.broadcast = bcast_prefixes;
	in->ref.n_broadcast = n_bcast;
	in->ref.own = own_prefixes;
	in->ref.n_own = n_own;
	in->ref.max_icmp_len = XDPONG_MAX_ICMP_LEN;
	return 0;
}

int xf_map_add(struct xdpong_bpf *skel, const struct prefix *p, uint32_t origin)
{
	struct xdpong_addr_info info = { .origin = origin };

	if (p->family == AF_INET) {
		struct xdpong_addr4_key k = { .prefixlen = p->len };

		memcpy(k.addr, p->addr, 4);
		return bpf_map__update_elem(skel->maps.xdpong_addr4, &k, sizeof(k),
					    &info, sizeof(info), BPF_ANY);
	} else {
		struct xdpong_addr6_key k = { .prefixlen = p->len };

		memcpy(k.addr, p->addr, 16);
		return bpf_map__update_elem(skel->maps.xdpong_addr6, &k, sizeof(k),
					    &info, sizeof(info), BPF_ANY);
	}
}

int xf_fill(struct xf_instance *in)
{
	for (size_t p = 0; p < N_PREFIXES; p++) {
		int err = xf_map_add(in->skel, &prefixes[p], local_origin[p]);

		if (err)
			return err;
	}
	in->prog_fd = bpf_program__fd(in->skel->progs.xdpong);
	in->stats_fd = bpf_map__fd(in->skel->maps.xdpong_stats);
	in->lat_fd = bpf_map__fd(in->skel->maps.xdpong_latency);
	return 0;
}

int xf_fill_own(struct xf_instance *in)
{
	struct xdpong_own_addrs *own = &in->skel->bss->own_addrs[0];

	memset(own, 0, sizeof(*own));
	for (size_t p = 0; p < N_PREFIXES; p++) {
		const struct prefix *x = &prefixes[p];

		if (x->len != (x->family == AF_INET ? 32u : 128u))
			continue;
		if (local_origin[p] == XDPONG_ADDR_IFACE && x->family == AF_INET)
			memcpy(own->v4[own->n4++], x->addr, 4);
		else if (local_origin[p] == XDPONG_ADDR_BROADCAST && x->family == AF_INET)
			memcpy(own->bcast4[own->n_bcast4++], x->addr, 4);
		else if (local_origin[p] == XDPONG_ADDR_IFACE)
			memcpy(own->v6[own->n6++], x->addr, 16);
	}
	in->skel->bss->own_addrs_cur = 1;
	return 0;
}

int xf_read_counters(int stats_fd, int ncpus, __u64 out[XDPONG_R_MAX])
{
	struct xdpong_counters vals[ncpus];
	__u32 key = 0;

	if (bpf_map_lookup_elem(stats_fd, &key, vals))
		return -errno;
	memset(out, 0, sizeof(__u64) * XDPONG_R_MAX);
	for (int c = 0; c < ncpus; c++) {
		const __u64 *v = (const __u64 *)&vals[c];

		for (int r = 0; r < XDPONG_R_MAX; r++)
			out[r] += v[r];
	}
	return 0;
}

int xf_read_latency(int lat_fd, int ncpus, struct xdpong_latency *out)
{
	struct xdpong_latency vals[ncpus];
	__u32 key = 0;

	if (bpf_map_lookup_elem(lat_fd, &key, vals))
		return -errno;
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < ncpus; c++) {
		for (int s = 0; s < XDPONG_LAT_SLOTS; s++)
			out->slots[s] += vals[c].slots[s];
		out->sum_ns += vals[c].sum_ns;
		out->count += vals[c].count;
	}
	return 0;
}

int xf_read_counters_cpu(int stats_fd, int ncpus, int cpu, __u64 out[XDPONG_R_MAX])
{
	struct xdpong_counters vals[ncpus];
	__u32 key = 0;

	if (cpu < 0 || cpu >= ncpus)
		return -EINVAL;
	if (bpf_map_lookup_elem(stats_fd, &key, vals))
		return -errno;
	memcpy(out, &vals[cpu], sizeof(__u64) * XDPONG_R_MAX);
	return 0;
}

int xf_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int xf_usable_cpus(int *cpus, int n)
{
	cpu_set_t set;
	int got = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && got < n; c++)
		if (CPU_ISSET(c, &set))
			cpus[got++] = c;
	return got;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

struct cpu_thread {
	struct xf_cpu_run *run;
	int prog_fd;
	__u64 duration_ns;
	pthread_barrier_t *go;
};

static void *cpu_thread_main(void *arg)
{
	struct cpu_thread *t = arg;
	struct xf_cpu_run *r = t->run;
	__u64 deadline;

	r->err = xf_pin_cpu(r->cpu);
	/* Best effort: without CAP_SYS_NICE the run is only more exposed to gaps. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), -20);
	pthread_barrier_wait(t->go);
	if (r->err)
		return NULL;
	r->start_ns = mono_ns();
	deadline = r->start_ns + t->duration_ns;
	for (__u64 prev = 0, start = r->start_ns;; start = mono_ns()) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = r->frame,
			    .data_size_in = (__u32)r->len, .repeat = 1);
		int err = bpf_prog_test_run_opts(t->prog_fd, &opts);

		if (err) {
			r->err = err;
			break;
		}
		r->end_ns = mono_ns();
		if (!r->runs++)
			r->first_end_ns = r->end_ns;
		if (prev && r->end_ns - prev > r->gap_free_ns)
			r->gap_ns += r->end_ns - prev - r->gap_free_ns;
		prev = start;
		if (r->end_ns >= deadline)
			break;
	}
	return NULL;
}

int xf_run_on_cpus(int prog_fd, struct xf_cpu_run *runs, int n, double seconds)
{
	struct cpu_thread t[n];
	pthread_t tid[n];
	pthread_barrier_t go;
	int ret = 0, started = 0;

	if (pthread_barrier_init(&go, NULL, (unsigned int)n))
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		runs[i].start_ns = runs[i].first_end_ns = runs[i].end_ns = 0;
		runs[i].runs = runs[i].gap_ns = 0;
		runs[i].err = 0;
		t[i] = (struct cpu_thread){ .run = &runs[i], .prog_fd = prog_fd,
					    .duration_ns = (__u64)(seconds * 1e9), .go = &go };
		if (pthread_create(&tid[i], NULL, cpu_thread_main, &t[i])) {
			/* The barrier would wait for it forever. */
			fprintf(stderr, "cannot start a thread\n");
			abort();
		}
		started++;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		if (!ret && runs[i].err)
			ret = runs[i].err;
	}
	pthread_barrier_destroy(&go);
	return ret;
}
