// SPDX-License-Identifier: GPL-2.0
/*
 * Who owns an interface's xdpong: a running `xdpong run`, proved by an
 * open file description lock (fcntl F_OFD_SETLK, F_WRLCK, the whole
 * file) on /run/xdpong/owner/net-DEV-INO-IFINDEX, where DEV and INO name
 * the network namespace (/proc/self/ns/net) and IFINDEX the interface.
 *
 * The threat: any local process, root or not, may try to block a run or
 * pose as its owner. It used to be enough to bind the abstract unix socket
 * name the owner used: those names carry no permissions. A lock file can
 * be made safe where a name cannot. The directories are created mode 0700
 * by xdpong and used only when each is a real directory owned by our
 * effective uid that no group or other may write; the file is ours, 0600,
 * never followed through a symlink. So no other uid can open the file,
 * and without an fd it can take no lock, not even a read lock, and write
 * no record. Where the directory is not safe, or cannot be made (a
 * read-only /run), `run` says so and attaches nothing.
 *
 * What the socket gave is kept: the kernel drops the lock however the
 * owner dies (the last close of its file description); the network
 * namespace is in the name, so two namespaces' eth0 never collide; /run is
 * the same under `ip netns exec` (which remounts only /sys) and `nsenter
 * --net`; taking the lock is the atomic test-and-set, so of two racing
 * runs exactly one wins. Readers test the lock without taking it
 * (F_OFD_GETLK): a reader holding a lock would make a starting run fail.
 *
 * The owner writes one line into its file once it holds the lock: "pid
 * PID pidns INO since UNIX-SECONDS version VERSION". A file nobody holds
 * a lock on is stale (its run died) and means nothing. The owner unlinks
 * its file on a clean exit while still holding the lock, so a claimer
 * that won the lock checks that its file is still the one at the path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "core.h"

#define OWNER_CLAIM_TRIES 8
#define OWNER_READ_TRIES 20 /* 5 ms apart */

static int why_set(char *why, size_t len, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t len, int e, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return e;
}

/* A directory we may trust: ours, not writable by group or others. */
static int dir_check(int fd, const char *path, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return why_set(why, len, -errno, "%s: %s", path, strerror(errno));
	if (st.st_uid != geteuid())
		return why_set(why, len, -EPERM, "%s is owned by uid %u, not %u (remove it)", path,
			       (unsigned int)st.st_uid, (unsigned int)geteuid());
	if (st.st_mode & 022)
		return why_set(why, len, -EPERM,
			       "%s is writable by group or others (mode %04o; "
			       "chmod 0700 it)",
			       path, (unsigned int)(st.st_mode & 07777));
	return 0;
}

/* Open at/name as a trusted directory (made 0700 if create and missing):
 * an fd, -ENOENT (if !create and missing), or -errno with why set. */
static int dir_open(int at, const char *name, const char *path, bool create, char *why, size_t len)
{
	struct stat st;
	int fd, e;

	if (create && mkdirat(at, name, 0700) && errno != EEXIST)
		return why_set(why, len, -errno, "%s: cannot create it: %s", path, strerror(errno));
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		if (e == -ENOENT)
			return why_set(why, len, e, "%s: missing", path);
		if (!fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISDIR(st.st_mode))
			return why_set(why, len, -ENOTDIR, "%s is %s, not a directory (remove it)",
				       path, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
		return why_set(why, len, e, "%s: %s", path, strerror(-e));
	}
	e = dir_check(fd, path, why, len);
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

int run_dir(const char *sub, bool create, char *why, size_t len)
{
	char path[64];
	int run, top, fd;

	run = open("/run", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (run < 0)
		return why_set(why, len, -errno, "/run: %s", strerror(errno));
	top = dir_open(run, "xdpong", OWNER_TOP_DIR, create, why, len);
	close(run);
	if (top < 0)
		return top;
	snprintf(path, sizeof(path), "%s/%s", OWNER_TOP_DIR, sub);
	fd = dir_open(top, sub, path, create, why, len);
	close(top);
	return fd;
}

/* OWNER_DIR as a trusted directory: an fd, or -errno with why set. */
static int owner_dir(bool create, char *why, size_t len)
{
	return run_dir("owner", create, why, len);
}

int owner_dir_ready(char *why, size_t len)
{
	int fd = owner_dir(true, why, len), e = 0;
	struct statvfs vfs;

	if (fd < 0)
		return fd;
	/* Present but read-only: no lock file could be made in it. */
	if (!fstatvfs(fd, &vfs) && (vfs.f_flag & ST_RDONLY))
		e = why_set(why, len, -EROFS, "%s is on a read-only file system", OWNER_DIR);
	close(fd);
	return e;
}

/* The lock file's name in OWNER_DIR: the network namespace and ifindex. */
static int owner_name(int ifindex, char *name, size_t len)
{
	struct stat ns;

	if (stat("/proc/self/ns/net", &ns))
		return -errno;
	snprintf(name, len, "net-%llu-%llu-%d", (unsigned long long)ns.st_dev,
		 (unsigned long long)ns.st_ino, ifindex);
	return 0;
}

static unsigned long long pidns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (unsigned long long)st.st_ino;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The owner's record, written once the lock is ours. */
static int owner_record(int fd)
{
	char line[128];
	int n;

	n = snprintf(line, sizeof(line), "pid %d pidns %llu since %lld version %s\n", getpid(),
		     pidns_ino(), (long long)time(NULL), XDPONG_VERSION);
	if (ftruncate(fd, 0) || pwrite(fd, line, n, 0) != n)
		return -errno;
	return 0;
}

/* Open and lock dir/name once: an fd, -EBUSY, -EAGAIN (the file was
 * unlinked under us: again), or -errno with why set. */
static int claim_once(int dir, const char *name, char *why, size_t len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st, now;
	int fd, e;

	fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ELOOP)
		return why_set(why, len, -ELOOP, "%s/%s is a symbolic link (remove it)", OWNER_DIR,
			       name);
	if (fd < 0)
		return why_set(why, len, -errno, "%s/%s: %s", OWNER_DIR, name, strerror(errno));
	e = fstat(fd, &st) ? -errno : 0;
	if (!e && (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)))
		e = why_set(why, len, -EPERM, "%s/%s is not a file of uid %u's alone (remove it)",
			    OWNER_DIR, name, (unsigned int)geteuid());
	else if (e)
		why_set(why, len, e, "%s/%s: %s", OWNER_DIR, name, strerror(-e));
	if (!e && fcntl(fd, F_OFD_SETLK, &fl))
		e = errno == EAGAIN || errno == EACCES ?
			    -EBUSY :
			    why_set(why, len, -errno, "%s/%s: cannot lock it: %s", OWNER_DIR, name,
				    strerror(errno));
	if (!e && (fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) || !same_file(&st, &now)))
		e = -EAGAIN;
	if (!e && owner_record(fd))
		e = why_set(why, len, -errno, "%s/%s: cannot write it: %s", OWNER_DIR, name,
			    strerror(errno));
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

