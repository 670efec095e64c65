// SPDX-License-Identifier: GPL-2.0
/*
 * tuntap_echo: the "wire" side of a TUN or TAP device, for the tests.
 *
 * Echo mode: creates the device, runs --setup (which attaches xdpong),
 * writes echo requests into the device's fd as a peer on the wire would,
 * reads the replies back from the same fd and checks every byte against
 * pkt_reference_reply() and every checksum with pkt_verify_csums(); then
 * runs --verify with the counters xdpong must show (TT_EXPECT), while the
 * device still exists.
 *
 * --rtt N: N requests, one at a time, and the median round trip.
 *
 * --compare-xdp: no device. The same frames through the real XDP program
 * (bpf_prog_test_run, IP framing) and through tools/tun/userpong.c, the rules
 * tun-stack and pong-hex use: reasons and reply bytes must be equal.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <net/if_arp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "parse.h"
#include "xdpong_names.h"
#include "hex.h"
#include "tun.h"
#include "userpong.h"
#include "xdpong.skel.h"
#include "xdpong_fixture.h"

#define FRAME_MAX 9216
#define REPLY_WAIT_MS 2000   /* an answer this late is no answer */
#define SILENCE_WAIT_MS 300  /* how long a request that gets none is watched */
#define NOISE_MAX 200        /* packets of the kernel's own (RS, MLD) skipped */
#define ID_BASE 0x5400

/* What a request should get, and the xdpong reason that says so. */
enum case_kind {
	GOOD,      /* an echo request for us: a byte-correct reply */
	NOT_OURS,  /* destination we do not answer for: pass_dst_not_local */
	BAD_CSUM,  /* ICMP checksum off by one: drop_bad_icmp_csum */
	OTHER_MAC, /* TAP only, sent to another MAC: pass_l2_other_host */
};

struct echo_case {
	const char *desc;
	int family;
	long payload;   /* bytes; -1: as many as the MTU allows */
	int fill;       /* payload byte, or PKT_FILL_COUNT */
	bool zero_ids;  /* id 0, seq 0: with a zero payload, the all-zero reply */
	size_t pad;     /* bytes after the IP packet (link padding) */
	enum case_kind kind;
};

