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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cmd.h"
#include "xdpong.skel.h"
#include <json-c/json.h>

#define TRACE_CHECK_MS 1000 /* how often lost events and the link are checked */

/* ---- decoding an event ---- */

struct decoded {
	int family; /* 4, 6, or 0: not IP / too short to tell */
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int proto;                /* IP protocol / IPv6 next header, -1 unknown */
	int icmp_type, icmp_code; /* -1 unknown */
	int id, seq;              /* echo only, -1 otherwise */
	int ip_len;               /* from the IP header, -1 unknown */
	int sport, dport;         /* UDP only, -1 otherwise */
	long long stamp_seq;      /* a STAMP packet's Sequence Number, -1 unknown */
};

static __u16 get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* The UDP ports at udp, as the request had them; and for a STAMP reason,
 * the Sequence Number (RFC 8762 4.2.1, the same in the reply). */
static void decode_udp(const struct xdpong_trace_event *ev, const __u8 *udp, unsigned int left,
		       bool replied, struct decoded *d)
{
	if (left < 8)
		return;
	d->sport = get16(udp + (replied ? 2 : 0));
	d->dport = get16(udp + (replied ? 0 : 2));
	if (left >= 12 &&
	    (ev->reason == XDPONG_R_reply_stamp4 || ev->reason == XDPONG_R_reply_stamp6 ||
	     ev->reason == XDPONG_R_pass_udp_csum))
		d->stamp_seq = (long long)get16(udp + 8) << 16 | get16(udp + 10);
}

static void decode(const struct xdpong_trace_event *ev, struct decoded *d)
{
	unsigned int snap = ev->snap_len < XDPONG_TRACE_SNAP ? ev->snap_len : XDPONG_TRACE_SNAP;
	bool replied = ev->reason < XDPONG_R_MAX && reason_outcomes[ev->reason] == XDPONG_REPLIED;
	const __u8 *p = ev->snap, *src, *dst, *icmp = NULL;
	unsigned int l3 = 0;

	memset(d, 0, sizeof(*d));
	d->proto = d->icmp_type = d->icmp_code = d->id = d->seq = d->ip_len = -1;
	d->sport = d->dport = -1;
	d->stamp_seq = -1;
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
	if (d->proto == 17 && l3 >= 20 && snap > l3)
		decode_udp(ev, p + l3, snap - l3, replied, d);
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
	__u64 start_ns;            /* events before this are a killed trace's */
	long long mono_to_wall_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	bool output_failed;
};

static __u64 ts_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void print_time(FILE *f, __u64 wall_ns)
{
	time_t sec = wall_ns / 1000000000ULL;
	unsigned long usec = wall_ns % 1000000000ULL / 1000;
	char buf[16];
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fprintf(f, "%s.%06lu", buf, usec);
}

static const char *verdict_of(__u16 reason)
{
	return reason < XDPONG_R_MAX ? outcome_names[reason_outcomes[reason]] : "unknown";
}

/* "1700000000.123456": seconds, as the text shows them. */
static struct json_object *json_time(__u64 wall_ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu.%06llu", (unsigned long long)(wall_ns / 1000000000ULL),
		 (unsigned long long)(wall_ns % 1000000000ULL / 1000));
	return json_object_new_double_s(wall_ns / 1e9, buf);
}

