// SPDX-License-Identifier: GPL-2.0
/*
 * The prober (core.h): STAMP test packets (RFC 8762 4.2, unauthenticated,
 * with RFC 8972 3's SSID) to UDP, or ICMP echo through ping sockets (raw
 * ones with CAP_NET_RAW where ping_group_range refuses), one socket per
 * family. T1 and T4 are the kernel's SO_TIMESTAMPING times (the NIC's
 * where it stamps, else the stack's), read back from the error queue and
 * the receive control messages; where none come, user space's.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/icmp6.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include "core.h"

#define NS 1000000000ULL
#define NTP_UNIX 2208988800ULL /* seconds from 1900 to 1970 (RFC 5905) */
#define TXKEYS 4096
#define PKT_MAX 65536
#define BATCH 64                /* messages one sendmmsg or recvmmsg moves, at most */
#define BATCH_BYTES (256 << 10) /* a batch's buffers, at most */
#define CTL_LEN 256             /* a message's control data */
#define TICK_NS 2000000ULL      /* a service's sends, this much early at most */

/* The first probe this long after the sockets open: the kernel turns
 * receive timestamps on for the first socket that asks in a work item
 * (net_enable_timestamp), and a reply that comes before it ran, as the
 * local kernel's echo reply comes within the send, would have none. */
#define START_NS 20000000ULL
/* The clock's state (S and the Error Estimate) read again this often. */
#define CLOCK_EVERY_NS (10 * NS)

enum { SLOT_FREE, SLOT_WAITING, SLOT_ANSWERED, SLOT_LOST };

struct probe_pending {
	unsigned int seq;
	unsigned char state;
	bool t1_kernel;
	unsigned long long t1_ns;   /* CLOCK_REALTIME */
	unsigned long long sent_ns; /* CLOCK_MONOTONIC */
};

struct probe_txkey {
	int target;
	unsigned int seq;
};

/* A target in the send schedule, with its next send beside it. */
struct probe_due {
	unsigned long long at; /* the target's next_send_ns */
	int target;
};

/* A probe sent: when its timeout comes (all of a prober's have the same). */
struct probe_flight {
	int target;
	unsigned int seq;
	unsigned long long sent_ns; /* CLOCK_MONOTONIC */
};

/* The probes of one family a tick sends, in one sendmmsg. */
struct probe_queue {
	unsigned int n;
	unsigned char *buf; /* n packets of plen */
	struct mmsghdr msg[BATCH];
	struct iovec iov[BATCH];
	struct probe_txkey key[BATCH];
};

/* Batches: the sends of a tick, and the replies and the transmit
 * timestamps read, each many a system call. */
struct probe_io {
	unsigned int batch; /* messages a call moves */
	size_t plen, room;  /* a packet sent; the room for one received */
	struct probe_queue out[2];
	unsigned char *buf; /* batch replies of room */
	struct mmsghdr in[BATCH], err[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_storage from[BATCH];
	char ctl[BATCH][CTL_LEN], ectl[BATCH][CTL_LEN];
};

unsigned long long probe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

static unsigned long long real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

int probe_resolve(const char *name, int family, struct probe_target **v, int *n, char *errbuf,
		  size_t errlen)
{
	struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_DGRAM }, *res, *ai;
	int ret = getaddrinfo(name, NULL, &hints, &res), added = 0;

	if (ret) {
		snprintf(errbuf, errlen, "cannot resolve '%s': %s", name, gai_strerror(ret));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		struct probe_target *more, *t;
		bool dup = false;

		for (int i = 0; i < *n; i++)
			dup |= (*v)[i].salen == ai->ai_addrlen &&
			       !memcmp(&(*v)[i].sa, ai->ai_addr, ai->ai_addrlen);
		if (dup)
			continue;
		more = realloc(*v, (*n + 1) * sizeof(**v));
		if (!more) {
			freeaddrinfo(res);
			snprintf(errbuf, errlen, "out of memory");
			return -1;
		}
		*v = more;
		t = &more[(*n)++];
		memset(t, 0, sizeof(*t));
		snprintf(t->name, sizeof(t->name), "%s", name);
		memcpy(&t->sa, ai->ai_addr, ai->ai_addrlen);
		t->salen = ai->ai_addrlen;
		t->family = ai->ai_family;
		getnameinfo(ai->ai_addr, ai->ai_addrlen, t->addr, sizeof(t->addr), NULL, 0,
			    NI_NUMERICHOST);
		added++;
	}
	freeaddrinfo(res);
	if (!added && !*n) {
		snprintf(errbuf, errlen, "'%s' has no address", name);
		return -1;
	}
	return 0;
}

int probe_target_ready(struct probe_target *t, const struct probe_cfg *cfg)
{
	double want = cfg->timeout / cfg->interval + 2;

	t->n_pend = want > PROBE_PENDING_MAX ? PROBE_PENDING_MAX : (unsigned int)want;
	t->pend = calloc(t->n_pend, sizeof(*t->pend));
	return t->pend ? 0 : -ENOMEM;
}

void probe_target_free(struct probe_target *t)
{
	free(t->pend);
	t->pend = NULL;
	probe_samples_free(&t->rtt);
	probe_samples_free(&t->refl);
	probe_samples_free(&t->fwd);
	probe_samples_free(&t->bwd);
}

