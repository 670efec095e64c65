// SPDX-License-Identifier: GPL-2.0
/*
 * Whether an interface's pins are a live xdpong's: its own, another
 * namespace's (an interface of the same name), or stale (their interface
 * gone and no program using their maps), and what may be removed so.
 * The pins themselves are pins.c's; finding the attached program is
 * attachment.c's.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "core.h"
#include "xdpong.skel.h"

/*
 * Without CAP_SYS_ADMIN no program can be asked whether it uses a map: the
 * pins tell whose they are (.rodata: this namespace's interface) and
 * whether that one is still attached (attachment.c). Another namespace's
 * cannot be checked from here: those count as live.
 */
static bool pins_stale_by_self(const char *ifname)
{
	struct attachment a = { .prog_fd = -1 };
	struct xdpong_bpf__rodata ro;
	bool stale = false;

	for (int m = 0; m < MAP_COUNT; m++)
		a.map_fd[m] = -1;
	if (pins_open(ifname, a.map_fd, a.map_id) || rodata_read(&a, &ro) ||
	    ro.cfg_netns_ino != netns_ino())
		goto out;
	/* Gone from this namespace, or not the program attached there now. */
	if (link_get(NULL, ro.cfg_ifindex, &a.li) || strcmp(a.li.name, ifname)) {
		stale = true;
		goto out;
	}
	{
		struct attachment found;

		stale = attachment_find(a.li.ifindex, &found, NULL) == -ENOENT;
		if (!stale)
			attachment_close(&found);
	}
out:
	attachment_close(&a);
	return stale;
}

bool pins_stale(const char *ifname)
{
	char dir[256], path[320];

	pin_dir(ifname, dir, sizeof(dir));
	if (access(dir, F_OK))
		return false;
	if (!privs_by_id)
		return pins_stale_by_self(ifname);
	pin_map_path(ifname, MAP_STATS, path, sizeof(path));
	return !pinned_map_in_use(path);
}

int pins_prepare(const char *ifname, __u32 stats_map_id)
{
	char dir[256], path[320];

	if (pins_match(ifname, stats_map_id))
		return 0;
	pin_dir(ifname, dir, sizeof(dir));
	pin_map_path(ifname, MAP_STATS, path, sizeof(path));
	if (!access(path, F_OK) && (privs_by_id ? pinned_map_in_use(path) : !pins_stale(ifname)))
		return log_error("%s holds the maps of another live xdpong (an interface of the "
				 "same name in another network namespace?): left as they are",
				 dir);
	pins_remove(ifname); /* stale, or partial from a killed attach */
	return 0;
}

int pins_release(const char *ifname, __u32 stats_map_id)
{
	if (pins_match(ifname, stats_map_id) || pins_stale(ifname))
		return pins_remove(ifname);
	return 0;
}