static void print_json(const struct trace_ctx *c, const struct xdpong_trace_event *ev,
		       const struct decoded *d)
{
	struct json_object *o = json_object_new_object();
	char reason[32];

#define ADD(key, val) json_object_object_add(o, key, val)
	ADD("time", json_time(ev->ts_ns + c->mono_to_wall_ns));
	ADD("ts_ns", json_object_new_uint64(ev->ts_ns));
	ADD("iface", json_object_new_string(c->a->li.name));
	ADD("ifindex", json_object_new_uint64(ev->ifindex));
	ADD("frame_len", json_object_new_uint64(ev->frame_len));
	if (d->family) {
		ADD("family", json_object_new_int(d->family));
		ADD("src", json_object_new_string(d->src));
		ADD("dst", json_object_new_string(d->dst));
		ADD("ip_len", json_object_new_int(d->ip_len));
		ADD("proto", json_object_new_int(d->proto));
		if (d->icmp_type >= 0) {
			ADD("icmp_type", json_object_new_int(d->icmp_type));
			ADD("icmp_code", json_object_new_int(d->icmp_code));
		}
		if (d->id >= 0) {
			ADD("id", json_object_new_int(d->id));
			ADD("seq", json_object_new_int(d->seq));
		}
		if (d->sport >= 0) {
			ADD("sport", json_object_new_int(d->sport));
			ADD("dport", json_object_new_int(d->dport));
		}
		if (d->stamp_seq >= 0)
			ADD("seq", json_object_new_int64(d->stamp_seq));
	}
	ADD("verdict", json_object_new_string(verdict_of(ev->reason)));
	if (ev->reason < XDPONG_R_MAX)
		snprintf(reason, sizeof(reason), "%s", reason_names[ev->reason]);
	else
		snprintf(reason, sizeof(reason), "unknown_%u", ev->reason);
	ADD("reason", json_object_new_string(reason));
	ADD("service_ns", ev->service_ns ? json_object_new_uint64(ev->service_ns) : NULL);
#undef ADD
	/* Unflushed: the loop writes each batch at once (json_print flushes). */
	fprintf(stdout, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void print_text(const struct trace_ctx *c, const struct xdpong_trace_event *ev,
		       const struct decoded *d)
{
	print_time(stdout, ev->ts_ns + c->mono_to_wall_ns);
	if (!d->family)
		printf(" %s", ev->reason == XDPONG_R_pass_not_ip ? "(not IP)" : "(no IP header)");
	else
		printf(" %s -> %s", d->src, d->dst);
	if (d->id >= 0)
		printf(" %s id %d seq %d", d->family == 4 ? "ICMP echo" : "ICMPv6 echo", d->id,
		       d->seq);
	else if (d->icmp_type >= 0)
		printf(" %s type %d code %d", d->family == 4 ? "ICMP" : "ICMPv6", d->icmp_type,
		       d->icmp_code);
	else if (d->sport >= 0)
		printf(" UDP %d -> %d", d->sport, d->dport);
	else if (d->proto >= 0)
		printf(" %s %d", d->family == 4 ? "proto" : "next-header", d->proto);
	if (d->stamp_seq >= 0)
		printf(" STAMP seq %lld", d->stamp_seq);
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
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "time", json_time(ts_ns(CLOCK_REALTIME)));
		json_object_object_add(o, "iface", json_object_new_string(c->a->li.name));
		json_object_object_add(o, "lost", json_object_new_uint64(lost));
		json_object_object_add(o, "lost_total", json_object_new_uint64(total));
		json_print(stdout, o);
	}
	log_note("%s: %llu events lost: the ring buffer was full (reader too slow); %llu lost "
		 "since this trace started",
		 c->a->li.name, (unsigned long long)lost, (unsigned long long)total);
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
	int ret = link_get(NULL, a->li.ifindex, &li);

	if (ret == -ENODEV) {
		log_error("%s was deleted; the trace ends", a->li.name);
		return false;
	}
	if (ret)
		return true; /* cannot tell: keep going */
	if (!a->dispatcher && li.xdp_prog_id != a->prog_id) {
		log_error("xdpong (program id %u) is no longer attached to %s; the trace ends "
			  "(start it again after 'xdpong attach %s')",
			  a->prog_id, a->li.name, a->li.name);
		return false;
	}
	return true;
}

static int trace_off(const struct attachment *a, const struct bss_access *bss, struct readers *rd,
		     bool have_lock)
{
	int ret;

	if (have_lock && readers_others(rd->fd)) {
		log_error("another 'xdpong trace %s' is running; tracing stays on until it ends",
			  a->li.name);
		return 1;
	}
	ret = bss_set(bss, BSS_trace_enabled, 0);
	if (ret) {
		log_error("cannot switch tracing off on %s: %s", a->li.name, strerror(-ret));
		return 1;
	}
	if (have_lock)
		unlink(rd->path);
	printf("xdpong: tracing is off on %s\n", a->li.name);
	return 0;
}

static int trace_loop(struct trace_ctx *c, const struct bss_access *bss, struct ring_buffer *rb)
{
	__u64 lost = 0;
	__u64 lost0, lost_seen, next_check;
	int ret = 0, rc = 0;

	if (bss_get(bss, BSS_trace_lost, &lost))
		lost = 0;
	lost0 = lost_seen = lost;
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
			log_error("%s: cannot read the trace ring buffer: %s", c->a->li.name,
				  strerror(-ret));
			rc = 1;
			break;
		}
		now = ts_ns(CLOCK_MONOTONIC);
		if (now < next_check)
			continue;
		next_check = now + TRACE_CHECK_MS * 1000000ULL;
		if (!bss_get(bss, BSS_trace_lost, &lost) && lost > lost_seen) {
			report_lost(c, lost - lost_seen, lost - lost0);
			lost_seen = lost;
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
	if (!bss_get(bss, BSS_trace_lost, &lost) && lost > lost_seen) {
		report_lost(c, lost - lost_seen, lost - lost0);
		lost_seen = lost;
	}
	log_note("%s: %llu packets traced, %llu events lost", c->a->li.name,
		 (unsigned long long)c->seen, (unsigned long long)(lost_seen - lost0));
	return rc;
}

