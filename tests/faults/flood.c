// SPDX-License-Identifier: GPL-2.0
/*
 * flood: send ICMP echo requests from an AF_PACKET socket, as fast as the
 * machine allows or at a set rate, optionally from many (spoofed) source
 * addresses, and count the echo replies that come back on the same
 * interface. For the fault tests: the 30-second flood, the rate limits
 * and the LRU bound of the per-source limiter.
 *
 * Prints one line of key=value pairs at the end:
 *   sent=N replies=N bad_replies=N rx_dropped=N send_errors=N seconds=S pps=R
 *   start=T last_reply=T
 * start is when sending began, last_reply when the last reply was read
 * (CLOCK_MONOTONIC seconds, 0 if none came): every reply counted was
 * answered between the two, whatever the scheduler did.
 * replies counts well-formed echo replies to our requests (checksums
 * verified), bad_replies replies to our requests whose checksums fail,
 * rx_dropped what the receive socket lost (PACKET_STATISTICS).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "cli.h"
#include "parse.h"
#include "packet.h"

#define BATCH 32
#define FRAME_CAP 1600

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: flood -i IFACE -d DST_IP -m DST_MAC -s SRC_IP [options]\n"
		"\n"
		"Send ICMP echo requests out of IFACE and count the replies.\n"
		"\n"
		"  -n N        cycle over N consecutive source addresses from SRC_IP (1)\n"
		"  -t SECONDS  stop after SECONDS (10; fractions allowed)\n"
		"  -c COUNT    stop after COUNT requests (0: no limit)\n"
		"  -r PPS      at most PPS requests per second (0: as fast as possible)\n"
		"  -l BYTES    ICMP payload bytes (56)\n"
		"  -w MS       after the last request, wait MS for late replies (300)\n"
		"  -q          do not count replies (send only: the highest rate)\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_mac(const char *text, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(text, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = b[i];
	}
	return 0;
}

struct counts {
	unsigned long long sent, replies, bad, send_errors;
	double last_reply; /* CLOCK_MONOTONIC when the last reply was read */
};

struct rx_filter {
	uint32_t src_first; /* host order: the first source we send from */
	uint32_t n_sources;
	uint8_t dst[4];     /* the address we ping */
	uint16_t id;        /* host order */
};

/* One L3 packet (SOCK_DGRAM strips the link header): is it our reply? */
static void rx_classify(const uint8_t *p, size_t len, const struct rx_filter *f,
			struct counts *c)
{
	uint32_t to;

	if (len < PKT_IP4_HLEN + PKT_ICMP_HLEN || (p[0] >> 4) != 4 ||
	    p[9] != PKT_PROTO_ICMP || (p[0] & 0x0f) != 5)
		return;
	if (p[20] != PKT_ICMP_ECHOREPLY || ((p[24] << 8) | p[25]) != f->id)
		return;
	if (memcmp(p + 12, f->dst, 4))
		return;
	to = ((uint32_t)p[16] << 24) | (p[17] << 16) | (p[18] << 8) | p[19];
	if (to - f->src_first >= f->n_sources)
		return;
	if (pkt_verify_csums(p, len, PKT_FRAMING_IP))
		c->bad++;
	else
		c->replies++;
	c->last_reply = now_s();
}

static void rx_drain(int fd, const struct rx_filter *f, struct counts *c)
{
	static uint8_t bufs[BATCH][FRAME_CAP];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];

	if (fd < 0)
		return;
	for (int round = 0; round < 64; round++) {
		int n;

		for (int i = 0; i < BATCH; i++) {
			iov[i] = (struct iovec){ bufs[i], FRAME_CAP };
			msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i],
								 .msg_iovlen = 1 } };
		}
		n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		for (int i = 0; i < n; i++)
			rx_classify(bufs[i], msgs[i].msg_len, f, c);
	}
}