/* Why a ping socket was refused, and what would help. */
static void icmp_refusal(int err, char *errbuf, size_t errlen)
{
	char range[64] = "?";
	FILE *f = fopen("/proc/sys/net/ipv4/ping_group_range", "r");

	if (f) {
		if (fgets(range, sizeof(range), f))
			range[strcspn(range, "\n")] = '\0';
		for (char *c = range; *c; c++)
			*c = *c == '\t' ? ' ' : *c;
		fclose(f);
	}
	snprintf(errbuf, errlen,
		 "--icmp needs a ping socket, which net.ipv4.ping_group_range (%s) refuses to "
		 "group "
		 "%u (%s), or CAP_NET_RAW: widen the range or run with CAP_NET_RAW, as ping needs",
		 range, (unsigned int)getgid(), strerror(err));
}

static const int ts_flags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
			    SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_TX_HARDWARE |
			    SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE |
			    SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;

/* TTL, TOS, the source, the received TTL: the options a socket takes. */
static int socket_options(struct prober *p, int fd, int fam, char *errbuf, size_t errlen)
{
	const struct probe_cfg *c = &p->cfg;
	bool v6 = fam == AF_INET6;
	int on = 1, lvl = v6 ? IPPROTO_IPV6 : IPPROTO_IP, pmtu = IP_PMTUDISC_DO;
	struct sockaddr_storage src = { 0 };

	if (setsockopt(fd, lvl, v6 ? IPV6_RECVHOPLIMIT : IP_RECVTTL, &on, sizeof(on)))
		return snprintf(errbuf, errlen, "receiving the TTL: %s", strerror(errno)), -1;
	if (c->ttl >= 0 &&
	    setsockopt(fd, lvl, v6 ? IPV6_UNICAST_HOPS : IP_TTL, &c->ttl, sizeof(c->ttl)))
		return snprintf(errbuf, errlen, "--ttl %d: %s", c->ttl, strerror(errno)), -1;
	if (c->tos >= 0 && setsockopt(fd, lvl, v6 ? IPV6_TCLASS : IP_TOS, &c->tos, sizeof(c->tos)))
		return snprintf(errbuf, errlen, "--tos %d: %s", c->tos, strerror(errno)), -1;
	/* DF where no path can need to fragment (512 bytes with the largest
	 * IPv4 header, under RFC 791's 576): with it the kernel gives the ID
	 * 0 (RFC 6864) rather than one from its shared table for each probe. */
	if (!v6 && 60 + 8 + c->size <= 512) /* the UDP or ICMP header: 8 */
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	if (!c->source)
		return 0;
	if (inet_pton(fam, c->source,
		      v6 ? (void *)&((struct sockaddr_in6 *)&src)->sin6_addr :
			   (void *)&((struct sockaddr_in *)&src)->sin_addr) == 1) {
		src.ss_family = fam;
		if (!bind(fd, (struct sockaddr *)&src,
			  v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in)))
			return 0;
	} else if (!setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, c->source, strlen(c->source) + 1)) {
		return 0;
	}
	snprintf(errbuf, errlen, "--source %s: %s", c->source, strerror(errno));
	return -1;
}

