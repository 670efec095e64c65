// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong trace: one line per packet from the program's ring buffer.
 *
 * The program emits events only while the .bss flag trace_enabled is set,
 * so nobody pays for the ring buffer when nobody traces. Several traces of
 * one interface may run at once: each holds a read lock on a lock file for
 * its life, and the last one to leave clears the flag. A trace killed with
 * SIGKILL leaves the flag on; the next trace to exit, or `trace --off`,
 * clears it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader.h"
#include "xdpong.skel.h"

#define TRACE_LOCK_DIR "/run/xdpong"
#define TRACE_CHECK_MS 1000 /* how often lost events and the link are checked */

static void trace_usage(FILE *f)
{
	fprintf(f,
		"Usage: xdpong trace IFACE [--count N] [--json]\n"
		"       xdpong trace IFACE --off\n"
		"\n"
		"Print one line per packet xdpong sees on IFACE, as it decides: time,\n"
		"source -> destination, ICMP echo id and seq, IP and frame length,\n"
		"verdict (replied, passed, dropped), reason and the program's service\n"
		"time (for timed replies). Replies are shown as the request that came\n"
		"in. Events the ring buffer had no room for are counted and reported\n"
		"every second and at the end. Tracing costs the fast path a ring buffer\n"
		"write per packet only while a trace runs.\n"
		"\n"
		"Options:\n"
		"  -c, --count N    stop after N packets\n"
		"  -j, --json       one JSON object per packet, one per line\n"
		"      --off        turn the events off if no trace is running (after\n"
		"                   a trace was killed with SIGKILL)\n"
		"  -v, --verbose    say more\n"
		"  -h, --help       this help\n"
		"\n"
		"Examples:\n"
		"  xdpong trace eth0\n"
		"  xdpong trace eth0 --count 10\n"
		"  xdpong trace eth0 --json | jq 'select(.verdict == \"dropped\")'\n");
}

/* ---- readers: who is tracing this program, across processes ---- */

/*
 * /run/xdpong/trace-PROGID.lock. OFD locks, released by the kernel when
 * the process dies: byte 0 is a mutex around switching the flag, byte 1
 * is read-locked by every running trace.
 */
struct readers {
	int fd;
	char path[64];
};

static int ofd_lock(int fd, short type, off_t start, bool wait)
{
	struct flock fl = {
		.l_type = type,
		.l_whence = SEEK_SET,
		.l_start = start,
		.l_len = 1,
	};

	return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl) ? -errno : 0;
}

/* True if another open file description holds byte 1 (a live trace). */
static bool others_reading(int fd)
{
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = 1,
		.l_len = 1,
	};

	if (fcntl(fd, F_OFD_GETLK, &fl))
		return false;
	return fl.l_type != F_UNLCK;
}

