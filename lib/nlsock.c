// SPDX-License-Identifier: GPL-2.0
/* An rtnetlink socket: see nlsock.h. */
#include <errno.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "nlsock.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int nl_socket(unsigned int groups, int flags)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | flags, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	/* Errors come back with the offending attribute named. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}