static const struct echo_case cases[] = {
	{ "v4 empty payload", 4, 0, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v4 1-byte payload", 4, 1, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v4 7-byte (odd) payload", 4, 7, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v4 56-byte payload (ping's)", 4, 56, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v4 1001-byte payload", 4, 1001, 0xa5, false, 0, GOOD },
	{ "v4 MTU-sized", 4, -1, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v4 all-zero (checksum 0xffff)", 4, 0, 0, true, 0, GOOD },
	{ "v4 all-zero, 8 zero bytes", 4, 8, 0, true, 0, GOOD },
	{ "v4 padded after the IP packet", 4, 3, PKT_FILL_COUNT, false, 9, GOOD },
	{ "v4 not ours", 4, 56, PKT_FILL_COUNT, false, 0, NOT_OURS },
	{ "v4 bad ICMP checksum", 4, 56, PKT_FILL_COUNT, false, 0, BAD_CSUM },
	{ "v4 to another MAC", 4, 56, PKT_FILL_COUNT, false, 0, OTHER_MAC },
	{ "v6 empty payload", 6, 0, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v6 1-byte payload", 6, 1, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v6 7-byte (odd) payload", 6, 7, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v6 56-byte payload (ping's)", 6, 56, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v6 1001-byte payload", 6, 1001, 0x5a, false, 0, GOOD },
	{ "v6 MTU-sized", 6, -1, PKT_FILL_COUNT, false, 0, GOOD },
	{ "v6 id 0, seq 0, empty", 6, 0, 0, true, 0, GOOD },
	{ "v6 padded after the IP packet", 6, 3, PKT_FILL_COUNT, false, 9, GOOD },
	{ "v6 not ours", 6, 56, PKT_FILL_COUNT, false, 0, NOT_OURS },
	{ "v6 bad ICMP checksum", 6, 56, PKT_FILL_COUNT, false, 0, BAD_CSUM },
	{ "v6 to another MAC", 6, 56, PKT_FILL_COUNT, false, 0, OTHER_MAC },
};

struct opts {
	const char *dev;
	bool tap;
	struct prefix local4, local6, peer4, peer6, other4, other6;
	const char *setup, *verify;
	int rtt_count, rtt_interval_ms, rtt_family;
	unsigned long compare_frames, seed;
	int verbose;
};

static struct opts o;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tuntap_echo (--tun NAME | --tap NAME) --local4 A --local6 A [options]\n"
		"       tuntap_echo --compare-xdp [--frames N] [--seed S]\n"
		"\n"
		"Echo mode (default): create the device, run --setup, write echo requests\n"
		"into its fd from --peer4/--peer6 to --local4/--local6 and check the\n"
		"replies read back byte by byte; then run --verify.\n"
		"\n"
		"  --tun NAME, --tap NAME   the device to create (IFF_NO_PI)\n"
		"  --local4 A, --local6 A   the device's addresses (what xdpong answers for)\n"
		"  --peer4 A, --peer6 A     request sources (default 203.0.113.7,\n"
		"                           2001:db8:ffff::7)\n"
		"  --setup CMD              sh -c CMD once the device exists (TT_DEV set)\n"
		"  --verify CMD             sh -c CMD after the checks, device still up;\n"
		"                           TT_EXPECT holds 'reason=count ...' that xdpong's\n"
		"                           counters must show, TT_SENT the frames written\n"
		"  --rtt N                  instead: N IPv4 (--family 6: IPv6) requests, one\n"
		"                           at a time, --interval MS apart (default 200);\n"
		"                           print the round trips and their median\n"
		"  --compare-xdp            the XDP program and tools/tun/userpong.c on the\n"
		"                           same frames (--frames N random ones too)\n"
		"  -v                       more output\n"
		"\n"
		"Example (tests/tuntap/xdp_tap.sh does this):\n"
		"  tuntap_echo --tap tap0 --local4 192.0.2.1 --local6 2001:db8::1 \\\n"
		"      --setup 'ip addr add 192.0.2.1/24 dev $TT_DEV && ...' --verify '...'\n");
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int run_shell(const char *what, const char *cmd)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	fprintf(stderr, "tuntap_echo: the %s command failed (%s %d)\n", what,
		WIFEXITED(status) ? "exit" : "signal",
		WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return -1;
}

static int if_ioctl(const char *name, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), e = 0;

	if (fd < 0)
		return -errno;
	memset(ifr, 0, sizeof(*ifr));
	memcpy(ifr->ifr_name, name, strnlen(name, IFNAMSIZ - 1));
	if (ioctl(fd, req, ifr))
		e = -errno;
	close(fd);
	return e;
}

/* Where the IP header is, and the ICMP id/seq of an echo reply in frame. */
static bool echo_reply_ids(const uint8_t *f, size_t len, bool tap, int *family,
			   uint16_t *id, uint16_t *seq)
{
	size_t l3 = 0, icmp;

	if (tap) {
		if (len < PKT_ETH_HLEN)
			return false;
		l3 = PKT_ETH_HLEN;
	}
	if (len < l3 + 1)
		return false;
	if (f[l3] >> 4 == 4) {
		icmp = l3 + (size_t)(f[l3] & 15) * 4;
		if (len < icmp + PKT_ICMP_HLEN || f[l3 + 9] != PKT_PROTO_ICMP ||
		    f[icmp] != PKT_ICMP_ECHOREPLY)
			return false;
		*family = 4;
	} else if (f[l3] >> 4 == 6) {
		icmp = l3 + PKT_IP6_HLEN;
		if (len < icmp + PKT_ICMP_HLEN || f[l3 + 6] != PKT_PROTO_ICMPV6 ||
		    f[icmp] != PKT_ICMPV6_ECHO_REPLY)
			return false;
		*family = 6;
	} else {
		return false;
	}
	*id = (uint16_t)(f[icmp + 4] << 8 | f[icmp + 5]);
	*seq = (uint16_t)(f[icmp + 6] << 8 | f[icmp + 7]);
	return true;
}

/*
 * Read until the echo reply with (family, id, seq) arrives or wait_ms
 * passes, skipping the kernel's own packets. Returns its length, 0 if
 * none came, -1 on error.
 */
static long wait_reply(int fd, int family, uint16_t id, uint16_t seq, int wait_ms,
		       uint8_t *buf, size_t cap, int *noise)
{
	double deadline = now_ms() + wait_ms;

	for (int i = 0; i < NOISE_MAX; i++) {
		int left = (int)(deadline - now_ms()), fam;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint16_t got_id, got_seq;
		ssize_t n;

		if (left <= 0)
			return 0;
		if (poll(&p, 1, left) <= 0)
			continue; /* timed out (or EINTR): the deadline decides */
		n = read(fd, buf, cap);
		if (n < 0) {
			fprintf(stderr, "tuntap_echo: read: %s\n", strerror(errno));
			return -1;
		}
		if (echo_reply_ids(buf, (size_t)n, o.tap, &fam, &got_id, &got_seq) &&
		    fam == family && got_id == id && got_seq == seq)
			return n;
		(*noise)++;
		if (o.verbose > 1) {
			fprintf(stderr, "  (skipped %zd bytes of the kernel's own)\n", n);
			pkt_hexdump(stderr, "    ", buf, (size_t)n);
		}
	}
	return 0;
}

static unsigned int device_mtu(void)
{
	struct ifreq ifr;

	return if_ioctl(o.dev, SIOCGIFMTU, &ifr) ? 1500 : (unsigned int)ifr.ifr_mtu;
}

/* One case's request frame into buf; its length. */
static size_t build_request(const struct echo_case *c, int index, const uint8_t mac[6],
			    unsigned int mtu, uint8_t *buf)
{
	static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x02 };
	static const uint8_t other_mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x99 };
	struct pkt_spec s;

	pkt_spec_init(&s, c->family, o.tap ? PKT_FRAMING_ETH : PKT_FRAMING_IP);
	memcpy(s.eth_dst, c->kind == OTHER_MAC ? other_mac : mac, 6);
	memcpy(s.eth_src, peer_mac, 6);
	memcpy(s.ip4_src, o.peer4.addr, 4);
	memcpy(s.ip4_dst, (c->kind == NOT_OURS ? &o.other4 : &o.local4)->addr, 4);
	memcpy(s.ip6_src, o.peer6.addr, 16);
	memcpy(s.ip6_dst, (c->kind == NOT_OURS ? &o.other6 : &o.local6)->addr, 16);
	s.payload_len = c->payload >= 0 ? (size_t)c->payload :
			mtu - (c->family == 4 ? PKT_IP4_HLEN : PKT_IP6_HLEN) - PKT_ICMP_HLEN;
	s.payload_fill = c->fill;
	s.icmp_id = c->zero_ids ? 0 : (uint16_t)(ID_BASE + index);
	s.icmp_seq = c->zero_ids ? 0 : (uint16_t)(index + 1);
	s.icmp_csum_delta = c->kind == BAD_CSUM ? 1 : 0;
	s.pad_len = c->pad;
	s.pad_byte = 0xee;
	return pkt_build(&s, buf, FRAME_MAX);
}

static int echo_mode(int fd)
{
	static uint8_t req[FRAME_MAX], want[FRAME_MAX], got[FRAME_MAX];
	unsigned long expect[XDPONG_R_MAX] = { 0 }, sent = 0;
	struct prefix local[2] = { o.local4, o.local6 };
	struct pkt_ref_config ref = {
		.framing = o.tap ? PKT_FRAMING_ETH : PKT_FRAMING_IP,
		.check_mac = o.tap,
		.local = local,
		.n_local = 2,
		.max_icmp_len = XDPONG_MAX_ICMP_LEN,
	};
	unsigned int mtu = device_mtu();
	int failures = 0, noise = 0, checked = 0;
	char env[1024];
	size_t off = 0;

	if (o.tap) {
		struct ifreq ifr;
		int e = if_ioctl(o.dev, SIOCGIFHWADDR, &ifr);

		if (e) {
			fprintf(stderr, "tuntap_echo: cannot read the MAC of %s: %s\n",
				o.dev, strerror(-e));
			return 1;
		}
		memcpy(ref.mac, ifr.ifr_hwaddr.sa_data, 6);
	}
	printf("# %s %s, MTU %u: requests from %s peers into the fd\n",
	       o.tap ? "TAP" : "TUN", o.dev, mtu, o.tap ? "Ethernet" : "IP");

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct echo_case *c = &cases[i];
		const char *why = "", *bad;
		enum pkt_ref_verdict v;
		uint16_t id, seq;
		size_t len;
		long n;

		if (c->kind == OTHER_MAC && !o.tap)
			continue;
		len = build_request(c, (int)i, ref.mac, mtu, req);
		if (!len) {
			printf("FAIL %s: cannot build the request\n", c->desc);
			failures++;
			continue;
		}
		v = pkt_reference_reply(&ref, req, len, want, &why);
		if ((c->kind == GOOD) != (v == PKT_REF_REPLY)) {
			printf("FAIL %s: the reference says '%s' (the test's table is wrong)\n",
			       c->desc, why);
			failures++;
			continue;
		}
		id = c->zero_ids ? 0 : (uint16_t)(ID_BASE + i);
		seq = c->zero_ids ? 0 : (uint16_t)(i + 1);
		if (write(fd, req, len) != (ssize_t)len) {
			printf("FAIL %s: write of %zu bytes: %s\n", c->desc, len,
			       strerror(errno));
			failures++;
			continue;
		}
		sent++;
		n = wait_reply(fd, c->family, id, seq,
			       c->kind == GOOD ? REPLY_WAIT_MS : SILENCE_WAIT_MS, got,
			       sizeof(got), &noise);
		if (n < 0)
			return 1;
		switch (c->kind) {
		case GOOD:
			expect[c->family == 4 ? XDPONG_R_reply_echo4 : XDPONG_R_reply_echo6]++;
			if (!n) {
				printf("FAIL %s: no reply within %d ms (%zu-byte request)\n",
				       c->desc, REPLY_WAIT_MS, len);
				pkt_hexdump(stdout, "    ", req, len < 96 ? len : 96);
				failures++;
				continue;
			}
			bad = pkt_verify_csums(got, (size_t)n, ref.framing);
			if (pkt_hexdiff(stdout, "    ", got, (size_t)n, want, len) || bad) {
				printf("FAIL %s: the reply is not the reference's%s%s\n",
				       c->desc, bad ? "; " : "", bad ? bad : "");
				failures++;
				continue;
			}
			checked++;
			printf("ok   %s: %zd-byte reply byte-correct, checksums sum to 0xffff\n",
			       c->desc, n);
			if (o.verbose)
				pkt_hexdump(stdout, "    ", got, (size_t)n < 64 ? (size_t)n : 64);
			break;
		case NOT_OURS:
		case BAD_CSUM:
		case OTHER_MAC:
			expect[c->kind == NOT_OURS ? XDPONG_R_pass_dst_not_local :
			       c->kind == BAD_CSUM ? XDPONG_R_drop_bad_icmp_csum :
						     XDPONG_R_pass_l2_other_host]++;
			if (n) {
				printf("FAIL %s: answered, but %s\n", c->desc, why);
				pkt_hexdump(stdout, "    ", got, (size_t)n);
				failures++;
				continue;
			}
			printf("ok   %s: no reply in %d ms (%s)\n", c->desc,
			       SILENCE_WAIT_MS, why);
			break;
		}
	}
	printf("# %d replies byte-correct, %lu frames written, %d packets of the kernel's own "
	       "skipped\n",
	       checked, sent, noise);

	for (int r = 0; r < XDPONG_R_MAX; r++)
		if (expect[r])
			off += (size_t)snprintf(env + off, sizeof(env) - off, "%s%s=%lu",
						off ? " " : "", reason_names[r], expect[r]);
	setenv("TT_EXPECT", env, 1);
	snprintf(env, sizeof(env), "%lu", sent);
	setenv("TT_SENT", env, 1);
	if (o.verify && run_shell("--verify", o.verify))
		failures++;
	return failures ? 1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int rtt_mode(int fd)
{
	static uint8_t req[FRAME_MAX], got[FRAME_MAX];
	struct echo_case c = { "rtt", o.rtt_family, 56, PKT_FILL_COUNT, false, 0, GOOD };
	double *rtt = calloc((size_t)o.rtt_count, sizeof(double));
	uint8_t mac[6] = { 0 };
	int answered = 0, noise = 0;

	if (!rtt)
		return 1;
	if (o.tap) {
		struct ifreq ifr;

		if (if_ioctl(o.dev, SIOCGIFHWADDR, &ifr)) {
			free(rtt);
			return 1;
		}
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	}
	for (int i = 0; i < o.rtt_count; i++) {
		size_t len = build_request(&c, i, mac, 1500, req);
		double t0;
		long n;

		if (i)
			usleep((useconds_t)o.rtt_interval_ms * 1000);
		t0 = now_ms();
		if (write(fd, req, len) != (ssize_t)len)
			continue;
		n = wait_reply(fd, c.family, (uint16_t)(ID_BASE + i), (uint16_t)(i + 1),
			       1000, got, sizeof(got), &noise);
		if (n > 0)
			rtt[answered++] = now_ms() - t0;
	}
	qsort(rtt, (size_t)answered, sizeof(double), cmp_double);
	printf("rtt %s %s IPv%d: %d sent, %d answered", o.tap ? "tap" : "tun", o.dev,
	       c.family, o.rtt_count, answered);
	if (answered)
		printf(", min/median/max %.3f/%.3f/%.3f ms",
		       rtt[0], answered % 2 ? rtt[answered / 2] :
				(rtt[answered / 2 - 1] + rtt[answered / 2]) / 2,
		       rtt[answered - 1]);
	printf("\n");
	free(rtt);
	return answered == o.rtt_count ? 0 : 1;
}

/* ---- --compare-xdp: the XDP program and userpong.c, frame by frame ---- */

static uint64_t rng_state;

static uint32_t rng(void)
{
	/* xorshift64*: reproducible from --seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

struct xdp_side {
	struct xdpong_bpf *skel;
	int prog_fd, stats_fd, ncpus;
};

/* The reason the XDP program gives frame, and its output; -1 on error. */
static int xdp_run(struct xdp_side *x, const uint8_t *frame, size_t len,
		   uint8_t *out, size_t *out_len)
{
	__u64 before[XDPONG_R_MAX], after[XDPONG_R_MAX];
	int reason = -1;

	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = (__u32)len, .data_out = out,
		    .data_size_out = FRAME_MAX, .repeat = 1);
	if (xf_read_counters(x->stats_fd, x->ncpus, before) ||
	    bpf_prog_test_run_opts(x->prog_fd, &opts) ||
	    xf_read_counters(x->stats_fd, x->ncpus, after))
		return -1;
	for (int r = 0; r < XDPONG_R_MAX; r++) {
		if (after[r] == before[r])
			continue;
		if (reason >= 0 || after[r] - before[r] != 1)
			return -1; /* counted twice: not one packet, one reason */
		reason = r;
	}
	*out_len = opts.data_size_out;
	return reason;
}

static int xdp_open(struct xdp_side *x, const struct up_addr *a, size_t n)
{
	int e;

	x->ncpus = libbpf_num_possible_cpus();
	x->skel = xdpong_bpf__open();
	if (!x->skel)
		return -errno;
	x->skel->rodata->cfg_framing = XDPONG_FRAMING_IP;
	x->skel->rodata->cfg_latency_sample = 0;
	e = xdpong_bpf__load(x->skel);
	if (e)
		return e;
	for (size_t i = 0; i < n; i++) {
		e = xf_map_add(x->skel, &a[i].prefix, a[i].origin);
		if (e)
			return e;
	}
	x->prog_fd = bpf_program__fd(x->skel->progs.xdpong);
	x->stats_fd = bpf_map__fd(x->skel->maps.xdpong_stats);
	return 0;
}

/* Sources and destinations the frames pick from: compare_mode()'s map entries. */
static const uint8_t pick4[][4] = {
	{ 192, 0, 2, 1 },       /* iface */
	{ 192, 0, 2, 255 },     /* broadcast */
	{ 198, 51, 100, 7 },    /* in the operator prefix */
	{ 198, 51, 100, 255 },  /* broadcast inside the operator prefix */
	{ 203, 0, 113, 7 },     /* not ours */
	{ 192, 0, 2, 77 },      /* not ours, next to ours */
};
static const uint8_t pick6[][16] = {
	{ 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },                     /* iface */
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 1, [14] = 0xab, 0xcd },      /* operator */
	{ 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, [15] = 7 },         /* not ours */
};

