// SPDX-License-Identifier: GPL-2.0
/*
 * Who owns an interface's xdpong: a running `xdpong run`, proved by a
 * listening unix socket in the abstract namespace, "\0xdpong/owner/IFINDEX".
 *
 * Why a socket and not flock(2) on a file under /run: the kernel releases
 * it when the process dies however it dies (SIGKILL, OOM), as it does a
 * lock, but it also lives in the interface's own network namespace (the
 * abstract namespace is per netns), so two namespaces with an eth0 each
 * never collide, it works with a read-only or missing /run, and the same
 * name is seen under `ip netns exec` and `nsenter --net` alike. bind()
 * is the atomic test-and-set: of two racing runs exactly one wins. A
 * client that connects learns the owner's pid from SO_PEERCRED (in its own
 * pid namespace) and reads one line the owner writes: "pid PID since
 * UNIX-SECONDS version VERSION".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "loader.h"

static socklen_t owner_addr(int ifindex, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] = '\0': the abstract namespace, no file anywhere. */
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "xdpong/owner/%d", ifindex);
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

int owner_claim(int ifindex)
{
	struct sockaddr_un sa;
	socklen_t len = owner_addr(ifindex, &sa);
	int fd, e;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) || listen(fd, 8)) {
		e = errno == EADDRINUSE ? -EBUSY : -errno;
		close(fd);
		return e;
	}
	return fd;
}

void owner_answer(int listen_fd, time_t since)
{
	char line[128];
	int c, n;

	/* Every waiting client, each with one line, never blocking the loop. */
	while ((c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		n = snprintf(line, sizeof(line), "pid %d since %lld version %s\n", getpid(),
			     (long long)since, XDPONG_VERSION);
		if (send(c, line, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && verbose)
			log_note("cannot answer an owner query: %s", strerror(errno));
		close(c);
	}
}

int owner_query(int ifindex, struct owner_info *info)
{
	struct sockaddr_un sa;
	socklen_t len = owner_addr(ifindex, &sa), clen;
	struct timeval tv = { .tv_sec = 1 };
	struct ucred cred;
	char line[128] = "";
	long long since = 0;
	ssize_t n;
	int fd;

	memset(info, 0, sizeof(*info));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, len)) {
		int e = errno;

		close(fd);
		return e == ECONNREFUSED || e == ENOENT ? -ENOENT : -e;
	}
	clen = sizeof(cred);
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen))
		info->pid = cred.pid;
	/* The line is a courtesy: an owner too busy to answer is still the owner. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(fd, line, sizeof(line) - 1, MSG_WAITALL);
	close(fd);
	if (n > 0) {
		line[n] = '\0';
		if (sscanf(line, "pid %*d since %lld version %31s", &since, info->version) >= 1)
			info->since = since;
	}
	return 0;
}
