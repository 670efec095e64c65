// SPDX-License-Identifier: GPL-2.0
/*
 * Name lookups off run's loop (service.h): getaddrinfo waits as long as a
 * DNS server keeps it waiting, so each name of a lookup is resolved by a
 * thread of its own (one slow name holds no other back), which says it is
 * done on an eventfd the loop polls. The loop may let go of a lookup at
 * any time (a reload, the exit) without waiting for its threads: the
 * lookup is freed by whichever lets go last.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "service.h"

struct lookup_name {
	struct lookup *l;
	char *word;
	int family;             /* as probe_resolve takes it */
	struct probe_target *t; /* what probe_resolve gave: n, or ret -1 and err */
	int n, ret;
	char err[256];
	atomic_bool done; /* the thread is through with it */
	bool used;        /* the loop has had it (lookup_collect) */
	bool fresh;       /* ... in the last lookup_collect */
};

struct lookup {
	atomic_int refs; /* the loop's, and each running thread's */
	int fd;          /* eventfd: readable when a name is done */
	int n, max;
	struct lookup_name v[];
};

struct lookup *lookup_new(int max)
{
	struct lookup *l = calloc(1, sizeof(*l) + max * sizeof(l->v[0]));

	if (!l)
		return NULL;
	l->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->fd < 0) {
		free(l);
		return NULL;
	}
	l->max = max;
	atomic_init(&l->refs, 1);
	return l;
}

int lookup_add(struct lookup *l, const char *word, int family)
{
	struct lookup_name *r = &l->v[l->n];

	for (int i = 0; i < l->n; i++)
		if (l->v[i].family == family && !strcmp(l->v[i].word, word))
			return 0;
	if (l->n >= l->max)
		return -ENOSPC;
	r->word = strdup(word);
	if (!r->word)
		return -ENOMEM;
	r->l = l;
	r->family = family;
	atomic_init(&r->done, false);
	l->n++;
	return 0;
}

int lookup_count(const struct lookup *l)
{
	return l->n;
}

void lookup_put(struct lookup *l)
{
	if (!l || atomic_fetch_sub(&l->refs, 1) != 1)
		return;
	for (int i = 0; i < l->n; i++) {
		for (int k = 0; k < l->v[i].n; k++)
			probe_target_free(&l->v[i].t[k]);
		free(l->v[i].t);
		free(l->v[i].word);
	}
	close(l->fd);
	free(l);
}

static void *work(void *arg)
{
	struct lookup_name *r = arg;
	struct lookup *l = r->l;

	r->ret = probe_resolve(r->word, r->family, &r->t, &r->n, r->err, sizeof(r->err));
	atomic_store(&r->done, true);
	eventfd_write(l->fd, 1);
	lookup_put(l);
	return NULL;
}

void lookup_start(struct lookup *l)
{
	sigset_t all, old;
	pthread_attr_t attr;
	int ret = pthread_attr_init(&attr);

	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* No signal for the threads: the loop reads them from its signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < l->n && !ret; i++) {
		pthread_t th;

		atomic_fetch_add(&l->refs, 1);
		ret = pthread_create(&th, &attr, work, &l->v[i]);
		if (ret) {
			/* The names not started are failures, said as such. */
			atomic_fetch_sub(&l->refs, 1);
			for (int k = i; k < l->n; k++) {
				l->v[k].ret = -1;
				snprintf(l->v[k].err, sizeof(l->v[k].err),
					 "cannot look '%s' up: %s", l->v[k].word, strerror(ret));
				atomic_store(&l->v[k].done, true);
			}
			eventfd_write(l->fd, 1);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

int lookup_fd(const struct lookup *l)
{
	return l->fd;
}

bool lookup_collect(struct lookup *l)
{
	eventfd_t ignored;
	bool all = true;

	eventfd_read(l->fd, &ignored);
	for (int i = 0; i < l->n; i++) {
		struct lookup_name *r = &l->v[i];
		bool done = atomic_load(&r->done);

		r->fresh = done && !r->used;
		r->used |= done;
		all &= done;
	}
	return all;
}

int lookup_result(const struct lookup *l, const char *word, int family,
		  const struct probe_target **t, int *n, const char **why)
{
	for (int i = 0; i < l->n; i++) {
		const struct lookup_name *r = &l->v[i];

		if (r->family != family || strcmp(r->word, word))
			continue;
		if (!r->fresh)
			return 1;
		*t = r->t;
		*n = r->n;
		*why = r->err;
		return r->ret ? -1 : 0;
	}
	return 1;
}