/* A valid IP-framed request, then 0 to 3 mutations in its headers. */
static size_t random_frame(uint8_t *buf)
{
	static const uint8_t interesting[] = { 0, 1, 4, 5, 6, 8, 0x0f, 0x3a, 0x40,
					       0x45, 0x60, 0x7f, 0x80, 0x81, 0xe0,
					       0xf0, 0xfe, 0xff };
	int family = rng() % 2 ? 6 : 4, muts = (int)(rng() % 4);
	struct pkt_spec s;
	size_t len, hdr;

	pkt_spec_init(&s, family, PKT_FRAMING_IP);
	memcpy(s.ip4_dst, pick4[rng() % 4 ? rng() % 3 : rng() % ARRAY_SIZE(pick4)], 4);
	memcpy(s.ip4_src, pick4[rng() % 4 ? 4 : rng() % ARRAY_SIZE(pick4)], 4);
	memcpy(s.ip6_dst, pick6[rng() % ARRAY_SIZE(pick6)], 16);
	memcpy(s.ip6_src, pick6[rng() % 4 ? 2 : rng() % ARRAY_SIZE(pick6)], 16);
	s.payload_len = rng() % 4 ? rng() % 64 : rng() % 2000;
	s.payload_fill = rng() % 3 ? PKT_FILL_COUNT : 0;
	s.icmp_id = rng() % 5 ? (uint16_t)rng() : 0;
	s.icmp_seq = rng() % 5 ? (uint16_t)rng() : 0;
	s.pad_len = rng() % 4 ? 0 : rng() % 16;
	s.pad_byte = (uint8_t)rng();
	len = pkt_build(&s, buf, FRAME_MAX);
	hdr = (family == 4 ? PKT_IP4_HLEN : PKT_IP6_HLEN) + PKT_ICMP_HLEN;
	for (int m = 0; m < muts; m++) {
		size_t at = rng() % (hdr < len ? hdr : len);

		buf[at] = rng() % 2 ? interesting[rng() % sizeof(interesting)] :
				      (uint8_t)(buf[at] ^ (1u << (rng() % 8)));
	}
	if (muts && rng() % 3) /* let most mutations past the checksum checks */
		pkt_fix_csums(buf, len, PKT_FRAMING_IP);
	if (rng() % 16 == 0)
		len = 14 + rng() % (len > 14 ? len - 14 : 1);
	return len;
}