static int open_rx(int ifindex)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = ifindex,
	};
	int one = 1, rcvbuf = 8 << 20;
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IP));

	if (fd < 0)
		return -1;
	/* Only what arrives: our own requests are not replies. */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *dst_text = NULL, *mac_text = NULL, *src_text = NULL;
	unsigned long long count = 0, sources = 1;
	double seconds = 10, rate = 0, wait_ms = 300, t0, t_end, elapsed;
	size_t payload = 56;
	bool quiet_rx = false;
	struct counts c = { 0 };
	struct rx_filter filt = { 0 };
	static uint8_t frames[BATCH][FRAME_CAP];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_ll to = { .sll_family = AF_PACKET };
	struct tpacket_stats pst = { 0 };
	socklen_t pst_len = sizeof(pst);
	struct pkt_spec spec;
	struct in_addr src_first;
	struct ifreq ifr = { 0 };
	unsigned long long payload_ull = 56;
	int opt, tx, rx = -1, one = 1, bad = 0;

	while ((opt = getopt(argc, argv, "i:d:m:s:n:t:c:r:l:w:qh")) != -1) {
		switch (opt) {
		case 'i':
			ifname = optarg;
			break;
		case 'd':
			dst_text = optarg;
			break;
		case 'm':
			mac_text = optarg;
			break;
		case 's':
			src_text = optarg;
			break;
		case 'n':
			bad |= parse_u64(optarg, 1, 1ULL << 24, &sources);
			break;
		case 't':
			bad |= parse_seconds(optarg, 0.001, 3600, &seconds);
			break;
		case 'c':
			bad |= parse_u64(optarg, 0, ~0ULL, &count);
			break;
		case 'r':
			bad |= parse_seconds(optarg, 0, 1e9, &rate); /* any decimal */
			break;
		case 'l':
			bad |= parse_u64(optarg, 0, 1400, &payload_ull);
			payload = payload_ull;
			break;
		case 'w':
			bad |= parse_seconds(optarg, 0, 60000, &wait_ms); /* any decimal */
			break;
		case 'q':
			quiet_rx = true;
			break;
		default: /* 'h', or a bad option */
			return cli_help(opt, usage);
		}
	}
	pkt_spec_init(&spec, 4, PKT_FRAMING_ETH);
	/* The numbers' ranges are parse_u64's and parse_seconds' (above). */
	if (bad || !ifname || !dst_text || !mac_text || !src_text || optind != argc ||
	    parse_mac(mac_text, spec.eth_dst) ||
	    inet_pton(AF_INET, dst_text, spec.ip4_dst) != 1 ||
	    inet_pton(AF_INET, src_text, &src_first) != 1) {
		usage(stderr);
		return 2;
	}

	tx = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx < 0) {
		perror("flood: AF_PACKET socket (root needed)");
		return 1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(tx, SIOCGIFINDEX, &ifr)) {
		fprintf(stderr, "flood: no interface %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	to.sll_ifindex = ifr.ifr_ifindex;
	to.sll_halen = 6;
	memcpy(to.sll_addr, spec.eth_dst, 6);
	if (ioctl(tx, SIOCGIFHWADDR, &ifr)) {
		fprintf(stderr, "flood: cannot read the MAC of %s: %s\n", ifname,
			strerror(errno));
		return 1;
	}
	memcpy(spec.eth_src, ifr.ifr_hwaddr.sa_data, 6);
	/* Straight to the driver: the flood measures xdpong, not a qdisc. */
	setsockopt(tx, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	if (!quiet_rx) {
		rx = open_rx(to.sll_ifindex);
		if (rx < 0) {
			perror("flood: receive socket");
			return 1;
		}
	}

	spec.icmp_id = getpid() & 0xffff;
	spec.payload_len = payload;
	spec.payload_fill = PKT_FILL_COUNT;
	filt.src_first = ntohl(src_first.s_addr);
	filt.n_sources = sources;
	memcpy(filt.dst, spec.ip4_dst, 4);
	filt.id = spec.icmp_id;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now_s();
	t_end = t0 + seconds;
	while (!stop) {
		double t = now_s();
		unsigned long long want = BATCH;
		int n, sent;

		if (t >= t_end || (count && c.sent >= count))
			break;
		if (rate > 0) {
			double due = rate * (t - t0) + 1;

			want = due > c.sent ? (unsigned long long)(due - c.sent) : 0;
			if (want > BATCH)
				want = BATCH;
		}
		if (count && want > count - c.sent)
			want = count - c.sent;
		if (!want) {
			rx_drain(rx, &filt, &c);
			usleep(100);
			continue;
		}
		for (unsigned long long i = 0; i < want; i++) {
			uint32_t src = filt.src_first + (uint32_t)((c.sent + i) % sources);
			uint32_t src_be = htonl(src);
			size_t len;

			memcpy(spec.ip4_src, &src_be, 4);
			spec.icmp_seq = (uint16_t)(c.sent + i);
			len = pkt_build(&spec, frames[i], FRAME_CAP);
			iov[i] = (struct iovec){ frames[i], len };
			msgs[i] = (struct mmsghdr){ .msg_hdr = {
				.msg_name = &to, .msg_namelen = sizeof(to),
				.msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		n = sendmmsg(tx, msgs, want, 0);
		if (n < 0) {
			c.send_errors++;
			if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
				perror("flood: sendmmsg");
				break;
			}
			sent = 0;
		} else {
			sent = n;
		}
		c.sent += sent;
		rx_drain(rx, &filt, &c);
	}
	elapsed = now_s() - t0;
	if (rx >= 0) {
		double until = now_s() + wait_ms / 1000;

		while (now_s() < until) {
			struct pollfd pfd = { .fd = rx, .events = POLLIN };

			if (poll(&pfd, 1, 20) > 0)
				rx_drain(rx, &filt, &c);
		}
		getsockopt(rx, SOL_PACKET, PACKET_STATISTICS, &pst, &pst_len);
		close(rx);
	}
	close(tx);
	printf("sent=%llu replies=%llu bad_replies=%llu rx_dropped=%u send_errors=%llu "
	       "seconds=%.3f pps=%.0f start=%.6f last_reply=%.6f\n",
	       c.sent, c.replies, c.bad, pst.tp_drops, c.send_errors, elapsed,
	       elapsed > 0 ? c.sent / elapsed : 0, t0, c.last_reply);
	return 0;
}