/* Open the lock file and hold its mutex; -errno if locking is impossible. */
static int readers_enter(struct readers *r, __u32 prog_id)
{
	if (mkdir(TRACE_LOCK_DIR, 0700) && errno != EEXIST)
		return -errno;
	snprintf(r->path, sizeof(r->path), TRACE_LOCK_DIR "/trace-%u.lock", prog_id);
	for (int tries = 0; tries < 10; tries++) {
		struct stat fs, ps;
		int ret;

		r->fd = open(r->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (r->fd < 0)
			return -errno;
		ret = ofd_lock(r->fd, F_WRLCK, 0, true);
		if (ret) {
			close(r->fd);
			r->fd = -1;
			return ret;
		}
		/* The last trace to leave unlinks the file: use the live one. */
		if (!fstat(r->fd, &fs) && !stat(r->path, &ps) &&
		    fs.st_ino == ps.st_ino && fs.st_dev == ps.st_dev)
			return 0;
		close(r->fd);
		r->fd = -1;
	}
	return -EAGAIN;
}

static void readers_leave(struct readers *r)
{
	ofd_lock(r->fd, F_UNLCK, 0, false);
}

/* ---- decoding an event ---- */

struct decoded {
	int family;           /* 4, 6, or 0: not IP / too short to tell */
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int proto;            /* IP protocol / IPv6 next header, -1 unknown */
	int icmp_type, icmp_code; /* -1 unknown */
	int id, seq;          /* echo only, -1 otherwise */
	int ip_len;           /* from the IP header, -1 unknown */
};

static __u16 get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static void decode(const struct xdpong_trace_event *ev, struct decoded *d)
{
	unsigned int snap = ev->snap_len < XDPONG_TRACE_SNAP ? ev->snap_len :
							      XDPONG_TRACE_SNAP;
	bool replied = ev->reason < XDPONG_R_MAX &&
		       reason_outcomes[ev->reason] == XDPONG_REPLIED;
	const __u8 *p = ev->snap, *src, *dst, *icmp = NULL;
	unsigned int l3 = 0;

	memset(d, 0, sizeof(*d));
	d->proto = d->icmp_type = d->icmp_code = d->id = d->seq = d->ip_len = -1;
	if (ev->reason == XDPONG_R_pass_not_ip || snap < 1)
		return;
	if ((p[0] >> 4) == 4 && snap >= 20) {
		d->family = 4;
		l3 = (p[0] & 0xf) * 4;
		d->ip_len = get16(p + 2);
		d->proto = p[9];
		src = p + 12;
		dst = p + 16;
		if (d->proto == 1 && l3 >= 20 && snap >= l3 + 8)
			icmp = p + l3;
	} else if ((p[0] >> 4) == 6 && snap >= 40) {
		d->family = 6;
		l3 = 40;
		d->ip_len = 40 + get16(p + 4);
		d->proto = p[6];
		src = p + 8;
		dst = p + 24;
		if (d->proto == 58 && snap >= 48)
			icmp = p + 40;
	} else {
		return;
	}
	/* A reply is already swapped in the snapshot: show the request. */
	if (replied) {
		const __u8 *t = src;

		src = dst;
		dst = t;
	}
	inet_ntop(d->family == 4 ? AF_INET : AF_INET6, src, d->src, sizeof(d->src));
	inet_ntop(d->family == 4 ? AF_INET : AF_INET6, dst, d->dst, sizeof(d->dst));
	if (!icmp)
		return;
	d->icmp_type = icmp[0];
	d->icmp_code = icmp[1];
	/* Only the reply's type differs from the request's (RFC 792, 4443). */
	if (replied)
		d->icmp_type = d->family == 4 ? 8 : 128;
	if (d->icmp_type == (d->family == 4 ? 8 : 128) ||
	    d->icmp_type == (d->family == 4 ? 0 : 129)) {
		d->id = get16(icmp + 4);
		d->seq = get16(icmp + 6);
	}
}

/* ---- output ---- */

struct trace_ctx {
	const struct attachment *a;
	bool json;
	unsigned long long count, seen;
	__u64 start_ns;       /* events before this are a killed trace's */
	long long mono_to_wall_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	bool output_failed;
};

static __u64 ts_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void print_time(FILE *f, __u64 wall_ns, bool json)
{
	time_t sec = wall_ns / 1000000000ULL;
	unsigned long usec = wall_ns % 1000000000ULL / 1000;
	char buf[16];
	struct tm tm;

	if (json) {
		fprintf(f, "%llu.%06lu", (unsigned long long)sec, usec);
		return;
	}
	localtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fprintf(f, "%s.%06lu", buf, usec);
}

static const char *verdict_of(__u16 reason)
{
	return reason < XDPONG_R_MAX ? outcome_names[reason_outcomes[reason]] : "unknown";
}

static void print_json(const struct trace_ctx *c, const struct xdpong_trace_event *ev,
		       const struct decoded *d)
{
	printf("{\"time\":");
	print_time(stdout, ev->ts_ns + c->mono_to_wall_ns, true);
	printf(",\"ts_ns\":%llu,\"iface\":", (unsigned long long)ev->ts_ns);
	json_str(stdout, c->a->ifname);
	printf(",\"ifindex\":%u,\"frame_len\":%u", ev->ifindex, ev->frame_len);
	if (d->family) {
		printf(",\"family\":%d,\"src\":\"%s\",\"dst\":\"%s\",\"ip_len\":%d,\"proto\":%d",
		       d->family, d->src, d->dst, d->ip_len, d->proto);
		if (d->icmp_type >= 0)
			printf(",\"icmp_type\":%d,\"icmp_code\":%d", d->icmp_type,
			       d->icmp_code);
		if (d->id >= 0)
			printf(",\"id\":%d,\"seq\":%d", d->id, d->seq);
	}
	printf(",\"verdict\":\"%s\",\"reason\":", verdict_of(ev->reason));
	if (ev->reason < XDPONG_R_MAX)
		printf("\"%s\"", reason_names[ev->reason]);
	else
		printf("\"unknown_%u\"", ev->reason);
	if (ev->service_ns)
		printf(",\"service_ns\":%u}\n", ev->service_ns);
	else
		printf(",\"service_ns\":null}\n");
}

static void print_text(const struct trace_ctx *c, const struct xdpong_trace_event *ev,
		       const struct decoded *d)
{
	print_time(stdout, ev->ts_ns + c->mono_to_wall_ns, false);
	if (!d->family)
		printf(" %s", ev->reason == XDPONG_R_pass_not_ip ? "(not IP)" :
								   "(no IP header)");
	else
		printf(" %s -> %s", d->src, d->dst);
	if (d->id >= 0)
		printf(" %s id %d seq %d", d->family == 4 ? "ICMP echo" : "ICMPv6 echo",
		       d->id, d->seq);
	else if (d->icmp_type >= 0)
		printf(" %s type %d code %d", d->family == 4 ? "ICMP" : "ICMPv6",
		       d->icmp_type, d->icmp_code);
	else if (d->proto >= 0)
		printf(" %s %d", d->family == 4 ? "proto" : "next-header", d->proto);
	if (d->ip_len >= 0)
		printf(" len %d", d->ip_len);
	printf(" frame %u %s ", ev->frame_len, verdict_of(ev->reason));
	if (ev->reason < XDPONG_R_MAX)
		printf("%s", reason_names[ev->reason]);
	else
		printf("unknown_%u", ev->reason);
	if (ev->service_ns)
		printf(" %u ns\n", ev->service_ns);
	else
		printf(" -\n");
}

#define TRACE_DONE (-ECANCELED) /* stops ring_buffer__poll after --count */

static int on_event(void *arg, void *data, size_t size)
{
	struct trace_ctx *c = arg;
	const struct xdpong_trace_event *ev = data;
	struct decoded d;

	if (size < sizeof(*ev) || ev->ts_ns < c->start_ns)
		return 0;
	decode(ev, &d);
	if (c->json)
		print_json(c, ev, &d);
	else
		print_text(c, ev, &d);
	if (ferror(stdout)) {
		c->output_failed = true;
		return TRACE_DONE;
	}
	c->seen++;
	if (c->count && c->seen >= c->count)
		return TRACE_DONE;
	return 0;
}

static void report_lost(const struct trace_ctx *c, __u64 lost, __u64 total)
{
	if (c->json) {
		printf("{\"time\":");
		print_time(stdout, ts_ns(CLOCK_REALTIME), true);
		printf(",\"iface\":");
		json_str(stdout, c->a->ifname);
		printf(",\"lost\":%llu,\"lost_total\":%llu}\n",
		       (unsigned long long)lost, (unsigned long long)total);
	}
	note("%s: %llu events lost: the ring buffer was full (reader too slow); %llu lost since this trace started",
	     c->a->ifname, (unsigned long long)lost, (unsigned long long)total);
}

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

/* Is xdpong still the program on the interface? Prints why not. */
static bool still_attached(const struct attachment *a)
{
	struct link_info li;
	int ret = link_get(NULL, a->ifindex, &li);

	if (ret == -ENODEV) {
		err("%s was deleted; the trace ends", a->ifname);
		return false;
	}
	if (ret)
		return true; /* cannot tell: keep going */
	if (!a->dispatcher && li.xdp_prog_id != a->prog_id) {
		err("xdpong (program id %u) is no longer attached to %s; the trace ends (start it again after 'xdpong attach %s')",
		    a->prog_id, a->ifname, a->ifname);
		return false;
	}
	return true;
}

static int trace_off(const struct attachment *a, const struct bss_access *bss,
		     struct readers *rd, bool have_lock)
{
	int ret;

	if (have_lock && others_reading(rd->fd)) {
		err("another 'xdpong trace %s' is running; tracing stays on until it ends",
		    a->ifname);
		return 1;
	}
	ret = bss_set_trace(bss, 0);
	if (ret) {
		err("cannot switch tracing off on %s: %s", a->ifname, strerror(-ret));
		return 1;
	}
	if (have_lock)
		unlink(rd->path);
	printf("xdpong: tracing is off on %s\n", a->ifname);
	return 0;
}

static int trace_loop(struct trace_ctx *c, const struct bss_access *bss,
		      struct ring_buffer *rb)
{
	struct xdpong_bpf__bss v = { 0 };
	__u64 lost0, lost_seen, next_check;
	int ret = 0, rc = 0;

	if (bss_read(bss, &v))
		v.trace_lost = 0;
	lost0 = lost_seen = v.trace_lost;
	next_check = ts_ns(CLOCK_MONOTONIC) + TRACE_CHECK_MS * 1000000ULL;
	while (!stop_sig) {
		__u64 now;

		ret = ring_buffer__poll(rb, 200);
		/* One write per batch, not per line: a busy link makes big batches. */
		if (fflush(stdout) && !c->output_failed) {
			c->output_failed = true;
			break;
		}
		if (ret == TRACE_DONE)
			break;
		if (ret < 0 && ret != -EINTR) {
			err("%s: cannot read the trace ring buffer: %s", c->a->ifname,
			    strerror(-ret));
			rc = 1;
			break;
		}
		now = ts_ns(CLOCK_MONOTONIC);
		if (now < next_check)
			continue;
		next_check = now + TRACE_CHECK_MS * 1000000ULL;
		if (!bss_read(bss, &v) && v.trace_lost > lost_seen) {
			report_lost(c, v.trace_lost - lost_seen, v.trace_lost - lost0);
			lost_seen = v.trace_lost;
		}
		if (!still_attached(c->a)) {
			rc = 1;
			break;
		}
	}
	if (c->output_failed) {
		/* stdout closed (| head): not worth a message, but not success. */
		rc = c->count && c->seen >= c->count ? 0 : 1;
	}
	if (!bss_read(bss, &v) && v.trace_lost > lost_seen) {
		report_lost(c, v.trace_lost - lost_seen, v.trace_lost - lost0);
		lost_seen = v.trace_lost;
	}
	note("%s: %llu packets traced, %llu events lost", c->a->ifname,
	     (unsigned long long)c->seen, (unsigned long long)(lost_seen - lost0));
	return rc;
}

int cmd_trace(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "off", no_argument, NULL, 'O' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct trace_ctx c = { 0 };
	struct bss_access bss = { .fd = -1 };
	struct readers rd = { .fd = -1 };
	struct ring_buffer *rb = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	struct attachment a;
	struct link_info li;
	bool off = false, locked = false;
	const char *ifname;
	int opt, ret, rc = 1;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:jvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (parse_u64(optarg, 1, ~0ULL, &c.count)) {
				err("invalid --count '%s' (expected a positive number)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			c.json = true;
			break;
		case 'O':
			off = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			trace_usage(stdout);
			return 0;
		case ':':
			err("option '%s' needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			err("unknown option '%s' (see 'xdpong trace --help')", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		err("missing interface (usage: xdpong trace IFACE [--count N] [--json])");
		return EXIT_USAGE;
	}
	ifname = argv[optind++];
	if (optind < argc) {
		err("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (off && (c.count || c.json)) {
		err("--off takes no --count or --json");
		return EXIT_USAGE;
	}
	if (attachment_open(ifname, &li, &a))
		return 1;
	c.a = &a;
	ret = bss_open(&bss, a.map_fd[MAP_BSS]);
	if (ret) {
		err("cannot use the .bss map of xdpong on %s: %s%s", li.name, strerror(-ret),
		    ret == -EPROTO ? " (attached by another xdpong version: reattach with this one)" : "");
		goto out;
	}
	ret = readers_enter(&rd, a.prog_id);
	if (ret)
		note("%s: cannot lock %s (%s): a concurrent trace of %s would be switched off when this one ends",
		     li.name, TRACE_LOCK_DIR, strerror(-ret), li.name);
	locked = !ret;
	if (off) {
		rc = trace_off(&a, &bss, &rd, locked);
		goto out;
	}

	if (locked && others_reading(rd.fd))
		note("%s: another trace is running: the two share one ring buffer, so each shows only part of the packets",
		     li.name);
	/* Signals first: between here and the flag going off, nothing may kill us. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	c.start_ns = ts_ns(CLOCK_MONOTONIC);
	c.mono_to_wall_ns = (long long)(ts_ns(CLOCK_REALTIME) - c.start_ns);
	rb = ring_buffer__new(a.map_fd[MAP_TRACE], on_event, &c, NULL);
	if (!rb) {
		ret = -errno;
		err("cannot open the trace ring buffer of %s: %s (run as root; 'xdpong -vv trace %s' shows libbpf's reason)",
		    li.name, strerror(-ret), li.name);
		goto out_unlock;
	}
	ret = bss_set_trace(&bss, 1);
	if (ret) {
		err("cannot switch tracing on for %s: %s", li.name, strerror(-ret));
		goto out_unlock;
	}
	if (locked)
		ofd_lock(rd.fd, F_RDLCK, 1, true);
	readers_leave(&rd);
	note("tracing %s (xdpong program id %u, %s mode); Ctrl-C stops", li.name,
	     a.prog_id, a.mode);

	rc = trace_loop(&c, &bss, rb);

	/* Off unless another trace still reads: under the mutex, so none starts now. */
	if (locked) {
		ofd_lock(rd.fd, F_WRLCK, 0, true);
		ofd_lock(rd.fd, F_UNLCK, 1, false);
	}
	if (!locked || !others_reading(rd.fd)) {
		ret = bss_set_trace(&bss, 0);
		if (ret) {
			err("cannot switch tracing off on %s: %s (run 'xdpong trace %s --off')",
			    li.name, strerror(-ret), li.name);
			rc = 1;
		}
		if (locked)
			unlink(rd.path);
	}
out_unlock:
	if (locked)
		readers_leave(&rd);
out:
	ring_buffer__free(rb);
	if (rd.fd >= 0)
		close(rd.fd);
	bss_close(&bss);
	attachment_close(&a);
	return rc;
}