/* The socket of family fam (i: 0 IPv4, 1 IPv6). */
static int socket_open(struct prober *p, int i, char *errbuf, size_t errlen)
{
	int fam = i ? AF_INET6 : AF_INET, proto = i ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	int fd, flags = ts_flags, rcvbuf = 4 << 20, sndbuf = 1 << 20;

	if (!p->cfg.icmp)
		fd = socket(fam, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	else if (!p->raw)
		fd = socket(fam, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	else
		fd = socket(fam, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	if (fd < 0 && p->cfg.icmp && !p->raw && (errno == EACCES || errno == EPERM)) {
		/* ping's way too: a raw socket where CAP_NET_RAW allows it. */
		int err = errno;

		p->raw = true;
		fd = socket(fam, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
		if (fd < 0) {
			icmp_refusal(err, errbuf, errlen);
			return -1;
		}
	}
	if (fd < 0) {
		snprintf(errbuf, errlen, "cannot open an IPv%c %s socket: %s", i ? '6' : '4',
			 p->cfg.icmp ? "ICMP" : "UDP", strerror(errno));
		return -1;
	}
	p->fd[i] = fd;
	if (socket_options(p, fd, fam, errbuf, errlen))
		return -1;
	p->ts_ok = !setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags));
	/* Room for a burst of replies and timestamps (both count against it),
	 * beyond rmem_max where the process may. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* And for a batch of sends the device has yet to take. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	p->txkey[i] = calloc(TXKEYS, sizeof(*p->txkey[i]));
	if (!p->txkey[i])
		return snprintf(errbuf, errlen, "out of memory"), -1;
	return 0;
}

/* t as p's target i, its first probe at at_ns. */
static void target_start(const struct prober *p, struct probe_target *t, int i,
			 unsigned long long at_ns)
{
	unsigned short port = htons(p->cfg.icmp ? 0 : p->cfg.port);

	t->index = i;
	if (t->family == AF_INET6)
		((struct sockaddr_in6 *)&t->sa)->sin6_port = port;
	else
		((struct sockaddr_in *)&t->sa)->sin_port = port;
	t->next_send_ns = at_ns;
}

/* The send schedule: a min-heap of the targets still to send, by their
 * next send, so that a tick costs what it sends, not the targets. */
static bool heap_before(const struct prober *p, int a, int b)
{
	return p->heap[a].at < p->heap[b].at;
}

static void heap_down(struct prober *p, int k)
{
	for (;;) {
		int c = 2 * k + 1, top = k;
		struct probe_due x;

		if (c < p->n_heap && heap_before(p, c, top))
			top = c;
		if (c + 1 < p->n_heap && heap_before(p, c + 1, top))
			top = c + 1;
		if (top == k)
			return;
		x = p->heap[k];
		p->heap[k] = p->heap[top];
		p->heap[top] = x;
		k = top;
	}
}

static void say_mem(struct prober *p, const char *what)
{
	if (!p->said_mem)
		log_error("probe %s: out of memory: %s (said once)", p->cfg.label, what);
	p->said_mem = true;
}

/* p's targets, scheduled anew. */
static void heap_make(struct prober *p)
{
	if (p->n > p->heap_room) {
		struct probe_due *h = realloc(p->heap, p->n * sizeof(*h));

		if (h) {
			p->heap = h;
			p->heap_room = p->n;
		} else {
			say_mem(p, "targets beyond the first ones left unprobed");
		}
	}
	p->n_heap = 0;
	for (int i = 0; i < p->n && p->n_heap < p->heap_room; i++)
		if (!p->t[i].done)
			p->heap[p->n_heap++] =
				(struct probe_due){ .at = p->t[i].next_send_ns, .target = i };
	for (int k = p->n_heap / 2 - 1; k >= 0; k--)
		heap_down(p, k);
}

static struct probe_pending *slot_of(const struct probe_target *t, unsigned int seq)
{
	return &t->pend[seq % t->n_pend];
}

static int flight_grow(struct prober *p)
{
	unsigned int room = p->fl_room ? 2 * p->fl_room : 256;
	struct probe_flight *v = malloc(room * sizeof(*v));

	if (!v)
		return -1;
	for (unsigned int k = 0; k < p->fl_n; k++)
		v[k] = p->fl[(p->fl_head + k) % p->fl_room];
	free(p->fl);
	p->fl = v;
	p->fl_head = 0;
	p->fl_room = room;
	return 0;
}

/* A probe sent: its timeout comes after those of the probes before it. */
static void flight_push(struct prober *p, int target, unsigned int seq, unsigned long long now)
{
	if (p->fl_n == p->fl_room && flight_grow(p)) {
		/* Counted lost when its place in the ring is taken, or at the end. */
		say_mem(p, "some timeouts are counted late");
		return;
	}
	p->fl[(p->fl_head + p->fl_n++) % p->fl_room] =
		(struct probe_flight){ .target = target, .seq = seq, .sent_ns = now };
}

static int flight_cmp(const void *a, const void *b)
{
	const struct probe_flight *x = a, *y = b;

	return x->sent_ns < y->sent_ns ? -1 : x->sent_ns > y->sent_ns;
}

/* The probes p's targets wait for, in the order sent (after a retarget). */
static void flight_make(struct prober *p)
{
	p->fl_head = p->fl_n = 0;
	for (int i = 0; i < p->n; i++)
		for (unsigned int k = 0; k < p->t[i].n_pend; k++) {
			const struct probe_pending *s = &p->t[i].pend[k];

			if (s->state == SLOT_WAITING)
				flight_push(p, i, s->seq, s->sent_ns);
		}
	/* One ring, in place: flight_push wrapped nothing, the head is 0. */
	if (p->fl_n)
		qsort(p->fl, p->fl_n, sizeof(*p->fl), flight_cmp);
}

void probe_target_carry(struct probe_target *nt, const struct probe_target *t)
{
	nt->sent = t->sent;
	nt->received = t->received;
	nt->lost = t->lost;
	nt->dups = t->dups;
	nt->reordered = t->reordered;
	memcpy(nt->bucket, t->bucket, sizeof(nt->bucket));
	nt->rtt_sum_s = t->rtt_sum_s;
}

/* The sends numbered before a retarget (n targets from the old old_n):
 * each to its target's new place, so that its timestamp still counts. */
static void txkey_move(struct prober *p, const int *from, int old_n)
{
	int *to = malloc((old_n ? old_n : 1) * sizeof(*to));

	for (int j = 0; to && j < old_n; j++)
		to[j] = -1;
	for (int i = 0; to && i < p->n; i++)
		if (from[i] >= 0)
			to[from[i]] = i;
	for (int i = 0; i < 2; i++) {
		for (int k = 0; p->txkey[i] && k < TXKEYS; k++) {
			struct probe_txkey *x = &p->txkey[i][k];

			x->target = to && x->target >= 0 && x->target < old_n ? to[x->target] : -1;
		}
	}
	free(to);
}

void prober_retarget(struct prober *p, struct probe_target *v, int n, const int *from,
		     unsigned long long now_ns)
{
	int old_n = p->n;

	for (int i = 0; i < n; i++) {
		char name[sizeof(v[i].name)];

		if (from[i] < 0) {
			target_start(p, &v[i], i,
				     now_ns + (unsigned long long)(p->cfg.interval * NS * i / n));
			continue;
		}
		memcpy(name, v[i].name, sizeof(name));
		probe_target_free(&v[i]);
		v[i] = p->t[from[i]]; /* its ring and samples move with it */
		memcpy(v[i].name, name, sizeof(name));
		p->t[from[i]].pend = NULL;
		p->t[from[i]].rtt = p->t[from[i]].refl = (struct probe_samples){ 0 };
		p->t[from[i]].fwd = p->t[from[i]].bwd = (struct probe_samples){ 0 };
		v[i].index = i;
	}
	for (int i = 0; i < p->n; i++)
		probe_target_free(&p->t[i]);
	free(p->t);
	p->t = v;
	p->n = n;
	p->due_known = false;
	heap_make(p);
	flight_make(p);
	txkey_move(p, from, old_n);
}

int prober_add(struct prober *p, struct probe_target *v, int n, unsigned long long now_ns,
	       char *errbuf, size_t errlen)
{
	struct probe_target *w = calloc(p->n + n, sizeof(*w));
	int *from = calloc(p->n + n, sizeof(*from)), m = p->n, ret = -1;

	if (!w || !from) {
		snprintf(errbuf, errlen, "out of memory");
		goto out;
	}
	for (int i = 0; i < p->n; i++) {
		memcpy(w[i].name, p->t[i].name, sizeof(w[i].name));
		from[i] = i;
	}
	for (int k = 0; k < n; k++) {
		int fam = v[k].family == AF_INET6, dup = 0;

		for (int i = 0; i < m && !dup; i++)
			dup = !strcmp(i < p->n ? p->t[i].addr : w[i].addr, v[k].addr);
		if (dup)
			continue;
		if (p->fd[fam] < 0 && socket_open(p, fam, errbuf, errlen))
			goto out;
		w[m] = v[k];
		memset(&v[k], 0, sizeof(v[k])); /* w's now */
		from[m] = -1;
		if (probe_target_ready(&w[m++], &p->cfg)) {
			snprintf(errbuf, errlen, "out of memory");
			goto out;
		}
	}
	prober_retarget(p, w, m, from, now_ns);
	w = NULL;
	ret = 0;
out:
	for (int i = p->n; w && i < m; i++)
		probe_target_free(&w[i]);
	free(w);
	free(from);
	return ret;
}

/* p's batches: as many messages a call as BATCH_BYTES of buffers hold. */
static int io_make(struct prober *p)
{
	struct probe_io *io = calloc(1, sizeof(*io));
	size_t most;

	p->io = io;
	if (!io)
		return -1;
	io->plen = p->cfg.icmp ? 8 + p->cfg.size : p->cfg.size;
	/* A reply as big as the probe, with an IP header (raw ICMP) and room
	 * to spare; UDP and raw sockets tell a longer one's length all the same. */
	io->room = io->plen + 1024 < PKT_MAX ? io->plen + 1024 : PKT_MAX;
	most = BATCH_BYTES / io->room;
	io->batch = most < 1 ? 1 : most > BATCH ? BATCH : (unsigned int)most;
	io->buf = malloc(io->batch * io->room);
	for (int i = 0; i < 2; i++)
		io->out[i].buf = malloc(io->batch * (io->plen ? io->plen : 1));
	if (!io->buf || !io->out[0].buf || !io->out[1].buf)
		return -1;
	for (unsigned int k = 0; k < io->batch; k++) {
		io->iov[k] =
			(struct iovec){ .iov_base = io->buf + k * io->room, .iov_len = io->room };
		io->in[k].msg_hdr = (struct msghdr){ .msg_name = &io->from[k],
						     .msg_iov = &io->iov[k],
						     .msg_iovlen = 1,
						     .msg_control = io->ctl[k] };
		io->err[k].msg_hdr = (struct msghdr){ .msg_control = io->ectl[k] };
	}
	return 0;
}

/* S and the Error Estimate (our clock's, as adjtimex says) read now. */
static void clock_take(struct prober *p, unsigned long long now_ns)
{
	struct stamp_clock clk;

	p->clock_read_ns = now_ns;
	if (!stamp_clock_read(XDPONG_STAMP_CLOCK_MONO, true, &clk)) {
		p->synced = clk.synced;
		p->errest = clk.errest;
	}
}

int prober_open(struct prober *p, unsigned long long now_ns, char *errbuf, size_t errlen)
{
	bool want[2] = { false, false };
	unsigned int rnd = (unsigned int)(real_ns() ^ getpid());

	p->fd[0] = p->fd[1] = -1;
	for (int i = 0; i < p->n; i++)
		want[p->t[i].family == AF_INET6] = true;
	if (io_make(p))
		return snprintf(errbuf, errlen, "out of memory"), -1;
	for (int i = 0; i < 2; i++)
		if (want[i] && socket_open(p, i, errbuf, errlen))
			return -1;
	p->ssid = (unsigned short)(rnd >> 16);
	p->magic = rnd * 2654435761U;
	clock_take(p, now_ns);
	for (int i = 0; i < p->n; i++) {
		/* Spread over the first interval, as fping does, never a burst. */
		target_start(p, &p->t[i], i,
			     now_ns + START_NS +
				     (unsigned long long)(p->cfg.interval * NS * i / p->n));
		if (!p->t[i].pend && probe_target_ready(&p->t[i], &p->cfg))
			return snprintf(errbuf, errlen, "out of memory"), -1;
	}
	heap_make(p);
	flight_make(p);
	return 0;
}

void prober_close(struct prober *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->fd[i] >= 0)
			close(p->fd[i]);
		p->fd[i] = -1;
		free(p->txkey[i]);
		p->txkey[i] = NULL;
	}
	if (p->io) {
		free(p->io->out[0].buf);
		free(p->io->out[1].buf);
		free(p->io->buf);
	}
	free(p->io);
	p->io = NULL;
	free(p->heap);
	p->heap = NULL;
	p->n_heap = p->heap_room = 0;
	free(p->fl);
	p->fl = NULL;
	p->fl_head = p->fl_n = p->fl_room = 0;
}

static void put32(unsigned char *b, unsigned int v)
{
	v = htonl(v);
	memcpy(b, &v, 4);
}

static unsigned int get32(const unsigned char *b)
{
	unsigned int v;

	memcpy(&v, b, 4);
	return ntohl(v);
}

static unsigned long long get64(const unsigned char *b)
{
	return (unsigned long long)get32(b) << 32 | get32(b + 4);
}

/* The Internet checksum (RFC 1071), for a raw ICMP socket's echo. */
static unsigned short csum(const unsigned char *b, size_t len)
{
	unsigned long sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += b[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

/* The packet for sequence number seq of t, sent at t1 (real time, ns). */
static size_t packet_build(const struct prober *p, const struct probe_target *t, unsigned char *b,
			   unsigned int seq, unsigned long long t1)
{
	size_t len = p->io->plen;
	unsigned long long sec = t1 / NS + NTP_UNIX, frac = ((t1 % NS) << 32) / NS;

	memset(b, 0, len);
	if (!p->cfg.icmp) {
		/* RFC 8762 4.2.1: Sequence Number, Timestamp (NTP), Error
		 * Estimate; RFC 8972 3: SSID; then MBZ. */
		put32(b, seq);
		put32(b + 4, (unsigned int)sec);
		put32(b + 8, (unsigned int)frac);
		b[12] = p->errest >> 8;
		b[13] = p->errest & 0xff;
		b[14] = (unsigned short)(p->ssid + t->index) >> 8;
		b[15] = (unsigned short)(p->ssid + t->index) & 0xff;
		return len;
	}
	b[0] = t->family == AF_INET6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
	b[4] = p->raw ? (p->magic >> 8) & 0xff : 0; /* the id: a ping socket's own */
	b[5] = p->raw ? p->magic & 0xff : 0;
	b[6] = (seq >> 8) & 0xff;
	b[7] = seq & 0xff;
	if (p->cfg.size >= 8) {
		put32(b + 8, (unsigned int)t->index);
		put32(b + 12, p->magic);
	}
	if (p->raw && t->family == AF_INET) {
		unsigned short c = csum(b, len);

		memcpy(b + 2, &c, 2);
	}
	return len;
}

/* Socket i's queue sent: each send numbered for its transmit timestamp. */
static void flush(struct prober *p, int i)
{
	struct probe_queue *q = &p->io->out[i];
	unsigned int off = 0;

	while (off < q->n) {
		int r = sendmmsg(p->fd[i], q->msg + off, q->n - off, 0);

		if (r > 0) {
			/* SOF_TIMESTAMPING_OPT_ID: the socket's sends are numbered. */
			for (int k = 0; k < r; k++)
				p->txkey[i][p->key[i]++ % TXKEYS] = q->key[off + k];
			off += r;
			continue;
		}
		/* A send the kernel refused is sent all the same, and goes unanswered. */
		if (!p->said_send)
			log_note("probe %s: cannot send to %s: %s (said once)", p->cfg.label,
				 p->t[q->key[off].target].addr, strerror(errno));
		p->said_send = true;
		off++;
	}
	q->n = 0;
}

/* t's next probe, into its socket's queue (sent when full or at the tick's end). */
static void queue_one(struct prober *p, struct probe_target *t, unsigned long long now)
{
	struct probe_pending *s = slot_of(t, t->next_seq);
	int i = t->family == AF_INET6;
	struct probe_queue *q = &p->io->out[i];
	unsigned char *b = q->buf + q->n * p->io->plen;
	unsigned long long t1 = real_ns();
	size_t len = packet_build(p, t, b, t->next_seq, t1);

	if (s->state == SLOT_WAITING) /* more waiting than the ring holds */
		t->lost++;
	*s = (struct probe_pending){
		.seq = t->next_seq, .state = SLOT_WAITING, .t1_ns = t1, .sent_ns = now
	};
	flight_push(p, t->index, t->next_seq, now);
	q->iov[q->n] = (struct iovec){ .iov_base = b, .iov_len = len };
	q->msg[q->n].msg_hdr = (struct msghdr){ .msg_name = &t->sa,
						.msg_namelen = t->salen,
						.msg_iov = &q->iov[q->n],
						.msg_iovlen = 1 };
	q->key[q->n++] = (struct probe_txkey){ .target = t->index, .seq = t->next_seq };
	t->sent++;
	t->next_seq++;
	t->next_send_ns += (unsigned long long)(p->cfg.interval * NS);
	/* Suspended, or far behind: start again from now rather than burst. */
	if (t->next_send_ns + (unsigned long long)(p->cfg.interval * NS) < now)
		t->next_send_ns = now + (unsigned long long)(p->cfg.interval * NS);
	t->done = p->cfg.count && t->next_seq >= p->cfg.count;
	if (q->n == p->io->batch)
		flush(p, i);
}

/* What waited past the timeout is lost: the probes in flight are in the
 * order sent, so the first that has time left ends the look. */
static void expire(struct prober *p, unsigned long long now)
{
	unsigned long long wait = (unsigned long long)(p->cfg.timeout * NS);

	for (; p->fl_n; p->fl_head = (p->fl_head + 1) % p->fl_room, p->fl_n--) {
		const struct probe_flight *f = &p->fl[p->fl_head];
		struct probe_target *t = &p->t[f->target];
		struct probe_pending *s = slot_of(t, f->seq);

		if (s->seq != f->seq || s->state != SLOT_WAITING)
			continue; /* answered, or its place taken */
		if (f->sent_ns + wait > now)
			break;
		s->state = SLOT_LOST;
		t->lost++;
	}
}

static bool reads_on_tick(const struct prober *p)
{
	return p->cfg.read_on_tick && p->rx_stamped;
}

int prober_pollfd(const struct prober *p, int i)
{
	return reads_on_tick(p) ? -1 : p->fd[i];
}

static unsigned long long next_of(const struct prober *p);

/* S and the Error Estimate follow the kernel's clock discipline. */
static void clock_refresh(struct prober *p, unsigned long long now_ns)
{
	if (now_ns - p->clock_read_ns >= CLOCK_EVERY_NS)
		clock_take(p, now_ns);
}

void prober_tick(struct prober *p, unsigned long long now_ns)
{
	/* Every reply wakes the caller: nothing to do until the next due. */
	if (p->due_known && now_ns < p->due_ns)
		return;
	unsigned long long until = now_ns;

	clock_refresh(p, now_ns);

	/* A service's sends a little early rather than a tick each (every
	 * interval stays as long): half the wake-ups, twice the batch. */
	if (p->cfg.read_on_tick) {
		unsigned long long quarter = (unsigned long long)(p->cfg.interval * NS / 4);

		until += quarter < TICK_NS ? quarter : TICK_NS;
	}
	for (int i = 0; i < 2 && reads_on_tick(p); i++)
		if (p->fd[i] >= 0)
			prober_read(p, i);
	while (p->n_heap && p->heap[0].at <= until) {
		struct probe_target *t = &p->t[p->heap[0].target];

		while (!t->done && t->next_send_ns <= until)
			queue_one(p, t, now_ns);
		if (t->done)
			p->heap[0] = p->heap[--p->n_heap];
		else
			p->heap[0].at = t->next_send_ns;
		heap_down(p, 0);
	}
	for (int i = 0; i < 2; i++)
		flush(p, i);
	expire(p, now_ns);
	p->due_ns = next_of(p);
	p->due_known = true;
}

void prober_stop(struct prober *p)
{
	/* What came before the end is no loss. */
	for (int i = 0; i < 2 && reads_on_tick(p); i++)
		if (p->fd[i] >= 0)
			prober_read(p, i);
	for (int i = 0; i < p->n; i++)
		for (unsigned int k = 0; k < p->t[i].n_pend; k++)
			if (p->t[i].pend[k].state == SLOT_WAITING) {
				p->t[i].pend[k].state = SLOT_LOST;
				p->t[i].lost++;
			}
	p->fl_n = 0;
	p->due_known = false;
}

unsigned long long prober_next_ns(const struct prober *p)
{
	return p->due_known ? p->due_ns : next_of(p);
}

/* The earliest send or timeout (the replies since only make a timeout
 * later: an early answer costs one idle tick). */
static unsigned long long next_of(const struct prober *p)
{
	unsigned long long next = p->n_heap ? p->heap[0].at : 0, at;

	if (!p->fl_n)
		return next;
	at = p->fl[p->fl_head].sent_ns + (unsigned long long)(p->cfg.timeout * NS);
	return !next || at < next ? at : next;
}

/* A kernel timestamp: the NIC's where it gave one, else the stack's. */
static unsigned long long ts_of(const struct scm_timestamping *ts)
{
	const struct timespec *t = ts->ts[2].tv_sec || ts->ts[2].tv_nsec ? &ts->ts[2] : &ts->ts[0];

	return t->tv_sec * NS + t->tv_nsec;
}

/* A transmit timestamp: T1 of the probe its key numbers. */
static void tx_stamp(struct prober *p, int i, struct msghdr *m)
{
	const struct scm_timestamping *ts = NULL;
	const struct sock_extended_err *ee = NULL;
	const struct probe_txkey *k;
	struct probe_pending *s;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING)
			ts = (const void *)CMSG_DATA(c);
		else if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
			 (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR))
			ee = (const void *)CMSG_DATA(c);
	}
	if (!ts || !ee || ee->ee_origin != SO_EE_ORIGIN_TIMESTAMPING)
		return;
	k = &p->txkey[i][ee->ee_data % TXKEYS];
	if (k->target < 0 || k->target >= p->n)
		return;
	s = slot_of(&p->t[k->target], k->seq);
	if (s->seq == k->seq && s->state == SLOT_WAITING && ts_of(ts)) {
		s->t1_ns = ts_of(ts);
		s->t1_kernel = true;
	}
}

