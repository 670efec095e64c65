// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong probe TARGET...: measure what reflects STAMP (RFC 8762) or
 * answers ping, as ping and fping do, with the kernel's timestamps: a
 * line per reply, then a summary per target, its JSON or its Prometheus
 * text. The prober itself is core's (prober.c), which run shares.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/signalfd.h>
#include <json-c/json.h>
#include "cmd.h"

#define BAR 40 /* the text histogram's widest bar */

struct probe_run {
	struct prober p;
	bool quiet;
};

static void print_reply(const struct probe_reply *r, void *arg)
{
	const struct probe_run *pr = arg;
	const struct probe_target *t = r->t;
	bool icmp = pr->p.cfg.icmp;

	if (pr->quiet)
		return;
	printf("%u bytes from %s: %s=%u", r->bytes, t->addr, icmp ? "icmp_seq" : "seq", r->seq);
	if (r->ttl >= 0)
		printf(" ttl=%d", r->ttl);
	printf(" rtt=%.3f ms", r->rtt_ns / 1e6);
	if (!icmp)
		printf(" reflector=%.3f ms", r->refl_ns / 1e6);
	if (r->synced)
		printf(" forward=%.3f ms backward=%.3f ms", r->fwd_ns / 1e6, r->bwd_ns / 1e6);
	printf("%s%s%s\n", r->dup ? " (DUP!)" : "", r->reordered ? " (reordered)" : "",
	       r->late ? " (late: counted lost)" : "");
	fflush(stdout);
}

static void print_dist(const char *what, const struct probe_samples *s)
{
	struct probe_dist d;

	if (!s->seen)
		return;
	probe_dist_of(s, &d);
	printf("%s min/avg/p50/p90/p99/max/mdev = %.3f/%.3f/%.3f/%.3f/%.3f/%.3f/%.3f ms\n", what,
	       d.min / 1e6, d.mean / 1e6, d.p50 / 1e6, d.p90 / 1e6, d.p99 / 1e6, d.max / 1e6,
	       d.mdev / 1e6);
}

/* The RTT histogram's buckets from the first to the last one used. */
static void print_histogram(const struct probe_target *t)
{
	int first = -1, last = -1;
	unsigned long long most = 0;

	for (int i = 0; i < PROBE_BUCKETS; i++) {
		if (!t->bucket[i])
			continue;
		first = first < 0 ? i : first;
		last = i;
		most = t->bucket[i] > most ? t->bucket[i] : most;
	}
	for (int i = first; i >= 0 && i <= last; i++) {
		char le[32];
		int w = (int)((t->bucket[i] * BAR + most - 1) / most);

		if (i < PROBE_BUCKETS - 1)
			snprintf(le, sizeof(le), "<= %gms", probe_bucket_le[i] * 1e3);
		else
			snprintf(le, sizeof(le), "> %gms", probe_bucket_le[i - 1] * 1e3);
		printf("  %-12s %-*.*s %llu\n", le, BAR, w,
		       "########################################", t->bucket[i]);
	}
}

static void print_summary(const struct prober *p, const struct probe_target *t)
{
	printf("\n--- %s%s%s%s %s statistics ---\n", t->name, strcmp(t->name, t->addr) ? " (" : "",
	       strcmp(t->name, t->addr) ? t->addr : "", strcmp(t->name, t->addr) ? ")" : "",
	       probe_protocol(&p->cfg));
	printf("%llu sent, %llu received, %g%% loss, %llu duplicates, %llu reordered\n", t->sent,
	       t->received, t->sent ? 100.0 * t->lost / t->sent : 0, t->dups, t->reordered);
	print_dist("rtt", &t->rtt);
	print_dist("reflector", &t->refl);
	print_dist("forward", &t->fwd);
	print_dist("backward", &t->bwd);
	print_histogram(t);
}

static struct json_object *json_dist(const struct probe_samples *s)
{
	struct json_object *o = json_object_new_object();
	struct probe_dist d;

	probe_dist_of(s, &d);
	json_object_object_add(o, "min", json_object_new_int64((long long)d.min));
	json_object_object_add(o, "mean", json_object_new_int64((long long)d.mean));
	json_object_object_add(o, "p50", json_object_new_int64((long long)d.p50));
	json_object_object_add(o, "p90", json_object_new_int64((long long)d.p90));
	json_object_object_add(o, "p99", json_object_new_int64((long long)d.p99));
	json_object_object_add(o, "max", json_object_new_int64((long long)d.max));
	json_object_object_add(o, "mdev", json_object_new_int64((long long)d.mdev));
	return o;
}

