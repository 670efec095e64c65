// SPDX-License-Identifier: GPL-2.0
/*
 * RTT prober: one ICMP echo request at a time on a raw socket; the round
 * trip is the kernel's software receive timestamp of the reply minus its
 * software transmit timestamp of the request (SO_TIMESTAMPING, taken in
 * the veth driver and at netif_receive), so neither the prober's wake-up
 * nor ping's 1 us rounding is in it. The prober sleeps in poll() between
 * the stamps: a busy loop would take the CPU from a user-space responder
 * (tun-stack) sharing it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/errqueue.h>
#include <linux/icmp.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include "driver.h"
#include "util.h"
#include "packet.h"

#define PROBE_DATA 56       /* ping's default: a 98-byte frame */
#define REPLY_TIMEOUT_S 0.1 /* a probe not answered by then is lost */
#define TX_STAMP_TIMEOUT_S 0.01

/* Whole ns: a double holds CLOCK_REALTIME seconds to only ~0.24 us. */
static __s64 ts_ns(const struct timespec *ts)
{
	return (__s64)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/*
 * The software stamp (ts[0]) of an SCM_TIMESTAMPING message, or 0; *key
 * gets the OPT_ID counter of a transmit stamp (the n-th send is n - 1).
 */
static __s64 stamp_of(struct msghdr *msg, __u32 *key)
{
	__s64 stamp = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING) {
			struct scm_timestamping st;

			memcpy(&st, CMSG_DATA(c), sizeof(st));
			stamp = ts_ns(&st.ts[0]);
		} else if (key && c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) {
			struct sock_extended_err ee;

			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			*key = ee.ee_data;
		}
	}
	return stamp;
}

/* Sleep until fd has events or the deadline passes; the events seen. */
static short wait_events(int fd, short events, double deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	double left = deadline - now_s();

	if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
		return 0;
	return p.revents;
}

static int probe_socket(void)
{
	int flags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
		    SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_TSONLY |
		    SOF_TIMESTAMPING_OPT_ID;
	struct icmp_filter filt = { .data = ~(1U << ICMP_ECHOREPLY) };
	int fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);

	if (fd < 0)
		return fail("raw ICMP socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_RAW, ICMP_FILTER, &filt, sizeof(filt)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags))) {
		close(fd);
		return fail("raw ICMP socket options: %s", strerror(errno));
	}
	return fd;
}

/* A message and its control data (the kernel's stamps), as received. */
struct rx_buf {
	char ctrl[512], data[2048];
	struct iovec iov;
	struct msghdr msg;
};

/* One recvmsg into b, never blocking (flags: MSG_ERRQUEUE or 0). */
static ssize_t rx_once(int fd, struct rx_buf *b, int flags)
{
	b->iov = (struct iovec){ b->data, sizeof(b->data) };
	b->msg = (struct msghdr){
		.msg_iov = &b->iov,
		.msg_iovlen = 1,
		.msg_control = b->ctrl,
		.msg_controllen = sizeof(b->ctrl),
	};
	return recvmsg(fd, &b->msg, flags | MSG_DONTWAIT);
}

/*
 * Wait for the first transmit stamp of send number `key`. A request can be
 * stamped twice: an skb-mode XDP_TX sends the same skb back out of the
 * responder's veth, and the socket is still attached to it.
 */
static __s64 tx_stamp(int fd, __u32 key)
{
	double deadline = now_s() + TX_STAMP_TIMEOUT_S;
	struct rx_buf b;

	while (now_s() < deadline) {
		__u32 got = ~key;
		__s64 stamp;

		if (rx_once(fd, &b, MSG_ERRQUEUE) < 0) {
			wait_events(fd, 0, deadline); /* POLLERR is always reported */
			continue;
		}
		stamp = stamp_of(&b.msg, &got);
		if (got == key)
			return stamp;
	}
	return 0;
}

/* Drop transmit stamps still queued from earlier probes. */
static void drain_errqueue(int fd)
{
	struct rx_buf b;

	for (int i = 0; i < 64; i++)
		if (rx_once(fd, &b, MSG_ERRQUEUE) < 0)
			break;
}