/* The transmit timestamps waiting on socket i's error queue, a batch a call. */
static void read_errqueue(struct prober *p, int i)
{
	struct probe_io *io = p->io;
	int r;

	do {
		for (unsigned int k = 0; k < io->batch; k++) {
			io->err[k].msg_hdr.msg_controllen = CTL_LEN;
			io->err[k].msg_hdr.msg_flags = 0;
		}
		r = recvmmsg(p->fd[i], io->err, io->batch, MSG_ERRQUEUE | MSG_DONTWAIT, NULL);
		for (int k = 0; k < r; k++)
			tx_stamp(p, i, &io->err[k].msg_hdr);
	} while (r == (int)io->batch);
}

/* The target a reply came from: the one its SSID or payload names, if
 * the address agrees, else the one of its address. NULL if none. */
static struct probe_target *target_of(struct prober *p, int hint,
				      const struct sockaddr_storage *from)
{
	const void *a = from->ss_family == AF_INET6 ?
				(const void *)&((const struct sockaddr_in6 *)from)->sin6_addr :
				(const void *)&((const struct sockaddr_in *)from)->sin_addr;
	size_t len = from->ss_family == AF_INET6 ? 16 : 4;

	for (int i = -1; i < p->n; i++) {
		const struct probe_target *t = &p->t[i < 0 ? hint : i];
		const void *b =
			t->family == AF_INET6 ?
				(const void *)&((const struct sockaddr_in6 *)&t->sa)->sin6_addr :
				(const void *)&((const struct sockaddr_in *)&t->sa)->sin_addr;

		if (i < 0 && (hint < 0 || hint >= p->n))
			continue;
		if (t->family == from->ss_family && !memcmp(a, b, len))
			return &p->t[i < 0 ? hint : i];
	}
	return NULL;
}

