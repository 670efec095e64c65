// SPDX-License-Identifier: GPL-2.0
/*
 * Who is tracing a program, across processes (trace.c): the lock file
 * /run/xdpong/trace-PROGID.lock and its OFD locks, released by the kernel
 * when the process dies (core.h says which byte means what).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core.h"

int readers_lock(int fd, short type, long start, bool wait)
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
bool readers_others(int fd)
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
int readers_enter(struct readers *r, __u32 prog_id)
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
		ret = readers_lock(r->fd, F_WRLCK, 0, true);
		if (ret) {
			close(r->fd);
			r->fd = -1;
			return ret;
		}
		/* The last trace to leave unlinks the file: use the live one. */
		if (!fstat(r->fd, &fs) && !stat(r->path, &ps) && fs.st_ino == ps.st_ino &&
		    fs.st_dev == ps.st_dev)
			return 0;
		close(r->fd);
		r->fd = -1;
	}
	return -EAGAIN;
}

void readers_leave(struct readers *r)
{
	readers_lock(r->fd, F_UNLCK, 0, false);
}
