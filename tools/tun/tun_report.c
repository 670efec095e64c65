// SPDX-License-Identifier: GPL-2.0
/*
 * tun-helper's per-request log: records, the exit table, the JSON report.
 * See tun_report.h.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "packet.h"
#include "tun_report.h"

/* Beyond this many, requests and writes are counted but not listed. */
#define RECORDS_MAX 100000

/* One WRITE and the request it went to (or -1). */
struct write_rec {
	long request, next; /* next: the request's next write, -1 */
	struct timespec mono, real;
	size_t len;
	bool written, passed; /* reached the TUN; passed every check */
	char *answer;
};

/* One packet READ; pkt is kept for the newest TR_MATCH_WINDOW of them. */
struct request_rec {
	struct timespec mono, real;
	uint8_t *pkt; /* echo requests only */
	size_t len;
	bool answered;                /* a reply that passed every check was written */
	long first_write, last_write; /* its writes, chained through write_rec.next */
	long reply; /* the write that counts: the first that passed, else the first written */
	int family, proto; /* -1 if not IPv4 or IPv6 */
	uint8_t src[16], dst[16];
	int type, id, seq; /* -1 unless an ICMP/ICMPv6 message */
};

struct tun_report {
	struct request_rec *reqs;
	size_t n_reqs, cap_reqs;
	struct write_rec *writes;
	size_t n_writes, cap_writes;
	unsigned long long unlisted;
};

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

struct tun_report *tr_new(void)
{
	return calloc(1, sizeof(struct tun_report));
}

void tr_free(struct tun_report *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_reqs; i++)
		free(t->reqs[i].pkt);
	for (size_t k = 0; k < t->n_writes; k++)
		free(t->writes[k].answer);
	free(t->reqs);
	free(t->writes);
	free(t);
}

/* Grow *arr to hold one more; false (and counted) past RECORDS_MAX. */
static bool room_for_one(struct tun_report *t, void **arr, size_t n, size_t *cap, size_t size)
{
	size_t want = *cap ? *cap * 2 : 64;
	void *p;

	if (n < *cap)
		return true;
	if (n >= RECORDS_MAX || !(p = realloc(*arr, want * size))) {
		t->unlisted++;
		return false;
	}
	*arr = p;
	*cap = want;
	return true;
}

void tr_read(struct tun_report *t, const uint8_t *pkt, size_t len)
{
	struct request_rec *r;
	struct rc_echo e;

	if (!room_for_one(t, (void **)&t->reqs, t->n_reqs, &t->cap_reqs, sizeof(*r)))
		return;
	r = &t->reqs[t->n_reqs];
	memset(r, 0, sizeof(*r));
	clock_gettime(CLOCK_MONOTONIC, &r->mono);
	clock_gettime(CLOCK_REALTIME, &r->real);
	r->len = len;
	r->reply = r->first_write = r->last_write = -1;
	r->family = r->proto = r->type = r->id = r->seq = -1;
	if (len >= PKT_IP4_HLEN && pkt[0] >> 4 == 4) {
		r->family = 4;
		r->proto = pkt[9];
		memcpy(r->src, pkt + 12, 4);
		memcpy(r->dst, pkt + 16, 4);
	} else if (len >= PKT_IP6_HLEN && pkt[0] >> 4 == 6) {
		r->family = 6;
		r->proto = pkt[6];
		memcpy(r->src, pkt + 8, 16);
		memcpy(r->dst, pkt + 24, 16);
	}
	if (!rc_parse_echo(pkt, len, &e)) {
		r->type = e.type;
		r->id = e.id;
		r->seq = e.seq;
	}
	if (rc_is_echo_request(pkt, len)) {
		r->pkt = malloc(len);
		if (r->pkt)
			memcpy(r->pkt, pkt, len);
	}
	t->n_reqs++;
	/* Only the newest TR_MATCH_WINDOW keep their bytes: memory stays bounded. */
	if (t->n_reqs > TR_MATCH_WINDOW) {
		free(t->reqs[t->n_reqs - 1 - TR_MATCH_WINDOW].pkt);
		t->reqs[t->n_reqs - 1 - TR_MATCH_WINDOW].pkt = NULL;
	}
}