static struct json_object *json_target(const struct prober *p, const struct probe_target *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "target", json_object_new_string(t->addr));
	json_object_object_add(o, "name", json_object_new_string(t->name));
	json_object_object_add(o, "protocol", json_object_new_string(probe_protocol(&p->cfg)));
	json_object_object_add(o, "sent", json_object_new_int64(t->sent));
	json_object_object_add(o, "received", json_object_new_int64(t->received));
	json_object_object_add(o, "lost", json_object_new_int64(t->lost));
	json_object_object_add(o, "duplicates", json_object_new_int64(t->dups));
	json_object_object_add(o, "reordered", json_object_new_int64(t->reordered));
	json_object_object_add(o, "rtt_ns", t->rtt.seen ? json_dist(&t->rtt) : NULL);
	if (!p->cfg.icmp)
		json_object_object_add(o, "reflector_ns",
				       t->refl.seen ? json_dist(&t->refl) : NULL);
	if (t->fwd.seen) {
		json_object_object_add(o, "forward_ns", json_dist(&t->fwd));
		json_object_object_add(o, "backward_ns", json_dist(&t->bwd));
	}
	return o;
}

/* What the run ends with: JSON, Prometheus text, or a summary per target. */
static int report(const struct prober *p, const struct opts *o)
{
	struct json_object *all, *v;

	if (o->prometheus) {
		probe_prom_print(stdout, &p, 1);
		return fflush(stdout) ? -1 : 0;
	}
	if (!o->json) {
		for (int i = 0; i < p->n; i++)
			print_summary(p, &p->t[i]);
		if (verbose)
			printf("\ntimestamps: T1 from the kernel %llu, from user space %llu; T4 "
			       "from "
			       "the kernel %llu, from user space %llu\n",
			       p->tx_kernel, p->tx_user, p->rx_kernel, p->rx_user);
		return fflush(stdout) ? -1 : 0;
	}
	all = json_object_new_object();
	v = json_object_new_array();
	for (int i = 0; i < p->n; i++)
		json_object_array_add(v, json_target(p, &p->t[i]));
	json_object_object_add(all, "targets", v);
	return json_print(stdout, all);
}

/* Options that cannot go together, or a value the protocol refuses:
 * said, EXIT_USAGE; 0 if none. */
static int probe_usage(const struct opts *o, int *family)
{
	unsigned char a[16];

	*family = o->ipv4 ? AF_INET : o->ipv6 ? AF_INET6 : AF_UNSPEC;
	if (o->ipv4 && o->ipv6)
		return log_error("-4 and -6 contradict each other: give neither for both"),
		       EXIT_USAGE;
	if (o->json && o->prometheus)
		return log_error("--json and --prometheus: one output at a time"), EXIT_USAGE;
	if (o->icmp && opts_seen(o, "port"))
		return log_error("--port is STAMP's: ICMP has none"), EXIT_USAGE;
	if (!o->icmp && opts_seen(o, "size") && o->size < PROBE_STAMP_BASE)
		return log_error("invalid --size '%llu': a STAMP test packet is %d bytes or more "
				 "(RFC 8762 4.2.1)",
				 o->size, PROBE_STAMP_BASE),
		       EXIT_USAGE;
	if (o->source && strchr(o->source, ':') && inet_pton(AF_INET6, o->source, a) == 1) {
		if (o->ipv4)
			return log_error("-4 with the IPv6 --source %s", o->source), EXIT_USAGE;
		*family = AF_INET6;
	} else if (o->source && inet_pton(AF_INET, o->source, a) == 1) {
		if (o->ipv6)
			return log_error("-6 with the IPv4 --source %s", o->source), EXIT_USAGE;
		*family = AF_INET;
	}
	return 0;
}

static void cfg_of(const struct opts *o, struct probe_cfg *c)
{
	*c = (struct probe_cfg){
		.label = "cli",
		.icmp = o->icmp,
		.port = o->port ? (unsigned int)o->port : XDPONG_STAMP_PORT,
		.size = opts_seen(o, "size") ? (unsigned int)o->size :
			o->icmp              ? 56 :
					       PROBE_STAMP_BASE,
		.ttl = o->ttl ? (int)o->ttl : -1,
		.tos = opts_seen(o, "tos") ? (int)o->tos : -1,
		.interval = o->interval > 0 ? o->interval : 1,
		.timeout = o->timeout > 0 ? o->timeout : 1,
		.count = o->count,
		.source = o->source,
		.keep_samples = true,
		.on_reply = print_reply,
	};
}

static int signals_open(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC);
}

/* Every RESOLVE_S, the targets' names resolved again: an address that
 * is new is a target more (one that went stays, with its summary). */