/*
 * The events off unless another trace still reads: under the mutex, so
 * none starts now. 0, or -1 when they could not be switched off (said).
 */
static int trace_finish(const struct attachment *a, struct bss_access *bss, struct readers *rd,
			bool locked)
{
	int ret;

	if (locked) {
		readers_lock(rd->fd, F_WRLCK, 0, true);
		readers_lock(rd->fd, F_UNLCK, 1, false);
	}
	if (locked && readers_others(rd->fd))
		return 0;
	ret = bss_set(bss, BSS_trace_enabled, 0);
	if (locked)
		unlink(rd->path);
	if (ret)
		return log_error("cannot switch tracing off on %s: %s (run 'xdpong trace %s "
				 "--off')",
				 a->li.name, strerror(-ret), a->li.name);
	return 0;
}

static int trace_main(const struct opts *o)
{
	struct trace_ctx c = { .json = o->json, .count = o->count };
	struct bss_access bss = { .fd = -1 };
	struct readers rd = { .fd = -1 };
	struct ring_buffer *rb = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	struct attachment a;
	bool off = o->off, locked = false;
	int ret, rc = 1;

	if (off && (c.count || c.json)) {
		log_error("--off takes no --count or --json");
		return EXIT_USAGE;
	}
	if (attachment_open(o->args[0], &a))
		return 1;
	c.a = &a;
	ret = bss_open(&bss, a.map_fd[MAP_BSS]);
	if (ret) {
		log_error("cannot use the .bss map of xdpong on %s: %s%s", a.li.name,
			  strerror(-ret),
			  ret == -EPROTO ? " (attached by another xdpong version: reattach with "
					   "this one)" :
					   "");
		goto out;
	}
	ret = readers_enter(&rd, a.prog_id);
	if (ret)
		log_note("%s: cannot lock %s (%s): a concurrent trace of %s would be switched off "
			 "when this one ends",
			 a.li.name, TRACE_LOCK_DIR, strerror(-ret), a.li.name);
	locked = !ret;
	if (off) {
		rc = trace_off(&a, &bss, &rd, locked);
		goto out;
	}

	if (locked && readers_others(rd.fd))
		log_note("%s: another trace is running: the two share one ring buffer, so each "
			 "shows only part of the packets",
			 a.li.name);
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
		log_error("cannot open the trace ring buffer of %s: %s (run as root; 'xdpong -vv "
			  "trace %s' shows libbpf's reason)",
			  a.li.name, strerror(-ret), a.li.name);
		goto out_unlock;
	}
	ret = bss_set(&bss, BSS_trace_enabled, 1);
	if (ret) {
		log_error("cannot switch tracing on for %s: %s", a.li.name, strerror(-ret));
		goto out_unlock;
	}
	if (locked)
		readers_lock(rd.fd, F_RDLCK, 1, true);
	readers_leave(&rd);
	log_note("tracing %s (xdpong program id %u, %s mode); Ctrl-C stops", a.li.name, a.prog_id,
		 a.mode);

	rc = trace_loop(&c, &bss, rb);
	if (trace_finish(&a, &bss, &rd, locked))
		rc = 1;
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

const struct cmd_def cmd_trace = {
	.id = CMD_TRACE,
	.name = "trace",
	.synopsis = "IFACE [--count N] [--json] | IFACE --off",
	.min_args = 1,
	.max_args = 1,
	.iface_arg = true,
	.summary = "one line per packet: addresses, echo id/seq, verdict, reason, time",
	.description = "Print one line per packet xdpong sees on IFACE, as it decides: time,\n"
		       "source -> destination, ICMP echo id and seq, IP and frame length,\n"
		       "verdict (replied, passed, dropped), reason and the program's service\n"
		       "time (for timed replies). Replies are shown as the request that came\n"
		       "in. Events the ring buffer had no room for are counted and reported\n"
		       "every second and at the end. Tracing costs the fast path a ring buffer\n"
		       "write per packet only while a trace runs.",
	.examples = "  xdpong trace eth0\n"
		    "  xdpong trace eth0 --count 10\n"
		    "  xdpong trace eth0 --json | jq 'select(.verdict == \"dropped\")'\n",
	.run = trace_main,
};