static unsigned long long ntp_ns(unsigned long long ntp)
{
	return ((ntp >> 32) - NTP_UNIX) * NS + (((ntp & 0xffffffffULL) * NS) >> 32);
}

/* A STAMP reply (RFC 8762 4.3.1): sequence number, RTT without the
 * reflector's residence, and the one-way delays when both clocks say S. */
static struct probe_target *stamp_parse(struct prober *p, const unsigned char *b, size_t len,
					const struct sockaddr_storage *from, struct probe_reply *r,
					unsigned long long *t2, unsigned long long *t3)
{
	unsigned int port = ntohs(from->ss_family == AF_INET6 ?
					  ((const struct sockaddr_in6 *)from)->sin6_port :
					  ((const struct sockaddr_in *)from)->sin_port);
	struct probe_target *t;

	if (len < PROBE_STAMP_BASE || port != p->cfg.port)
		return NULL;
	t = target_of(p, (unsigned short)((b[14] << 8 | b[15]) - p->ssid), from);
	if (!t)
		return NULL;
	r->seq = get32(b + 24); /* the Session-Sender's Sequence Number */
	r->ttl = b[40];         /* Ses-Sender TTL: what the request arrived with */
	*t3 = ntp_ns(get64(b + 4));
	*t2 = ntp_ns(get64(b + 16));
	r->synced = p->synced && (b[12] & 0x80); /* S: both clocks synchronised */
	return t;
}