int owner_claim(int ifindex, char *why, size_t len)
{
	char name[96];
	int dir, fd = -EAGAIN, e;

	e = owner_name(ifindex, name, sizeof(name));
	if (e)
		return why_set(why, len, e, "/proc/self/ns/net: %s", strerror(-e));
	dir = owner_dir(true, why, len);
	if (dir < 0)
		return dir;
	for (int i = 0; i < OWNER_CLAIM_TRIES && fd == -EAGAIN; i++)
		fd = claim_once(dir, name, why, len);
	if (fd == -EAGAIN)
		why_set(why, len, fd, "%s/%s keeps being replaced", OWNER_DIR, name);
	close(dir);
	return fd;
}

void owner_release(int fd, int ifindex)
{
	struct stat st, now;
	char name[96];
	int dir;

	if (fd < 0)
		return;
	/* Unlinked only while the lock is still ours (see claim_once). */
	if (!owner_name(ifindex, name, sizeof(name))) {
		dir = owner_dir(false, NULL, 0);
		if (dir >= 0 && !fstat(fd, &st) && !fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) &&
		    same_file(&st, &now))
			unlinkat(dir, name, 0);
		if (dir >= 0)
			close(dir);
	}
	close(fd);
}

/* The record of a live owner; what cannot be read stays unknown (0, "").
 * false if there is none (yet). */
static bool owner_read(int fd, struct owner_info *info)
{
	unsigned long long pidns = 0;
	long long since = 0;
	char line[128];
	ssize_t n;
	int pid = 0;

	n = pread(fd, line, sizeof(line) - 1, 0);
	if (n <= 0)
		return false;
	line[n] = '\0';
	if (sscanf(line, "pid %d pidns %llu since %lld version %31s", &pid, &pidns, &since,
		   info->version) < 3)
		return false;
	/* A pid from another pid namespace would name someone else here. */
	info->pid = pidns == pidns_ino() ? pid : 0;
	info->since = since;
	return true;
}

int owner_query(int ifindex, struct owner_info *info)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char name[96];
	int dir, fd, e;

	memset(info, 0, sizeof(*info));
	e = owner_name(ifindex, name, sizeof(name));
	if (e)
		return e;
	dir = owner_dir(false, NULL, 0);
	if (dir < 0)
		return dir;
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	e = fd < 0 ? -errno : 0;
	close(dir);
	if (e)
		return e;
	/* Asks whether a write lock could be had; takes none. */
	if (fcntl(fd, F_OFD_GETLK, &fl))
		e = -errno;
	else if (fl.l_type == F_UNLCK)
		e = -ENOENT; /* a stale file: its run died */
	else
		/* Locked but no record yet: the owner writes it right after. */
		for (int i = 0; i < OWNER_READ_TRIES && !owner_read(fd, info); i++)
			usleep(5000);
	close(fd);
	return e;
}
