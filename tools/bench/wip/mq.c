#define _GNU_SOURCE
// Ad hoc (not committed): xdpong's cost per 98-byte echo with the limits
// off and on, on 1 CPU and on 2 CPUs at once (one thread pinned to each,
// the same source), through the bench's K-fold cost harness.
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpong.h"
#include "packet.h"
#include "xdpong_cost.skel.h"

#define K 16
static uint8_t frame[256];
static size_t flen;

struct th { int cpu, fd, repeat; double ns; int err; pthread_barrier_t *b; };

static void *go(void *a)
{
	struct th *t = a;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(t->cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
	pthread_barrier_wait(t->b);
	double sum = 0;
	for (int i = 0; i < 5; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = flen,
			    .repeat = t->repeat);
		t->err = bpf_prog_test_run_opts(t->fd, &o);
		if (t->err || o.retval != 3) { fprintf(stderr, "err %d ret %u\n", t->err, o.retval); t->err = -1; return NULL; }
		sum += o.duration + 0.5;
	}
	t->ns = sum / 5 / K;
	return NULL;
}

static struct xdpong_cost_bpf *load(int limits)
{
	struct xdpong_cost_bpf *x = xdpong_cost_bpf__open();
	int ncpu = libbpf_num_possible_cpus();
	if (limits & 1) {
		x->rodata->cfg_rate_cost_ns = 1;
		x->rodata->cfg_rate_tolerance_ns = 1000000000ULL - 1;
#ifdef NEW
		x->rodata->cfg_rate_batch = 64;
		x->rodata->cfg_rate_held_ns = (__u64)ncpu * 63;
#endif
	}
	if (limits & 2) {
		x->rodata->cfg_global_cost_ns = 1;
		x->rodata->cfg_global_tolerance_ns = 1000000000ULL - 1;
#ifdef NEW
		x->rodata->cfg_global_batch = 64;
		x->rodata->cfg_global_held_ns = (__u64)ncpu * 63;
#endif
	}
	(void)ncpu;
	if (xdpong_cost_bpf__load(x)) { fprintf(stderr, "load failed\n"); exit(1); }
	struct xdpong_addr4_key k4 = { .prefixlen = 32 };
	struct xdpong_addr_info info = { .origin = XDPONG_ADDR_IFACE };
	inet_pton(AF_INET, "192.0.2.1", k4.addr);
	bpf_map_update_elem(bpf_map__fd(x->maps.xdpong_addr4), &k4, &info, BPF_ANY);
	memset(&x->bss->own_addrs[0], 0, sizeof(x->bss->own_addrs[0]));
	memcpy(x->bss->own_addrs[0].v4[0], k4.addr, 4);
	x->bss->own_addrs[0].n4 = 1;
	x->bss->own_addrs_cur = 1;
	return x;
}

static void measure(const char *what, struct xdpong_cost_bpf *x, int ncpu, double out[2])
{
	pthread_barrier_t b;
	pthread_t tid[2];
	struct th t[2];
	pthread_barrier_init(&b, NULL, ncpu);
	for (int i = 0; i < ncpu; i++) {
		t[i] = (struct th){ .cpu = i, .fd = bpf_program__fd(x->progs.bench_xdpong_cost_k),
				    .repeat = 200000, .b = &b };
		pthread_create(&tid[i], NULL, go, &t[i]);
	}
	for (int i = 0; i < ncpu; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < ncpu; i++)
		out[i] = t[i].ns;
	printf("%-28s %d cpu:", what, ncpu);
	for (int i = 0; i < ncpu; i++)
		printf(" cpu%d %.2f ns", i, t[i].ns);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct pkt_spec s;
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	pkt_spec_init(&s, 4, PKT_FRAMING_ETH);
	s.ttl = 64;
	flen = pkt_build(&s, frame, sizeof(frame));
	struct xdpong_cost_bpf *h[4] = { load(0), load(1), load(2), load(3) };
	const char *names[4] = { "limits off", "per source only", "global only", "both limits" };
	int only = argc > 2 ? atoi(argv[2]) : -1;
	for (int r = 0; r < rounds; r++)
		for (int ncpu = 1; ncpu <= 2; ncpu++)
			for (int i = 0; i < 4; i++) {
				double a[2];
				if (only >= 0 && i != only && i != 0)
					continue;
				measure(names[i], h[i], ncpu, a);
			}
	return 0;
}
