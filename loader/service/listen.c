// SPDX-License-Identifier: GPL-2.0
/*
 * The --metrics-listen socket of `xdpong run`. Any local process may bind
 * a free port above 1023 first; that must not keep run from answering
 * pings. So a port in use is said once, run carries on, and the port is
 * tried again every LISTEN_RETRY_S seconds (one bind per try) until it is
 * ours. An address that cannot be listened on at all (not this host's,
 * not ADDR:PORT) is still a configuration error.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include "service.h"

static int retry_timer(void)
{
	struct itimerspec its = { .it_value.tv_sec = LISTEN_RETRY_S,
				  .it_interval.tv_sec = LISTEN_RETRY_S };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int listener_open(struct listener *l, const char *addr, struct service *svc)
{
	struct listener n = { .addr = addr, .retry_fd = -1 };
	bool busy = false;

	if (addr) {
		n.h = http_start(addr, svc, &busy);
		if (!n.h && !busy)
			return -1;
	}
	if (busy) {
		n.retry_fd = retry_timer();
		log_error("--metrics-listen %s: %s (another process holds the port); answering "
			  "pings anyway, /metrics once the port is free (tried every %d s)",
			  addr, strerror(EADDRINUSE), LISTEN_RETRY_S);
	}
	*l = n;
	return 0;
}

void listener_retry(struct listener *l, struct service *svc)
{
	bool busy = false;
	__u64 ticks;

	if (l->retry_fd < 0 || read(l->retry_fd, &ticks, sizeof(ticks)) < 0)
		return;
	l->h = http_start(l->addr, svc, &busy);
	if (busy)
		return;
	close(l->retry_fd);
	l->retry_fd = -1;
	if (l->h)
		log_note("--metrics-listen %s: listening now", l->addr);
	else
		log_error("--metrics-listen %s: no longer tried; /metrics is not served (a reload "
			  "or restart tries again)",
			  l->addr);
}

bool listener_waiting(const struct listener *l)
{
	return l->retry_fd >= 0;
}

void listener_close(struct listener *l)
{
	http_stop(l->h);
	if (l->retry_fd >= 0)
		close(l->retry_fd);
	l->h = NULL;
	l->retry_fd = -1;
	l->addr = NULL;
}