size_t tr_window(const struct tun_report *t, struct rc_request *out, size_t *idx)
{
	size_t first = t->n_reqs > TR_MATCH_WINDOW ? t->n_reqs - TR_MATCH_WINDOW : 0, n = 0;

	for (size_t i = first; i < t->n_reqs; i++) {
		if (!t->reqs[i].pkt)
			continue;
		idx[n] = i;
		out[n++] = (struct rc_request){ .pkt = t->reqs[i].pkt,
						.len = t->reqs[i].len,
						.answered = t->reqs[i].answered };
	}
	return n;
}

void tr_write(struct tun_report *t, long request, const struct rc_result *res, size_t len,
	      bool written, const char *answer)
{
	struct request_rec *req = request >= 0 ? &t->reqs[request] : NULL;
	struct write_rec *w;
	long k;

	if (req && written && !res->findings && res->exact)
		req->answered = true;
	if (!room_for_one(t, (void **)&t->writes, t->n_writes, &t->cap_writes, sizeof(*w)))
		return;
	k = (long)t->n_writes++;
	w = &t->writes[k];
	memset(w, 0, sizeof(*w));
	clock_gettime(CLOCK_MONOTONIC, &w->mono);
	clock_gettime(CLOCK_REALTIME, &w->real);
	w->request = request;
	w->next = -1;
	w->len = len;
	w->written = written;
	w->passed = written && !res->findings;
	w->answer = strdup(answer);
	if (!req)
		return;
	if (req->last_write >= 0)
		t->writes[req->last_write].next = k;
	else
		req->first_write = k;
	req->last_write = k;
	if (written && (req->reply < 0 || (w->passed && !t->writes[req->reply].passed)))
		req->reply = k;
}

static const char *clock_str(const struct timespec *ts, char *buf, size_t size)
{
	struct tm tm;

	localtime_r(&ts->tv_sec, &tm);
	snprintf(buf, size, "%02d:%02d:%02d.%03d", tm.tm_hour % 100, tm.tm_min % 100,
		 tm.tm_sec % 100, (int)(ts->tv_nsec / 1000000) % 1000);
	return buf;
}

/* "ICMP echo request 172.16.0.1 > 172.16.0.2 id 0c2b seq 1" */
static const char *request_str(const struct request_rec *r, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int af = r->family == 4 ? AF_INET : AF_INET6;
	const char *v6 = r->family == 6 ? "v6" : "";

	if (r->family < 0) {
		snprintf(buf, size, "%zu bytes, not IPv4 or IPv6", r->len);
		return buf;
	}
	inet_ntop(af, r->src, a, sizeof(a));
	inet_ntop(af, r->dst, b, sizeof(b));
	if (r->type < 0)
		snprintf(buf, size, "IPv%d protocol %d %s > %s", r->family, r->proto, a, b);
	else if (r->type == (r->family == 4 ? PKT_ICMP_ECHO : PKT_ICMPV6_ECHO_REQUEST))
		snprintf(buf, size, "ICMP%s echo request %s > %s id %04x seq %d", v6, a, b, r->id,
			 r->seq);
	else
		snprintf(buf, size, "ICMP%s type %d %s > %s", v6, r->type, a, b);
	return buf;
}

static const char *verdict_of(const struct tun_report *t, const struct request_rec *r)
{
	if (r->reply >= 0)
		return t->writes[r->reply].answer;
	if (r->first_write >= 0) /* refused or failed: the first */
		return t->writes[r->first_write].answer;
	return "no reply";
}