static int compare_mode(void)
{
	static uint8_t frame[FRAME_MAX], xdp_out[FRAME_MAX], user[FRAME_MAX];
	/* What `xdpong attach` would load for 192.0.2.1/24 and --addr prefixes. */
	static const struct {
		const char *prefix;
		uint32_t origin;
	} entries[] = {
		{ "192.0.2.1/32", XDPONG_ADDR_IFACE },
		{ "192.0.2.255/32", XDPONG_ADDR_BROADCAST },
		{ "198.51.100.0/24", XDPONG_ADDR_OPERATOR },
		{ "198.51.100.255/32", XDPONG_ADDR_BROADCAST },
		{ "2001:db8::1/128", XDPONG_ADDR_IFACE },
		{ "2001:db8:1::/64", XDPONG_ADDR_OPERATOR },
	};
	struct up_addr p[ARRAY_SIZE(entries)];
	struct up_config cfg = { .addrs = p, .n_addrs = ARRAY_SIZE(p),
				 .max_icmp_len = XDPONG_MAX_ICMP_LEN };
	unsigned long per_reason[XDPONG_R_MAX] = { 0 }, mismatches = 0, runs = 0;
	struct xdp_side x = { 0 };
	int e;

	for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
		prefix_parse(entries[i].prefix, &p[i].prefix);
		p[i].origin = entries[i].origin;
	}
	e = xdp_open(&x, p, ARRAY_SIZE(p));
	if (e) {
		fprintf(stderr, "tuntap_echo: cannot load the XDP program: %s\n",
			strerror(-e));
		xdpong_bpf__destroy(x.skel);
		return 1;
	}
	rng_state = o.seed ? o.seed : 1; /* xorshift needs a non-zero state */
	for (unsigned long i = 0; i < o.compare_frames; i++) {
		size_t len = random_frame(frame), xdp_len = 0;
		enum xdpong_reason ur;
		int xr;

		if (len < PKT_ETH_HLEN) /* bpf_prog_test_run needs 14 bytes */
			continue;
		xr = xdp_run(&x, frame, len, xdp_out, &xdp_len);
		if (xr < 0) {
			fprintf(stderr, "tuntap_echo: bpf_prog_test_run failed on frame %lu\n", i);
			mismatches++;
			break;
		}
		memcpy(user, frame, len);
		ur = up_answer(&cfg, user, len);
		runs++;
		per_reason[ur]++;
		if ((int)ur == xr && xdp_len == len && !memcmp(user, xdp_out, len))
			continue;
		if (mismatches++ < 10) {
			printf("MISMATCH frame %lu (seed %lu): xdp %s, userpong %s\n", i,
			       o.seed, reason_names[xr], reason_names[ur]);
			printf("    frame: ");
			pkt_hexline(stdout, frame, len);
			if ((int)ur == xr)
				pkt_hexdiff(stdout, "    ", user, len, xdp_out, xdp_len);
		}
	}
	printf("compare-xdp: %lu frames (seed %lu) through both, %lu differ; reasons seen:",
	       runs, o.seed, mismatches);
	for (int r = 0; r < XDPONG_R_MAX; r++)
		if (per_reason[r])
			printf(" %s=%lu", reason_names[r], per_reason[r]);
	printf("\n");
	xdpong_bpf__destroy(x.skel);
	return mismatches ? 1 : 0;
}