/* Wait for our reply; its receive stamp (kernel), and now (user). */
static int wait_reply(int fd, __u16 seq, __s64 *kernel_rx, double *user_rx)
{
	double deadline = now_s() + REPLY_TIMEOUT_S;
	struct rx_buf b;

	while (now_s() < deadline) {
		ssize_t n = rx_once(fd, &b, 0);
		struct icmphdr icmp;
		size_t ihl;

		if (n < 0) {
			/* A late second transmit stamp (skb-mode XDP_TX) must
			 * not keep POLLERR up and turn this into a busy loop. */
			if (wait_events(fd, POLLIN, deadline) & POLLERR)
				drain_errqueue(fd);
			continue;
		}
		*user_rx = now_s();
		ihl = (b.data[0] & 0xf) * 4;
		if ((size_t)n < ihl + sizeof(icmp))
			continue;
		memcpy(&icmp, b.data + ihl, sizeof(icmp));
		if (icmp.type != ICMP_ECHOREPLY || icmp.un.echo.id != htons(ECHO_ID) ||
		    icmp.un.echo.sequence != htons(seq))
			continue;
		*kernel_rx = stamp_of(&b.msg, NULL);
		return 0;
	}
	return -1;
}

static void sleep_us(int us)
{
	struct timespec ts = { 0, us * 1000L };

	if (us > 0)
		nanosleep(&ts, NULL);
}

static int probe_loop(struct bench_env *env, int nsfd, const char *dst, int probes, int gap_us,
		      bool stop_at_first, struct rtt_trial *out);

int rtt_trial(struct bench_env *env, int nsfd, const char *dst, int probes, int gap_us,
	      struct rtt_trial *out)
{
	if (probe_loop(env, nsfd, dst, probes, gap_us, false, out))
		return -1;
	if (!out->answered)
		return fail("no probe to %s was answered", dst);
	return 0;
}

int rtt_wait_answer(struct bench_env *env, const char *dst, double timeout_s)
{
	double deadline = now_s() + timeout_s;
	struct rtt_trial t;

	while (now_s() < deadline && !bench_stop) {
		if (probe_loop(env, env->net.nsfd_s, dst, 1, 0, true, &t))
			return -1;
		if (t.answered)
			return 0;
	}
	return -1;
}

static int probe_loop(struct bench_env *env, int nsfd, const char *dst, int probes, int gap_us,
		      bool stop_at_first, struct rtt_trial *out)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	double *rtt = calloc(probes, sizeof(*rtt));
	int fd, n = 0, kernel_stamps = 0;
	__u8 pkt[8 + PROBE_DATA];

	memset(out, 0, sizeof(*out));
	if (!rtt)
		return fail("out of memory");
	if (enter_ns(nsfd) || (fd = probe_socket()) < 0) {
		free(rtt);
		return -1;
	}
	inet_pton(AF_INET, dst, &to.sin_addr);
	for (int i = 0; i < probes && !bench_stop; i++) {
		struct icmphdr *icmp = (struct icmphdr *)pkt;
		double user_tx, user_rx = 0;
		__s64 kern_tx, kern_rx = 0;
		__u16 seq = (__u16)i;

		memset(pkt, 0, sizeof(pkt));
		icmp->type = ICMP_ECHO;
		icmp->un.echo.id = htons(ECHO_ID);
		icmp->un.echo.sequence = htons(seq);
		for (int j = 0; j < PROBE_DATA; j++)
			pkt[8 + j] = (__u8)(0x10 + j);
		icmp->checksum = htons(pkt_csum(pkt, sizeof(pkt)));
		drain_errqueue(fd);
		user_tx = now_s();
		if (sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			fail("probe send: %s", strerror(errno));
			break;
		}
		kern_tx = tx_stamp(fd, (__u32)i);
		if (wait_reply(fd, seq, &kern_rx, &user_rx)) {
			out->lost++;
		} else if (kern_tx > 0 && kern_rx > 0) {
			/* Both stamps are CLOCK_REALTIME, from the same clock. */
			rtt[n++] = (kern_rx - kern_tx) / 1e3;
			kernel_stamps++;
		} else {
			rtt[n++] = (user_rx - user_tx) * 1e6;
		}
		if (stop_at_first && n)
			break;
		sleep_us(gap_us);
	}
	close(fd);
	out->answered = n;
	out->kernel_stamps = n && kernel_stamps == n;
	if (n) {
		sort_doubles(rtt, n);
		out->p50_us = percentile_sorted(rtt, n, 50);
		out->p90_us = percentile_sorted(rtt, n, 90);
		out->p99_us = percentile_sorted(rtt, n, 99);
		out->max_us = rtt[n - 1];
	}
	free(rtt);
	return enter_ns(env->net.nsfd_s);
}