void tr_print(const struct tun_report *t, FILE *f, size_t max_rows)
{
	char what[160], t1[32], t2[32], turn[32];

	if (!t->n_reqs)
		return;
	fprintf(f, "%4s  %-56s %-12s  %-12s  %13s  %s\n", "#", "request", "read", "replied",
		"turnaround", "verdict");
	for (size_t i = 0; i < t->n_reqs; i++) {
		const struct request_rec *r = &t->reqs[i];
		const struct write_rec *w = r->reply >= 0 ? &t->writes[r->reply] : NULL;

		if (i == max_rows) {
			fprintf(f, "  ... %zu more (--report FILE lists them all)\n",
				t->n_reqs - i);
			break;
		}
		if (w)
			snprintf(turn, sizeof(turn), "%.3f ms", ms_between(&r->mono, &w->mono));
		fprintf(f, "%4zu  %-56s %-12s  %-12s  %13s  %s\n", i + 1,
			request_str(r, what, sizeof(what)), clock_str(&r->real, t1, sizeof(t1)),
			w ? clock_str(&w->real, t2, sizeof(t2)) : "-", w ? turn : "-",
			verdict_of(t, r));
	}
	if (t->unlisted)
		fprintf(f, "  (%llu requests or writes past %d not listed)\n", t->unlisted,
			RECORDS_MAX);
}

json_object *tr_json_time(const struct timespec *ts)
{
	char buf[64];
	struct tm tm;

	gmtime_r(&ts->tv_sec, &tm);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(ts->tv_nsec / 1000) % 1000000);
	return json_object_new_string(buf);
}

/* Milliseconds to the microsecond, as a JSON number. */
static json_object *json_ms(double ms)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.3f", ms);
	return json_object_new_double_s(ms, buf);
}

static json_object *json_write(const struct tun_report *t, const struct write_rec *w)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "at", tr_json_time(&w->real));
	if (w->request >= 0)
		json_object_object_add(o, "after_ms",
				       json_ms(ms_between(&t->reqs[w->request].mono, &w->mono)));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)w->len));
	json_object_object_add(o, "written", json_object_new_boolean(w->written));
	json_object_object_add(o, "answer", json_object_new_string(w->answer ? w->answer : ""));
	return o;
}

static json_object *json_request(const struct tun_report *t, size_t i)
{
	const struct request_rec *r = &t->reqs[i];
	const struct write_rec *w = r->reply >= 0 ? &t->writes[r->reply] : NULL;
	json_object *o = json_object_new_object(), *writes = json_object_new_array();
	char a[INET6_ADDRSTRLEN];

	json_object_object_add(o, "n", json_object_new_int64((int64_t)i + 1));
	json_object_object_add(o, "read_at", tr_json_time(&r->real));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)r->len));
	if (r->family > 0) {
		int af = r->family == 4 ? AF_INET : AF_INET6;

		json_object_object_add(o, "family", json_object_new_int(r->family));
		json_object_object_add(o, "src",
				       json_object_new_string(inet_ntop(af, r->src, a, sizeof(a))));
		json_object_object_add(o, "dst",
				       json_object_new_string(inet_ntop(af, r->dst, a, sizeof(a))));
		json_object_object_add(o, "protocol", json_object_new_int(r->proto));
	}
	if (r->type >= 0) {
		json_object_object_add(o, "icmp_type", json_object_new_int(r->type));
		json_object_object_add(o, "id", json_object_new_int(r->id));
		json_object_object_add(o, "seq", json_object_new_int(r->seq));
	}
	json_object_object_add(o, "replied_at", w ? tr_json_time(&w->real) : NULL);
	json_object_object_add(o, "turnaround_ms",
			       w ? json_ms(ms_between(&r->mono, &w->mono)) : NULL);
	json_object_object_add(o, "verdict", json_object_new_string(verdict_of(t, r)));
	for (long k = r->first_write; k >= 0; k = t->writes[k].next)
		json_object_array_add(writes, json_write(t, &t->writes[k]));
	json_object_object_add(o, "writes", writes);
	return o;
}

void tr_json(const struct tun_report *t, json_object *obj)
{
	json_object *reqs = json_object_new_array(), *other = json_object_new_array();

	for (size_t i = 0; i < t->n_reqs; i++)
		json_object_array_add(reqs, json_request(t, i));
	for (size_t k = 0; k < t->n_writes; k++)
		if (t->writes[k].request < 0)
			json_object_array_add(other, json_write(t, &t->writes[k]));
	json_object_object_add(obj, "requests", reqs);
	json_object_object_add(obj, "unmatched_writes", other);
	json_object_object_add(obj, "unlisted", json_object_new_uint64(t->unlisted));
}
