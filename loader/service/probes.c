// SPDX-License-Identifier: GPL-2.0
/*
 * Probing as a service (service.h): run's [probe NAME] sections, each a
 * prober (core's prober.c) polled from run's loop beside the responder,
 * never blocking on the network; their histogram and counters go out on
 * /metrics with the responder's. A reload keeps what stays: a section's
 * sockets where its settings are the same, and every target's counts.
 * Names are resolved off the loop (lookup.c): a section probes the
 * addresses its names had until their lookup comes back.
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
		.ttl = cp->ttl,
		.tos = cp->tos,
		.source = cp->source[0] ? cp->source : NULL,
		.interval = cp->interval,
		.timeout = cp->timeout,
		.read_on_tick = true,
	};
}

/* The same sockets and rings serve both. */
static bool same_probing(const struct config_probe *a, const struct config_probe *b)
{
	return a->icmp == b->icmp && a->port == b->port && a->sized == b->sized &&
	       a->size == b->size && a->interval == b->interval && a->timeout == b->timeout &&
	       a->ttl == b->ttl && a->tos == b->tos && a->family == b->family &&
	       !strcmp(a->source, b->source);
}

/* Copies of v's targets (n) of the family (0: any) and, unless NULL, of the
 * name, appended to pl's where their address is new. 0 or -ENOMEM. */
static int add_targets(struct plan *pl, const struct probe_target *v, int n, const char *name,
		       int family)
{
	for (int k = 0; k < n; k++) {
		struct probe_target *more;
		bool dup = false;

		if ((name && strcmp(v[k].name, name)) || (family && v[k].family != family))
			continue;
		for (int i = 0; i < pl->n && !dup; i++)
			dup = !strcmp(pl->t[i].addr, v[k].addr);
		if (dup)
			continue;
		more = realloc(pl->t, (pl->n + 1) * sizeof(*more));
		if (!more)
			return -ENOMEM;
		pl->t = more;
		more = &pl->t[pl->n++];
		memset(more, 0, sizeof(*more));
		memcpy(more->name, v[k].name, sizeof(more->name));
		memcpy(more->addr, v[k].addr, sizeof(more->addr));
		more->sa = v[k].sa;
		more->salen = v[k].salen;
		more->family = v[k].family;
	}
	return 0;
}

/* The addresses of target word w of cp: an address at once; a name as the
 * lookup lk just found it, else as the section's running prober op has it
 * (a name new to it waits for its lookup). 0, -ENOMEM, or -1 with why. */
static int resolve_word(const struct config_probe *cp, const char *w, struct plan *pl,
			const struct prober *op, const struct lookup *lk, char *why, size_t len)
{
	const struct probe_target *t;
	const char *err;
	int n, ret = lk ? lookup_result(lk, w, cp->family, &t, &n, &err) : 1;

	if (config_addr_family(w))
		return probe_resolve(w, cp->family, &pl->t, &pl->n, why, len) ? -1 : 0;
	if (ret < 0)
		return snprintf(why, len, "%s", err), -1;
	if (!ret)
		return add_targets(pl, t, n, NULL, 0);
	return op ? add_targets(pl, op->t, op->n, w, cp->family) : 0;
}

/* Every address of every target word of cp (resolve_word); a word that
 * does not resolve is said (unless quiet) and left out until the next try. */
