// SPDX-License-Identifier: GPL-2.0
/*
 * Probing as a service (service.h): run's [probe NAME] sections, each a
 * prober (core's prober.c) polled from run's loop beside the responder,
 * never blocking on the network; their histogram and counters go out on
 * /metrics with the responder's. A reload keeps what stays: a section's
 * sockets where its settings are the same, and every target's counts.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include "service.h"

#define NS 1000000000ULL

/* A section's next prober, before it replaces the running one. */
struct plan {
	struct prober *np;      /* a new prober, or NULL: the old one kept */
	struct probe_target *t; /* its targets, resolved */
	int n;
	int from[PROBES_TARGETS_MAX]; /* each target's place in the old prober, or -1 */
	int old;                      /* the old section's index, or -1 */
};

static void cfg_of(const struct config_probe *cp, struct probe_cfg *c)
{
	*c = (struct probe_cfg){
		.label = cp->name,
		.icmp = cp->icmp,
		.port = cp->port,
		.size = cp->sized ? cp->size :
			cp->icmp  ? 56 :
				    PROBE_STAMP_BASE,
		.ttl = -1,
		.tos = -1,
		.interval = cp->interval,
		.timeout = cp->timeout,
		.read_on_tick = true,
	};
}

/* The same sockets and rings serve both. */
static bool same_probing(const struct config_probe *a, const struct config_probe *b)
{
	return a->icmp == b->icmp && a->port == b->port && a->sized == b->sized &&
	       a->size == b->size && a->interval == b->interval && a->timeout == b->timeout;
}

/* Every address of every target word of cp; a word that does not resolve
 * is said (unless quiet) and left out until the next try. */
static int resolve(const struct config_probe *cp, struct plan *pl, bool quiet)
{
	char *words = strdup(cp->targets), *save = NULL, err[256];

	if (!words)
		return -ENOMEM;
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (probe_resolve(w, AF_UNSPEC, &pl->t, &pl->n, err, sizeof(err)) && !quiet)
			log_note("probe %s: %s; tried again every %d s", cp->name, err,
				 PROBES_RESOLVE_S);
		if (pl->n > PROBES_TARGETS_MAX) {
			for (int i = PROBES_TARGETS_MAX; i < pl->n; i++)
				probe_target_free(&pl->t[i]);
			pl->n = PROBES_TARGETS_MAX;
			if (!quiet)
				log_note("probe %s: more than %d addresses: the first %d are "
					 "probed",
					 cp->name, PROBES_TARGETS_MAX, PROBES_TARGETS_MAX);
			break;
		}
	}
	free(words);
	return 0;
}

/* Where each of pl's targets is in the old prober op (same address), or -1. */
static void match(struct plan *pl, const struct prober *op)
{
	for (int i = 0; i < pl->n; i++) {
		pl->from[i] = -1;
		for (int j = 0; op && j < op->n && pl->from[i] < 0; j++)
			if (!strcmp(pl->t[i].addr, op->t[j].addr))
				pl->from[i] = j;
	}
}

static void plan_free(struct plan *pl)
{
	for (int i = 0; i < pl->n; i++)
		probe_target_free(&pl->t[i]);
	free(pl->t);
	if (pl->np) {
		prober_close(pl->np);
		free(pl->np);
	}
	memset(pl, 0, sizeof(*pl));
}

/* Section cp's next prober: resolved, matched, and where it is new, its
 * sockets open. 0, or -1 (said). */
static int plan_make(const struct probes *ps, const struct config_probe *cp, struct plan *pl,
		     bool quiet)
{
	const struct prober *op = NULL;
	char err[512];

	pl->old = -1;
	for (int j = 0; j < ps->n; j++)
		if (!strcmp(ps->cfg[j].name, cp->name))
			pl->old = j;
	if (pl->old >= 0)
		op = ps->p[pl->old];
	if (resolve(cp, pl, quiet))
		return log_error("out of memory");
	match(pl, op);
	if (op && same_probing(&ps->cfg[pl->old], cp)) {
		for (int i = 0; i < pl->n; i++)
			if (pl->from[i] < 0 && probe_target_ready(&pl->t[i], &op->cfg))
				return log_error("out of memory");
		return 0;
	}
	pl->np = calloc(1, sizeof(*pl->np));
	if (!pl->np)
		return log_error("out of memory");
	cfg_of(cp, &pl->np->cfg);
	pl->np->fd[0] = pl->np->fd[1] = -1;
	pl->np->t = pl->t;
	pl->np->n = pl->n;
	if (prober_open(pl->np, probe_now_ns(), err, sizeof(err))) {
		pl->np->t = NULL; /* plan_free frees them */
		pl->np->n = 0;
		return log_error("[probe %s]: %s", cp->name, err);
	}
	return 0;
}