/* An ICMP echo reply, from a ping socket (no IP header) or a raw one. */
static struct probe_target *icmp_parse(struct prober *p, const unsigned char *b, size_t len,
				       const struct sockaddr_storage *from, struct probe_reply *r)
{
	bool v6 = from->ss_family == AF_INET6;
	struct probe_target *t;
	size_t ihl = 0;

	if (p->raw && !v6) {
		if (len < 20)
			return NULL;
		ihl = (b[0] & 0xf) * 4;
		r->ttl = b[8];
		r->bytes -= ihl < len ? ihl : len;
		b += ihl;
		len -= ihl < len ? ihl : len;
	}
	if (len < 8 || b[0] != (v6 ? ICMP6_ECHO_REPLY : ICMP_ECHOREPLY))
		return NULL;
	if (p->raw && (unsigned int)(b[4] << 8 | b[5]) != (p->magic & 0xffff))
		return NULL;
	if (len >= 16 && get32(b + 12) != p->magic)
		return NULL;
	t = target_of(p, len >= 16 ? (int)get32(b + 8) : -1, from);
	if (!t)
		return NULL;
	/* 16 bits on the wire: the latest sequence number they can be. */
	r->seq = t->next_seq - 1 - (unsigned short)(t->next_seq - 1 - (b[6] << 8 | b[7]));
	return t;
}