static int resolve(const struct config_probe *cp, struct plan *pl, const struct prober *op,
		   const struct lookup *lk, bool quiet)
{
	char *words = strdup(cp->targets), *save = NULL, err[256];

	if (!words)
		return -ENOMEM;
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int ret = resolve_word(cp, w, pl, op, lk, err, sizeof(err));

		if (ret == -ENOMEM) {
			free(words);
			return ret;
		}
		if (ret && !quiet)
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

/* Whether op has the sockets pl's targets need. */
static bool has_sockets(const struct prober *op, const struct plan *pl)
{
	for (int i = 0; i < pl->n; i++)
		if (op->fd[pl->t[i].family == AF_INET6] < 0)
			return false;
	return true;
}

/* Section cp's next prober: resolved (with lk's names, if any), matched,
 * and where it is new, its sockets open. 0, or -1 (said). */
static int plan_make(const struct probes *ps, const struct config_probe *cp, struct plan *pl,
		     const struct lookup *lk, bool quiet)
{
	const struct prober *op = NULL;
	char err[512];

	pl->old = -1;
	for (int j = 0; j < ps->n; j++)
		if (!strcmp(ps->cfg[j].name, cp->name))
			pl->old = j;
	if (pl->old >= 0)
		op = ps->p[pl->old];
	if (resolve(cp, pl, op, lk, quiet))
		return log_error("out of memory");
	match(pl, op);
	if (op && same_probing(&ps->cfg[pl->old], cp) && has_sockets(op, pl)) {
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

/*
 * probes_apply with the names as lookup lk found them (NULL: as the
 * running probers have them), quiet about those that do not resolve (a
 * periodic try). With lk, a section whose new prober cannot be had keeps
 * the addresses it has: one section cannot hold the others back.
 */
static int apply(struct probes *ps, const struct config_probe *v, int n, const struct lookup *lk,
		 bool quiet)
{
	struct plan *pl = calloc(n ? n : 1, sizeof(*pl));
	struct probes next = { .n = n };
	struct lookup *keep = ps->lk; /* the lookup under way goes on */
	int i, ret = -1;

	if (!pl)
		return log_error("out of memory");
	for (i = 0; i < n; i++) {
		next.cfg[i] = v[i];
		next.cfg[i].targets = strdup(v[i].targets);
		if (!next.cfg[i].targets)
			goto out;
		if (!plan_make(ps, &v[i], &pl[i], lk, quiet))
			continue;
		plan_free(&pl[i]);
		if (!lk || plan_make(ps, &v[i], &pl[i], NULL, true))
			goto out;
	}
	for (i = 0; i < n; i++)
		next.p[i] = plan_commit(ps, &next.cfg[i], &pl[i]);
	next.resolve_ns = ps->resolve_ns;
	next.lk_say = ps->lk_say;
	ps->lk = NULL;
	probes_free(ps); /* the sections that went, and the old copies */
	*ps = next;
	ps->lk = keep;
	memset(&next, 0, sizeof(next));
	for (i = 0; i < n; i++) {
		/* Into ps's copy of the section, which lives as long as it. */
		ps->p[i]->cfg.label = ps->cfg[i].name; /* the metrics' probe label */
		ps->p[i]->cfg.source = ps->cfg[i].source[0] ? ps->cfg[i].source : NULL;
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		if (pl[i].np || ret)
			plan_free(&pl[i]);
	free(pl);
	probes_free(&next);
	return ret;
}

/* Every name of every section looked up anew, in the background (say:
 * what does not resolve is said); the lookup before it, if any, let go. */
static void lookup_again(struct probes *ps, bool say)
{
	struct lookup *l;
	int max = 0, ret;

	lookup_put(ps->lk);
	ps->lk = NULL;
	ps->resolve_ns = probe_now_ns() + PROBES_RESOLVE_S * NS;
	for (int i = 0; i < ps->n; i++)
		max += (int)strlen(ps->cfg[i].targets) / 2 + 1; /* words, at most */
	l = lookup_new(max);
	ret = l ? 0 : -ENOMEM;
	for (int i = 0; !ret && i < ps->n; i++) {
		char *words = strdup(ps->cfg[i].targets), *save = NULL;

		ret = words ? 0 : -ENOMEM;
		for (char *w = words ? strtok_r(words, " ", &save) : NULL; w && !ret;
		     w = strtok_r(NULL, " ", &save))
			if (!config_addr_family(w))
				ret = lookup_add(l, w, ps->cfg[i].family);
		free(words);
		if (ret)
			break;
	}
	if (!ret && !lookup_count(l)) {
		ps->resolve_ns = 0; /* addresses only: nothing to look up, ever */
		lookup_put(l);
		return;
	}
	if (ret) {
		log_note("cannot look the probes' names up: %s; tried again in %d s",
			 strerror(-ret), PROBES_RESOLVE_S);
		lookup_put(l);
		return;
	}
	lookup_start(l);
	ps->lk = l;
	ps->lk_say = say;
}

int probes_apply(struct probes *ps, const struct config_probe *v, int n)
{
	if (apply(ps, v, n, NULL, false))
		return -1;
	lookup_again(ps, true);
	return 0;
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
	/* A lookup still waiting for its server is the thread's to free. */
	lookup_put(ps->lk);
	ps->lk = NULL;
}

int probes_pollfds(const struct probes *ps, struct pollfd *pfd)
{
	int n = 0;

	for (int i = 0; i < ps->n; i++)
		for (int k = 0; k < 2; k++)
			pfd[n++] = (struct pollfd){ .fd = prober_pollfd(ps->p[i], k),
						    .events = POLLIN };
	if (ps->lk)
		pfd[n++] = (struct pollfd){ .fd = lookup_fd(ps->lk), .events = POLLIN };
	return n;
}

/* The names the lookup found since the last time, in place of the ones
 * the sections had; the lookup let go once every name is done. */
static void lookup_apply(struct probes *ps)
{
	struct config_probe v[CONFIG_MAX_PROBES];
	struct lookup *lk = ps->lk;
	bool all = lookup_collect(lk);

	/* The same sections: apply copies them before it frees ps's. */
	memcpy(v, ps->cfg, ps->n * sizeof(v[0]));
	apply(ps, v, ps->n, lk, !ps->lk_say);
	if (all) {
		lookup_put(ps->lk);
		ps->lk = NULL;
	}
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
	if (ps->lk && n > 2 * ps->n && (pfd[2 * ps->n].revents & POLLIN))
		lookup_apply(ps);
	else if (!ps->lk && ps->resolve_ns && now >= ps->resolve_ns)
		lookup_again(ps, false);
}

int probes_timeout_ms(const struct probes *ps)
{
	unsigned long long now = probe_now_ns(), next = ps->lk ? 0 : ps->resolve_ns;

	for (int i = 0; i < ps->n; i++) {
		unsigned long long at = prober_next_ns(ps->p[i]);

		if (at && (!next || at < next))
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
