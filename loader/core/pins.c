// SPDX-License-Identifier: GPL-2.0
/*
 * The maps' pins under /sys/fs/bpf/xdpong/IFACE, for bpftool and for the
 * commands run where the attached program cannot be asked (they can be
 * everywhere else: see attachment.c).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include "core.h"
#include "xdpong.skel.h"

const struct map_def map_defs[MAP_COUNT] = {
#define X(id, obj, member, pin, opt, take, carry_map) \
	[id] = { .obj_name = obj,                     \
		 .pin_name = pin,                     \
		 .optional = opt,                     \
		 .takeover = take,                    \
		 .carry = carry_map },
	XDPONG_MAPS(X)
#undef X
};

/* The XDP_TX failure count's tracepoint links (txwatch.c), pinned beside
 * the maps: they die with their last pin. */
static const char *const link_pin_names[TXWATCH_LINKS] = { "tx_exception", "tx_bulk" };

void pin_link_path(const char *ifname, int i, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%s", PIN_ROOT, ifname, link_pin_names[i]);
}

void pin_dir(const char *ifname, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", PIN_ROOT, ifname);
}

void pin_map_path(const char *ifname, int map, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%s", PIN_ROOT, ifname, map_defs[map].pin_name);
}

bool bpffs_mounted_here;

bool bpffs_here(void)
{
	struct statfs st;

	return !statfs(BPFFS_ROOT, &st) && st.f_type == BPF_FS_MAGIC;
}

int bpffs_ensure(void)
{
	struct statfs st;

	if (!statfs(BPFFS_ROOT, &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mkdir(BPFFS_ROOT, 0755) && errno != EEXIST)
		return log_error("cannot create %s: %s", BPFFS_ROOT, strerror(errno));
	if (mount("bpf", BPFFS_ROOT, "bpf", 0, "mode=0700"))
		return log_error("no bpffs at %s and mounting one failed: %s (mount one: mount -t "
				 "bpf bpf %s%s)",
				 BPFFS_ROOT, strerror(errno), BPFFS_ROOT,
				 errno == EPERM ? "; mounting needs CAP_SYS_ADMIN" : "");
	bpffs_mounted_here = true;
	if (verbose)
		log_note("mounted a bpffs at %s", BPFFS_ROOT);
	return 0;
}

int pins_remove(const char *ifname)
{
	char dir[256], path[320];
	int removed = 0;

	pin_dir(ifname, dir, sizeof(dir));
	for (int m = 0; m < MAP_COUNT; m++) {
		pin_map_path(ifname, m, path, sizeof(path));
		if (!unlink(path))
			removed++;
	}
	for (int i = 0; i < TXWATCH_LINKS; i++) {
		pin_link_path(ifname, i, path, sizeof(path));
		unlink(path); /* the links die with their last pin */
	}
	rmdir(dir);
	rmdir(PIN_ROOT); /* only if empty */
	return removed;
}

static int pinned_map_id(const char *path, __u32 *id)
{
	struct bpf_map_info mi = { 0 };
	__u32 len = sizeof(mi);
	int fd, ret;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	ret = bpf_obj_get_info_by_fd(fd, &mi, &len) ? -errno : 0;
	close(fd);
	*id = mi.id;
	return ret;
}

bool pinned_map_in_use(const char *path)
{
	__u32 map_id, id = 0;
	bool used = false;

	if (pinned_map_id(path, &map_id))
		return false;
	while (!used && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info pi = { 0 };
		__u32 ids[32], plen = sizeof(pi);
		int pfd = bpf_prog_get_fd_by_id(id);

		if (pfd < 0)
			continue;
		pi.nr_map_ids = 32;
		pi.map_ids = (__u64)(unsigned long)ids;
		if (!bpf_obj_get_info_by_fd(pfd, &pi, &plen))
			for (__u32 i = 0; i < pi.nr_map_ids && i < 32; i++)
				used |= ids[i] == map_id;
		close(pfd);
	}
	return used;
}

bool pins_match(const char *ifname, __u32 stats_map_id)
{
	char path[320];
	__u32 id;

	pin_map_path(ifname, MAP_STATS, path, sizeof(path));
	return stats_map_id && !pinned_map_id(path, &id) && id == stats_map_id;
}

int pins_open(const char *ifname, int map_fd[MAP_COUNT], __u32 map_id[MAP_COUNT])
{
	char path[320];

	for (int m = 0; m < MAP_COUNT; m++) {
		struct bpf_map_info mi = { 0 };
		__u32 len = sizeof(mi);

		pin_map_path(ifname, m, path, sizeof(path));
		map_fd[m] = bpf_obj_get(path);
		if (map_fd[m] >= 0 && !bpf_obj_get_info_by_fd(map_fd[m], &mi, &len))
			map_id[m] = mi.id;
	}
	/* The maps every build has. */
	for (int m = 0; m < MAP_COUNT; m++)
		if (map_fd[m] < 0 && !map_defs[m].optional)
			return -ENOENT;
	return 0;
}

int pins_create(const char *ifname, const int map_fd[MAP_COUNT])
{
	char dir[256], path[320];

	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST)
		return log_error("cannot create %s: %s", PIN_ROOT, strerror(errno));
	pin_dir(ifname, dir, sizeof(dir));
	if (mkdir(dir, 0700) && errno != EEXIST)
		return log_error("cannot create %s: %s", dir, strerror(errno));
	for (int m = 0; m < MAP_COUNT; m++) {
		if (map_fd[m] < 0)
			continue;
		pin_map_path(ifname, m, path, sizeof(path));
		if (bpf_obj_pin(map_fd[m], path))
			return log_error("cannot pin %s: %s", path, strerror(errno));
	}
	return 0;
}