#define RESOLVE_S 30
static void resolve_again(struct prober *p, const struct opts *o, int family)
{
	struct probe_target *v = NULL;
	int n = 0;
	char err[256];

	for (int i = 0; i < o->n_args; i++)
		probe_resolve(o->args[i], family, &v, &n, err, sizeof(err));
	if (prober_add(p, v, n, probe_now_ns(), err, sizeof(err)))
		log_note("%s", err);
	for (int i = 0; i < n; i++)
		probe_target_free(&v[i]);
	free(v);
}

/* Until -c COUNT is answered or lost, or a signal. */
static void probe_loop(struct prober *p, int sig, const struct opts *o, int family)
{
	unsigned long long again = probe_now_ns() + RESOLVE_S * 1000000000ULL;

	for (;;) {
		struct pollfd pfd[3] = { { .fd = p->fd[0], .events = POLLIN },
					 { .fd = p->fd[1], .events = POLLIN },
					 { .fd = sig, .events = POLLIN } };
		unsigned long long now = probe_now_ns(), next;
		int ms;

		if (now >= again) {
			resolve_again(p, o, family);
			again = now + RESOLVE_S * 1000000000ULL;
		}
		prober_tick(p, now);
		next = prober_next_ns(p);
		if (!next)
			return;
		if (!o->count && next > again)
			next = again;
		ms = next > now ? (int)((next - now + 999999) / 1000000) : 0;
		if (poll(pfd, 3, ms) < 0 && errno != EINTR)
			return;
		for (int i = 0; i < 2; i++)
			if (pfd[i].revents & (POLLIN | POLLERR))
				prober_read(p, i);
		if (pfd[2].revents & POLLIN)
			return;
	}
}

static int probe_main(const struct opts *o)
{
	struct probe_run pr = { .quiet = o->quiet || o->json || o->prometheus };
	struct prober *p = &pr.p;
	char err[512];
	int family, ret, sig;

	ret = probe_usage(o, &family);
	if (ret)
		return ret;
	cfg_of(o, &p->cfg);
	p->cfg.arg = &pr;
	p->fd[0] = p->fd[1] = -1;
	ret = 1;
	for (int i = 0; i < o->n_args; i++) {
		if (probe_resolve(o->args[i], family, &p->t, &p->n, err, sizeof(err))) {
			log_error("%s", err);
			goto out;
		}
	}
	sig = signals_open();
	if (sig < 0) {
		log_error("cannot listen for signals: %s", strerror(-sig));
		goto out;
	}
	if (prober_open(p, probe_now_ns(), err, sizeof(err))) {
		log_error("%s", err);
		close(sig);
		goto out;
	}
	if (!pr.quiet)
		for (int i = 0; i < p->n; i++)
			printf("PROBE %s (%s) %s %u bytes\n", p->t[i].name, p->t[i].addr,
			       probe_protocol(&p->cfg), p->cfg.size);
	probe_loop(p, sig, o, family);
	close(sig);
	prober_stop(p);
	ret = report(p, o) ? 1 : 0;
	for (int i = 0; i < p->n && !ret; i++)
		ret = !p->t[i].received;
out:
	prober_close(p);
	for (int i = 0; i < p->n; i++)
		probe_target_free(&p->t[i]);
	free(p->t);
	return ret;
}

const struct cmd_def cmd_probe = {
	.id = CMD_PROBE,
	.name = "probe",
	.synopsis = "[options] TARGET...",
	.min_args = 1,
	.max_args = 1 << 20,
	.summary = "measure the RTT and loss to STAMP reflectors or ping responders",
	.description = "Send STAMP test packets (RFC 8762, to UDP port 862) or, with --icmp, ICMP\n"
		       "echo requests to each TARGET, an address or a name (every address it\n"
		       "resolves to), and print a line per reply as ping does, then a summary per\n"
		       "target: loss, duplicates, reordering, the RTT's percentiles and "
		       "histogram.\n"
		       "T1 and T4 are the kernel's transmit and receive timestamps "
		       "(SO_TIMESTAMPING);\n"
		       "a STAMP RTT leaves out the reflector's residence, T3 - T2, and where both\n"
		       "clocks say they are synchronised the one-way delays are shown too. STAMP\n"
		       "needs no privilege; ICMP needs what ping needs. Exit status 0 when every\n"
		       "target answered, 1 when one did not, 2 for bad usage.",
	.examples = "  xdpong probe 192.0.2.1\n"
		    "  xdpong probe -c 100 -i 0.01 -q 192.0.2.1 2001:db8::1\n"
		    "  xdpong probe --icmp -c 10 host.example.org\n"
		    "  xdpong probe -c 10 --json 192.0.2.1 | jq '.targets[0].rtt_ns.p99'\n",
	.run = probe_main,
};
