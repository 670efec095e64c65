// Ad hoc (not committed): answered rate on a veth pair with 2 queues, one
// live-frames generator per CPU (each CPU a closed loop: generator,
// responder's NAPI and sink). The responder is attached by the caller.
// usage: mqrate NCPU SECONDS
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "packet.h"
#include "gen.skel.h"
#include "sink.skel.h"

static struct gen_bpf *gen;
static int ifindex;
static __u8 frame[BENCH_FRAME_LEN];

static void on_alarm(int s) { (void)s; }

struct th { int cpu; int err; };

static void *run(void *a)
{
	struct th *t = a;
	cpu_set_t s;
	struct xdp_md ctx = { .data_end = BENCH_FRAME_LEN, .ingress_ifindex = ifindex };
	__u8 f[BENCH_FRAME_LEN];

	memcpy(f, frame, sizeof(f));
	CPU_ZERO(&s);
	CPU_SET(t->cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f, .data_size_in = sizeof(f),
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = INT_MAX,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = 64);
	t->err = bpf_prog_test_run_opts(bpf_program__fd(gen->progs.bench_gen), &o);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = atoi(argv[1]), ncpu = libbpf_num_possible_cpus();
	double secs = atof(argv[2]);
	struct sink_bpf *sink;
	struct pkt_spec s;
	struct sigaction sa = { .sa_handler = on_alarm };
	pthread_t tid[2];
	struct th t[2];
	static const __u8 mac_s[6] = { 2, 0xb0, 0, 0, 0, 1 }, mac_r[6] = { 2, 0xb0, 0, 0, 0, 2 };
	int fd = open("/run/netns/xmq-s", O_RDONLY);

	if (fd < 0 || setns(fd, CLONE_NEWNET)) { perror("setns"); return 1; }
	ifindex = if_nametoindex("xmqs");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	gen = gen_bpf__open_and_load();
	sink = sink_bpf__open_and_load();
	if (!gen || !sink) { fprintf(stderr, "load\n"); return 1; }
	if (bpf_xdp_attach(ifindex, bpf_program__fd(sink->progs.bench_sink), XDP_FLAGS_DRV_MODE, NULL)) {
		perror("attach sink"); return 1;
	}
	sink->bss->sink_pass_replies = 0;
	pkt_spec_init(&s, 4, PKT_FRAMING_ETH);
	memcpy(s.eth_dst, mac_r, 6);
	memcpy(s.eth_src, mac_s, 6);
	s.ttl = 64;
	inet_pton(AF_INET, "198.18.0.1", s.ip4_src);
	inet_pton(AF_INET, "198.18.0.2", s.ip4_dst);
	s.payload_len = BENCH_FRAME_LEN - 14 - 28;
	if (pkt_build(&s, frame, sizeof(frame)) != BENCH_FRAME_LEN) { fprintf(stderr, "frame\n"); return 1; }
	memcpy(gen->bss->gen_frame, frame, BENCH_FRAME_WORDS * 8);
	memcpy(&gen->bss->gen_frame_tail, frame + BENCH_FRAME_WORDS * 8, 2);
	if (argc > 3) /* only attach the sink */
		return 0;
	for (int i = 0; i < n; i++) {
		t[i] = (struct th){ .cpu = i };
		pthread_create(&tid[i], NULL, run, &t[i]);
	}
	usleep((useconds_t)(secs * 1e6));
	for (int k = 0; k < 20; k++) /* until each syscall ends */
		for (int i = 0; i < n; i++)
			pthread_kill(tid[i], SIGALRM);
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	usleep(20000);
	struct bench_sink_counters vals[ncpu];
	__u32 key = 0;
	bpf_map_lookup_elem(bpf_map__fd(sink->maps.bench_sink_stats), &key, vals);
	unsigned long long tot = 0;
	printf("cpus %d:", n);
	for (int i = 0; i < ncpu; i++) {
		printf(" cpu%d %.3f Mpps", i, vals[i].replies / secs / 1e6);
		tot += vals[i].replies;
	}
	printf(" total %.3f Mpps (sent %llu)\n", tot / secs / 1e6, (unsigned long long)gen->bss->gen_sent);
	return 0;
}
