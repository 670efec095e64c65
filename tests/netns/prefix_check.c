// SPDX-License-Identifier: GPL-2.0
/*
 * Many prefixes, and whether an attached xdpong answers for each
 * (tests/netns/max_prefixes.sh). One generator for both sides:
 *
 *   prefix_check list 4|6 N
 *       N distinct prefixes of the family, one a line, for `xdpong addr
 *       add`: IPv4 in 10.0.0.0/8, /30 and /32 by turns; IPv6 in
 *       2001:db8::/32, /64 and /128 by turns. Spread over the range by an
 *       odd multiplier, so the trie is not one dense run.
 *   prefix_check inside 4|6 I
 *       An address inside prefix I, for a real ping.
 *   prefix_check run PROG_ID MAC N
 *       One ICMP echo request to an address inside each of the N prefixes
 *       of each family, through the loaded program PROG_ID with
 *       BPF_PROG_TEST_RUN (to the interface's MAC, as it checks it):
 *       each must be XDP_TX. Then requests to addresses outside every
 *       prefix (in neither range, and in the gaps between prefixes):
 *       each must be XDP_PASS. Says how many of each, and every miss
 *       (the first 10); exits 1 on any.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include "packet.h"

#define MULT 0x9E3779B1u /* odd: a bijection mod any power of two */
#define OUTSIDE 64       /* requests outside every prefix, per family */

/* Prefix i of the family: its address (network order) and length. */
static void nth(int fam, __u32 i, __u8 addr[16], unsigned int *len)
{
	memset(addr, 0, 16);
	if (fam == 4) {
		/* A /30 block of 10.0.0.0/8 each (2^22 blocks): the i-th. */
		__u32 a = (10u << 24) | (((i * MULT) & 0x3fffff) << 2);

		*len = i & 1 ? 32 : 30;
		if (i & 1)
			a |= 3;
		a = htonl(a);
		memcpy(addr, &a, 4);
	} else {
		/* A /64 of 2001:db8::/32 each (2^32 of them): the i-th. */
		__u32 hi = htonl(0x20010db8), k = htonl(i * MULT), low = htonl(1);

		*len = i & 1 ? 128 : 64;
		memcpy(addr, &hi, 4);
		memcpy(addr + 4, &k, 4);
		if (i & 1)
			memcpy(addr + 12, &low, 4);
	}
}

/* An address inside prefix i (the /32 or /128 itself, else one in it). */
static void inside(int fam, __u32 i, __u8 addr[16])
{
	unsigned int len;

	nth(fam, i, addr, &len);
	if (fam == 4 && len == 30)
		addr[3] |= 1 + (i >> 1) % 3;
	else if (fam == 6 && len == 64)
		addr[15] = 1 + (i & 0x7f);
}

/* Address k outside every prefix: out of both ranges, or in a gap. */
static void outside(int fam, __u32 n, __u32 k, __u8 addr[16])
{
	unsigned int len;

	if (k % 2) { /* prefix n, not added: its block is a gap */
		nth(fam, n + k, addr, &len);
		if (fam == 4)
			addr[3] |= 1;
		else
			addr[15] = 1;
		return;
	}
	memset(addr, 0, 16);
	if (fam == 4) {
		__u32 a = htonl((11u << 24) | k);

		memcpy(addr, &a, 4);
	} else {
		__u32 hi = htonl(0x20010db9), low = htonl(k + 1);

		memcpy(addr, &hi, 4);
		memcpy(addr + 12, &low, 4);
	}
}

static int list(int fam, __u32 n)
{
	char buf[INET6_ADDRSTRLEN];
	__u8 addr[16];
	unsigned int len;

	for (__u32 i = 0; i < n; i++) {
		nth(fam, i, addr, &len);
		inet_ntop(fam == 4 ? AF_INET : AF_INET6, addr, buf, sizeof(buf));
		printf("%s/%u\n", buf, len);
	}
	return 0;
}

static int print_inside(int fam, __u32 i)
{
	char buf[INET6_ADDRSTRLEN];
	__u8 addr[16];

	inside(fam, i, addr);
	printf("%s\n", inet_ntop(fam == 4 ? AF_INET : AF_INET6, addr, buf, sizeof(buf)));
	return 0;
}

/* One request to dst through prog_fd: its verdict, or -1. */
static int verdict(int prog_fd, int fam, const __u8 mac[6], const __u8 dst[16], __u32 seq)
{
	struct pkt_spec s;
	__u8 frame[256], out[256];
	size_t len;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_out = out,
		    .data_size_out = sizeof(out), .repeat = 1);

	pkt_spec_init(&s, fam, PKT_FRAMING_ETH);
	memcpy(s.eth_dst, mac, 6);
	/* A source in no prefix of the list: fd00:1::7 (203.0.113.7 is not). */
	inet_pton(AF_INET6, "fd00:1::7", s.ip6_src);
	if (fam == 4)
		memcpy(s.ip4_dst, dst, 4);
	else
		memcpy(s.ip6_dst, dst, 16);
	s.icmp_seq = seq & 0xffff;
	len = pkt_build(&s, frame, sizeof(frame));
	opts.data_size_in = len;
	if (!len || bpf_prog_test_run_opts(prog_fd, &opts))
		return -1;
	return opts.retval;
}

/* Every request of one family: inside each prefix, then outside. */
static int run_family(int prog_fd, int fam, const __u8 mac[6], __u32 n)
{
	char buf[INET6_ADDRSTRLEN];
	__u32 tx = 0, pass = 0, miss = 0;
	__u8 addr[16];

	for (__u32 i = 0; i < n + OUTSIDE; i++) {
		bool in = i < n;
		int want = in ? XDP_TX : XDP_PASS, got;

		if (in)
			inside(fam, i, addr);
		else
			outside(fam, n, i - n, addr);
		got = verdict(prog_fd, fam, mac, addr, i);
		if (got == want) {
			*(in ? &tx : &pass) += 1;
			continue;
		}
		if (miss++ < 10)
			fprintf(stderr, "prefix_check: %s: verdict %d, expected %d\n",
				inet_ntop(fam == 4 ? AF_INET : AF_INET6, addr, buf, sizeof(buf)),
				got, want);
	}
	printf("IPv%d: %u of %u answered (XDP_TX), %u of %u outside passed\n", fam, tx, n, pass,
	       OUTSIDE);
	return miss ? -1 : 0;
}

static int run(__u32 prog_id, const char *mac_text, __u32 n)
{
	unsigned int m[6];
	__u8 mac[6];
	int fd, ret;

	if (sscanf(mac_text, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6) {
		fprintf(stderr, "prefix_check: bad MAC '%s'\n", mac_text);
		return 2;
	}
	for (int i = 0; i < 6; i++)
		mac[i] = m[i];
	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd < 0) {
		fprintf(stderr, "prefix_check: program id %u: %s\n", prog_id, strerror(errno));
		return 1;
	}
	ret = run_family(fd, 4, mac, n);
	ret |= run_family(fd, 6, mac, n);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "list"))
		return list(atoi(argv[2]), strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "inside"))
		return print_inside(atoi(argv[2]), strtoul(argv[3], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "run"))
		return run(strtoul(argv[2], NULL, 0), argv[3], strtoul(argv[4], NULL, 0));
	fprintf(stderr, "usage: prefix_check list|inside 4|6 N | run PROG_ID MAC N\n");
	return 2;
}