/* Count a reply of t and tell it. */
static void reply_count(struct prober *p, struct probe_target *t, struct probe_reply *r,
			unsigned long long t4, unsigned long long t2, unsigned long long t3)
{
	struct probe_pending *s = slot_of(t, r->seq);
	long long rtt = (long long)(t4 - s->t1_ns), refl = (long long)(t3 - t2);

	if (r->seq >= t->next_seq || t->next_seq - r->seq > t->n_pend || s->seq != r->seq ||
	    s->state == SLOT_FREE)
		return; /* not ours, or too old to tell */
	if (refl < 0 || refl > rtt)
		refl = 0; /* a reflector whose T3 is not after T2: its residence unknown */
	r->t = t;
	r->rtt_ns = rtt - refl;
	r->refl_ns = refl;
	if (r->synced) {
		r->fwd_ns = (double)(long long)(t2 - s->t1_ns);
		r->bwd_ns = (double)(long long)(t4 - t3);
	}
	r->dup = s->state == SLOT_ANSWERED;
	r->late = s->state == SLOT_LOST;
	if (s->state == SLOT_WAITING) {
		s->state = SLOT_ANSWERED;
		t->received++;
		r->reordered = r->seq + 1 < t->top_seq;
		t->reordered += r->reordered;
		if (r->seq + 1 > t->top_seq)
			t->top_seq = r->seq + 1;
		probe_hist_add(t, r->rtt_ns);
		if (p->cfg.keep_samples) {
			probe_samples_add(&t->rtt, r->rtt_ns);
			if (!p->cfg.icmp)
				probe_samples_add(&t->refl, r->refl_ns);
			if (r->synced) {
				probe_samples_add(&t->fwd, r->fwd_ns);
				probe_samples_add(&t->bwd, r->bwd_ns);
			}
		}
	} else if (r->dup) {
		t->dups++;
	}
	if (p->cfg.on_reply)
		p->cfg.on_reply(r, p->cfg.arg);
}