/* A plan in place of the old section: cannot fail. */
static struct prober *plan_commit(struct probes *ps, const struct config_probe *cp, struct plan *pl)
{
	struct prober *op = pl->old >= 0 ? ps->p[pl->old] : NULL, *np = pl->np;

	if (!np) {
		prober_retarget(op, pl->t, pl->n, pl->from, probe_now_ns());
		ps->p[pl->old] = NULL;
		return op;
	}
	if (op) {
		prober_stop(op); /* what it waited for counts lost, as at an exit */
		for (int i = 0; i < pl->n && op->cfg.icmp == cp->icmp; i++)
			if (pl->from[i] >= 0)
				probe_target_carry(&np->t[i], &op->t[pl->from[i]]);
	}
	pl->np = NULL;
	return np;
}

static void prober_free(struct prober *p)
{
	if (!p)
		return;
	prober_close(p);
	for (int i = 0; i < p->n; i++)
		probe_target_free(&p->t[i]);
	free(p->t);
	free(p);
}

/* probes_apply, quiet about names that do not resolve (a periodic try). */
static int apply(struct probes *ps, const struct config_probe *v, int n, bool quiet)
{
	struct plan *pl = calloc(n ? n : 1, sizeof(*pl));
	struct probes next = { .n = n };
	int i, ret = -1;

	if (!pl)
		return log_error("out of memory");
	for (i = 0; i < n; i++) {
		next.cfg[i] = v[i];
		next.cfg[i].targets = strdup(v[i].targets);
		if (!next.cfg[i].targets || plan_make(ps, &v[i], &pl[i], quiet))
			goto out;
	}
	for (i = 0; i < n; i++)
		next.p[i] = plan_commit(ps, &next.cfg[i], &pl[i]);
	next.resolve_ns = probe_now_ns() + PROBES_RESOLVE_S * NS;
	probes_free(ps); /* the sections that went, and the old copies */
	*ps = next;
	memset(&next, 0, sizeof(next));
	for (i = 0; i < n; i++)
		ps->p[i]->cfg.label = ps->cfg[i].name; /* the metrics' probe label */
	ret = 0;
out:
	for (i = 0; i < n; i++)
		if (pl[i].np || ret)
			plan_free(&pl[i]);
	free(pl);
	probes_free(&next);
	return ret;
}

int probes_apply(struct probes *ps, const struct config_probe *v, int n)
{
	return apply(ps, v, n, false);
}

void probes_free(struct probes *ps)
{
	for (int i = 0; i < ps->n; i++) {
		prober_free(ps->p[i]);
		ps->p[i] = NULL;
		free(ps->cfg[i].targets);
		ps->cfg[i].targets = NULL;
	}
	ps->n = 0;
}

int probes_pollfds(const struct probes *ps, struct pollfd *pfd)
{
	int n = 0;

	for (int i = 0; i < ps->n; i++)
		for (int k = 0; k < 2; k++)
			pfd[n++] = (struct pollfd){ .fd = prober_pollfd(ps->p[i], k),
						    .events = POLLIN };
	return n;
}

void probes_run(struct probes *ps, const struct pollfd *pfd, int n)
{
	unsigned long long now;

	for (int i = 0; i < ps->n && 2 * i + 1 < n; i++)
		for (int k = 0; k < 2; k++)
			if (pfd[2 * i + k].revents & (POLLIN | POLLERR))
				prober_read(ps->p[i], k);
	now = probe_now_ns();
	for (int i = 0; i < ps->n; i++)
		prober_tick(ps->p[i], now);
	if (ps->n && now >= ps->resolve_ns) {
		struct config_probe v[CONFIG_MAX_PROBES];

		/* The same sections, their names resolved again: apply copies
		 * them before it frees ps's. */
		memcpy(v, ps->cfg, ps->n * sizeof(v[0]));
		if (apply(ps, v, ps->n, true))
			ps->resolve_ns = now + PROBES_RESOLVE_S * NS;
	}
}

int probes_timeout_ms(const struct probes *ps)
{
	unsigned long long now = probe_now_ns(), next = ps->n ? ps->resolve_ns : 0;

	for (int i = 0; i < ps->n; i++) {
		unsigned long long at = prober_next_ns(ps->p[i]);

		if (at && at < next)
			next = at;
	}
	if (!next)
		return -1;
	return next > now ? (int)((next - now + 999999) / 1000000) : 0;
}

void probes_prom(const struct probes *ps, FILE *f)
{
	if (ps->n)
		probe_prom_print(f, (const struct prober *const *)ps->p, ps->n);
}