static int parse_addr(const char *text, int family, struct prefix *p)
{
	if (prefix_parse(text, p) || p->family != (family == 4 ? AF_INET : AF_INET6)) {
		fprintf(stderr, "tuntap_echo: invalid IPv%d address '%s'\n", family, text);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tun", required_argument, NULL, 'u' },
		{ "tap", required_argument, NULL, 'p' },
		{ "local4", required_argument, NULL, '4' },
		{ "local6", required_argument, NULL, '6' },
		{ "peer4", required_argument, NULL, 'P' },
		{ "peer6", required_argument, NULL, 'Q' },
		{ "setup", required_argument, NULL, 's' },
		{ "verify", required_argument, NULL, 'V' },
		{ "rtt", required_argument, NULL, 'r' },
		{ "interval", required_argument, NULL, 'i' },
		{ "family", required_argument, NULL, 'f' },
		{ "compare-xdp", no_argument, NULL, 'c' },
		{ "frames", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char name[IFNAMSIZ];
	bool have4 = false, have6 = false, compare = false;
	unsigned long long num;
	int c, fd, ret;

	parse_addr("203.0.113.7", 4, &o.peer4);
	parse_addr("2001:db8:ffff::7", 6, &o.peer6);
	o.rtt_interval_ms = 200;
	o.rtt_family = 4;
	o.compare_frames = 20000;
	o.seed = 1;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
		case 'p':
			o.dev = optarg;
			o.tap = c == 'p';
			break;
		case '4':
			if (parse_addr(optarg, 4, &o.local4))
				return 2;
			have4 = true;
			break;
		case '6':
			if (parse_addr(optarg, 6, &o.local6))
				return 2;
			have6 = true;
			break;
		case 'P':
			if (parse_addr(optarg, 4, &o.peer4))
				return 2;
			break;
		case 'Q':
			if (parse_addr(optarg, 6, &o.peer6))
				return 2;
			break;
		case 's':
			o.setup = optarg;
			break;
		case 'V':
			o.verify = optarg;
			break;
		case 'r':
			if (parse_u64(optarg, 1, 100000, &num))
				return 2;
			o.rtt_count = (int)num;
			break;
		case 'i':
			if (parse_u64(optarg, 0, 60000, &num))
				return 2;
			o.rtt_interval_ms = (int)num;
			break;
		case 'f':
			if (strcmp(optarg, "4") && strcmp(optarg, "6"))
				return 2;
			o.rtt_family = optarg[0] - '0';
			break;
		case 'c':
			compare = true;
			break;
		case 'n':
			if (parse_u64(optarg, 0, 1000000000, &num))
				return 2;
			o.compare_frames = num;
			break;
		case 'S':
			if (parse_u64(optarg, 0, ~0UL, &num))
				return 2;
			o.seed = num;
			break;
		case 'v':
			o.verbose++;
			break;
		default: /* 'h', or a bad option */
			return cli_help(c, usage);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(xf_libbpf_warnings);
	if (compare)
		return compare_mode();
	if (!o.dev || !have4 || !have6) {
		usage(stderr);
		return 2;
	}
	/* Destinations that are not ours: the local address with bit 6 of its last byte flipped. */
	o.other4 = o.local4;
	o.other4.addr[3] ^= 0x40;
	o.other6 = o.local6;
	o.other6.addr[15] ^= 0x40;

	fd = tun_open(o.dev, o.tap, name);
	if (fd < 0) {
		fprintf(stderr, "tuntap_echo: cannot create %s %s: %s\n",
			o.tap ? "TAP" : "TUN", o.dev, strerror(-fd));
		return 1;
	}
	o.dev = name;
	setenv("TT_DEV", name, 1);
	if (o.setup && run_shell("--setup", o.setup)) {
		close(fd);
		return 1;
	}
	ret = o.rtt_count ? rtt_mode(fd) : echo_mode(fd);
	close(fd);
	return ret;
}