/* A timestamp the kernel did not give: said once a prober. */
static void say_fallback(const struct prober *p, bool *said, const char *dir, const char *t,
			 const char *when)
{
	if (*said)
		return;
	log_note("probe %s: no %s timestamp from the kernel (SO_TIMESTAMPING %s); %s is taken in "
		 "user space, %s",
		 p->cfg.label, dir, p->ts_ok ? "accepted, but none delivered" : "refused", t, when);
	*said = true;
}

/* T1: the kernel's, read now if it has not been; else user space's, said once. */
static void t1_settle(struct prober *p, int i, const struct probe_target *t, unsigned int seq)
{
	struct probe_pending *s = slot_of(t, seq);

	if (s->seq != seq || s->t1_kernel) {
		p->tx_kernel += s->seq == seq;
		return;
	}
	read_errqueue(p, i);
	if (s->t1_kernel) {
		p->tx_kernel++;
		return;
	}
	p->tx_user++;
	say_fallback(p, &p->said_no_tx, "transmit", "T1", "before the send");
}

/* T4 (0 if the kernel gave none) and the TTL from a reply's control messages. */
static unsigned long long rx_cmsgs(struct msghdr *m, struct probe_reply *r)
{
	unsigned long long t4 = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING)
			t4 = ts_of((const void *)CMSG_DATA(c));
		else if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_TTL) ||
			 (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_HOPLIMIT))
			memcpy(&r->ttl, CMSG_DATA(c), sizeof(int));
	}
	return t4;
}

/* T4: the kernel's, else user space's, said once. */
static unsigned long long t4_settle(struct prober *p, unsigned long long t4, unsigned long long now)
{
	if (t4) {
		p->rx_kernel++;
		p->rx_stamped = true;
		return t4;
	}
	p->rx_user++;
	p->rx_stamped = false;
	say_fallback(p, &p->said_no_rx, "receive", "T4", "when the reply is read");
	return now;
}

/* One reply, len bytes long, read at now (real time). */
static void reply_one(struct prober *p, int i, struct msghdr *m, unsigned int len,
		      unsigned long long now)
{
	const struct sockaddr_storage *from = m->msg_name;
	const unsigned char *b = m->msg_iov->iov_base;
	size_t have = len < m->msg_iov->iov_len ? len : m->msg_iov->iov_len;
	struct probe_reply r = { .ttl = -1, .bytes = len };
	unsigned long long t2 = 0, t3 = 0, t4 = rx_cmsgs(m, &r);
	struct probe_target *t = p->cfg.icmp ? icmp_parse(p, b, have, from, &r) :
					       stamp_parse(p, b, have, from, &r, &t2, &t3);

	if (!t)
		return;
	t4 = t4_settle(p, t4, now);
	t1_settle(p, i, t, r.seq);
	reply_count(p, t, &r, t4, t2, t3);
}

void prober_read(struct prober *p, int i)
{
	struct probe_io *io = p->io;
	int r;

	read_errqueue(p, i);
	do {
		unsigned long long now;

		for (unsigned int k = 0; k < io->batch; k++) {
			io->in[k].msg_hdr.msg_namelen = sizeof(io->from[k]);
			io->in[k].msg_hdr.msg_controllen = CTL_LEN;
			io->in[k].msg_hdr.msg_flags = 0;
		}
		/* MSG_TRUNC: a reply's length, even where it is longer than its room. */
		r = recvmmsg(p->fd[i], io->in, io->batch, MSG_DONTWAIT | MSG_TRUNC, NULL);
		now = real_ns();
		for (int k = 0; k < r; k++)
			reply_one(p, i, &io->in[k].msg_hdr, io->in[k].msg_len, now);
	} while (r == (int)io->batch);
}
