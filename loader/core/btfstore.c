// SPDX-License-Identifier: GPL-2.0
/*
 * The BTF of each xdpong object a loader loaded, kept as a file under
 * /run/xdpong/btf, for the processes that cannot ask the kernel for it.
 *
 * Reading another build's maps goes by their BTF (layout.c): the field
 * names and offsets of that build's .bss, .rodata and counters. The kernel
 * hands BTF out by id only with CAP_SYS_ADMIN (BPF_BTF_GET_FD_BY_ID), and a
 * run without it still takes over the maps of the run before, which may be
 * another build. So the loader writes down the BTF it loaded, named by the
 * id the kernel gave it, where only root can write: a map's info names that
 * id, whoever asks. A map kept across takeovers keeps the BTF of the build
 * that made it, so a file goes only when no map of the interface names it
 * any more (btfstore_prune), or with the interface's xdpong (detach), or
 * when a loader with CAP_SYS_ADMIN finds the kernel has let it go (sweep).
 *
 * Files: /run/xdpong/btf/NETNS-IFINDEX-BTFID, mode 0600, written whole
 * (a temporary file, then rename). /run is a tmpfs: a reboot empties it, as
 * it does the programs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "core.h"

#define BTF_DIR OWNER_TOP_DIR "/btf"

static void file_name(char *buf, size_t size, int ifindex, __u32 btf_id)
{
	snprintf(buf, size, "%u-%d-%u", netns_ino(), ifindex, btf_id);
}

/* The directory's entries, if it is there and to be trusted (run_dir). */
static DIR *btf_dir(void)
{
	int fd = run_dir("btf", false, NULL, 0);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (fd >= 0 && !d)
		close(fd);
	return d;
}

static __u32 fd_btf_id(int fd)
{
	struct bpf_btf_info bi = { 0 };
	__u32 len = sizeof(bi);

	return bpf_obj_get_info_by_fd(fd, &bi, &len) ? 0 : bi.id;
}

/* With CAP_SYS_ADMIN the kernel says which BTF is gone: those files go
 * (an interface or a namespace deleted under its xdpong leaves them). */
static void sweep(void)
{
	struct dirent *de;
	DIR *d = btf_dir();

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *id = strrchr(de->d_name, '-');
		char *end;
		unsigned long n;
		int fd;

		if (!id || de->d_name[0] == '.')
			continue;
		n = strtoul(id + 1, &end, 10);
		if (*end)
			continue;
		fd = bpf_btf_get_fd_by_id(n);
		if (fd >= 0)
			close(fd);
		else if (errno == ENOENT)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

int btfstore_save(const struct bpf_object *obj, int ifindex)
{
	const struct btf *btf = bpf_object__btf(obj);
	char name[64], tmp[80];
	__u32 size, id;
	const void *raw;
	int dir, fd, e = 0;

	id = btf ? fd_btf_id(bpf_object__btf_fd(obj)) : 0;
	raw = btf ? btf__raw_data(btf, &size) : NULL;
	if (!id || !raw)
		return -ENOENT;
	dir = run_dir("btf", true, NULL, 0);
	if (dir < 0)
		return dir;
	if (privs_by_id)
		sweep();
	file_name(name, sizeof(name), ifindex, id);
	snprintf(tmp, sizeof(tmp), "%s.%d", name, getpid());
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = -errno;
		close(dir);
		return e;
	}
	if (write(fd, raw, size) != (ssize_t)size)
		e = errno ? -errno : -EIO;
	if (close(fd) && !e)
		e = -errno;
	if (!e && renameat(dir, tmp, dir, name))
		e = -errno;
	if (e)
		unlinkat(dir, tmp, 0);
	close(dir);
	return e;
}

struct btf *btfstore_load(__u32 btf_id)
{
	char prefix[64];
	struct dirent *de;
	struct btf *btf = NULL;
	DIR *d;

	/* Any interface's copy will do: the kernel's id names one object. */
	d = btf_dir();
	if (!d)
		return NULL;
	snprintf(prefix, sizeof(prefix), "-%u", btf_id);
	while (!btf && (de = readdir(d))) {
		size_t n = strlen(de->d_name), p = strlen(prefix);
		char path[300];

		if (n <= p || strcmp(de->d_name + n - p, prefix))
			continue;
		snprintf(path, sizeof(path), BTF_DIR "/%s", de->d_name);
		btf = btf__parse_raw(path);
		if (libbpf_get_error(btf))
			btf = NULL;
	}
	closedir(d);
	if (!btf)
		errno = ENOENT;
	return btf;
}

/* The BTF ids an attachment's maps name, and its object's. */
static int ids_in_use(const struct attachment *a, __u32 *ids, int max)
{
	int n = 0;

	for (int m = 0; m < MAP_COUNT && n < max; m++) {
		struct bpf_map_info mi = { 0 };
		__u32 len = sizeof(mi);

		if (a->map_fd[m] >= 0 && !bpf_obj_get_info_by_fd(a->map_fd[m], &mi, &len) &&
		    mi.btf_id)
			ids[n++] = mi.btf_id;
	}
	return n;
}

void btfstore_prune(const struct attachment *a, bool all)
{
	__u32 keep[MAP_COUNT];
	char prefix[64];
	struct dirent *de;
	int n = all ? 0 : ids_in_use(a, keep, MAP_COUNT);
	DIR *d = btf_dir();

	if (!d)
		return;
	snprintf(prefix, sizeof(prefix), "%u-%d-", netns_ino(), a->li.ifindex);
	while ((de = readdir(d))) {
		char *end;
		unsigned long id;
		bool used = false;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		id = strtoul(de->d_name + strlen(prefix), &end, 10);
		if (*end)
			continue; /* a temporary file: its writer renames or removes it */
		for (int i = 0; i < n; i++)
			used |= keep[i] == id;
		if (!used)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}
