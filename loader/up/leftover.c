// SPDX-License-Identifier: GPL-2.0
/*
 * What libxdp leaves behind when xdpong's dispatcher is detached behind its
 * back, and its removal.
 *
 * In libxdp's dispatcher, xdpong is an extension program linked into one of
 * the dispatcher's slots (chain.c). libxdp keeps each such link, and each
 * program, as pins under its directory in the bpffs,
 * <bpffs>/xdp/dispatch-IFINDEX-ID (ID: the dispatcher's program id), and
 * removes that directory whenever it detaches or replaces that dispatcher
 * itself. Anyone else who detaches it (`ip link set dev IFACE xdp off`, a
 * loader that does not use libxdp) leaves the directory: its pins keep the
 * dispatcher, xdpong's program and, through the program, every map of
 * xdpong's alive for good. xdpong's own pins then look like the maps of
 * another live xdpong, which pins.c must not remove (an interface of the
 * same name in another network namespace), and they stay forever too.
 *
 * Such a directory is removed here, as libxdp's xdp_multiprog__unpin does
 * (under libxdp's lock: the links, the programs, then the directory), when
 *  - the interface IFINDEX exists in this network namespace and its
 *    dispatcher is not attached there (in any mode);
 *  - it holds an xdpong loaded for that interface in this network
 *    namespace: the caller's own program (run knows its id), or one whose
 *    .rodata says so (cfg_ifindex, cfg_netns_ino; an older build without
 *    them is never recognised). A program id names one program on the
 *    whole host, an ifindex one interface of one namespace: libxdp built
 *    that dispatcher for this interface, here, and it is attached here no
 *    longer, so it is attached nowhere;
 *  - no xdpong it holds is on the interface still, in the dispatcher that
 *    is attached there now. (libxdp pins a new dispatcher before it swaps
 *    it in, and unpins the old one after: an xdpong that moved to the new
 *    one is found there.)
 * Deliberately left alone:
 *  - a dispatcher of an interface with the same ifindex in another network
 *    namespace (two namespaces entered with nsenter share the bpffs, and
 *    ifindexes repeat across namespaces): its xdpong programs' .rodata
 *    names the other namespace;
 *  - the dispatchers of an interface that is gone from this namespace:
 *    moved to another one, it may still run its dispatcher there;
 *  - the dispatchers that hold no xdpong of this interface here.
 * The rest of a removed directory goes with it: its dispatcher is attached
 * nowhere, so the other programs' links in it serve nothing either.
 *
 * Limits: libxdp's lock covers its pins, not its whole attach or detach.
 * In the instant between a libxdp detach's netlink call and its unpin (a
 * `xdpong detach` or `xdp-loader unload` racing an xdpong starting on the
 * same interface), the directory may be found and removed here first;
 * that libxdp call then reports that it could not unlink it, though the
 * detach itself happened.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <bpf/bpf.h>
#include "up.h"
#include "xdpong.skel.h"

/* Dispatchers of one interface seen at once (libxdp keeps one; a killed
 * libxdp, or an external detach at each restart, a few more). */
#define LEFTOVER_DIRS 16
/* Programs in one directory: the dispatcher's ten slots. */
#define LEFTOVER_PROGS CHAIN_MAX
/* How long a removed directory's xdpong may take to leave the kernel (its
 * pins are put after an RCU grace period, its link from a workqueue). */
#define LEFTOVER_WAIT_MS 3000
/* libxdp's directory (a bpffs and xdp/), a subdirectory, a pin: room for
 * all three at their longest. */
#define LEFTOVER_ROOT 256
#define LEFTOVER_PATH (LEFTOVER_ROOT + 64 + 256 + 8)

struct dispatch_dir {
	char name[64]; /* dispatch-IFINDEX-ID */
	__u32 disp_id; /* ID */
	int n;
	__u32 prog[LEFTOVER_PROGS]; /* the programs its pins hold */
};

/* What is on the interface: every program attached in any mode. */
struct attached_here {
	int n;
	__u32 id[4];
};

static void libxdp_dir(char *buf, size_t size)
{
	const char *root = getenv(LIBXDP_BPFFS_ENV);

	snprintf(buf, size, "%s/xdp", root ? root : BPFFS_ROOT);
}

static bool attached(const struct attached_here *h, __u32 id)
{
	for (int i = 0; i < h->n; i++)
		if (h->id[i] == id)
			return true;
	return false;
}

static void attached_add(struct attached_here *h, __u32 id)
{
	if (id && !attached(h, id) && h->n < 4)
		h->id[h->n++] = id;
}

/* The program a pin of libxdp's holds: "progN-prog" one, "progN-link" the
 * link of one. 0 for anything else. */
static __u32 pin_prog_id(const char *path)
{
	size_t len = strlen(path);
	__u32 id = 0;
	int fd;

	if (len < 5 || (strcmp(path + len - 5, "-prog") && strcmp(path + len - 5, "-link")))
		return 0;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (!strcmp(path + len - 5, "-link")) {
		struct bpf_link_info li = { 0 };
		__u32 ilen = sizeof(li);

		if (!bpf_obj_get_info_by_fd(fd, &li, &ilen))
			id = li.prog_id;
	} else {
		struct bpf_prog_info pi = { 0 };
		__u32 ilen = sizeof(pi);

		if (!bpf_obj_get_info_by_fd(fd, &pi, &ilen))
			id = pi.id;
	}
	close(fd);
	return id;
}

static bool dir_holds(const struct dispatch_dir *d, __u32 id)
{
	for (int i = 0; i < d->n; i++)
		if (d->prog[i] == id)
			return true;
	return false;
}

/* The programs the pins in libxdp's directory d hold. */
static void dir_read(const char *root, struct dispatch_dir *d)
{
	char path[LEFTOVER_PATH];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%s", root, d->name);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)) && d->n < LEFTOVER_PROGS) {
		__u32 id;

		if (de->d_type == DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", root, d->name, de->d_name);
		id = pin_prog_id(path);
		if (id && !dir_holds(d, id))
			d->prog[d->n++] = id;
	}
	closedir(dir);
}

/* libxdp's directories of ifindex, and the programs each holds. How many. */
static int dirs_read(const char *root, int ifindex, struct dispatch_dir *out)
{
	struct dirent *de;
	DIR *dir = opendir(root);
	int n = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir)) && n < LEFTOVER_DIRS) {
		char again[64];
		int dir_ifindex;
		__u32 disp;

		/* Exactly libxdp's name: nothing else is taken for one. */
		if (de->d_type != DT_DIR ||
		    sscanf(de->d_name, "dispatch-%d-%u", &dir_ifindex, &disp) != 2 ||
		    dir_ifindex != ifindex)
			continue;
		snprintf(again, sizeof(again), "dispatch-%d-%u", dir_ifindex, disp);
		if (strcmp(again, de->d_name))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(out[n].name, again, sizeof(again)); /* the same name */
		out[n].disp_id = disp;
		dir_read(root, &out[n]);
		n++;
	}
	closedir(dir);
	return n;
}

/* Is program id linked (a tracing link: an extension in a slot) into one
 * of the programs attached here? The kernel names a link's target from
 * Linux 5.13 (5.10 cannot load xdpong as an extension anyway). */
static bool linked_here(__u32 id, const struct attached_here *h)
{
	__u32 link_id = 0;
	bool found = false;

	while (!found && !bpf_link_get_next_id(link_id, &link_id)) {
		struct bpf_link_info li = { 0 };
		__u32 len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(link_id);

		if (fd < 0)
			continue;
		found = !bpf_obj_get_info_by_fd(fd, &li, &len) &&
			li.type == BPF_LINK_TYPE_TRACING && li.prog_id == id &&
			attached(h, li.tracing.target_obj_id);
		close(fd);
	}
	return found;
}

/* Is program id on the interface still: attached alone, or in the
 * dispatcher attached there (its pins, or the kernel's links)? */
static bool still_here(__u32 id, const struct attached_here *h, const struct dispatch_dir *d, int n)
{
	if (attached(h, id))
		return true;
	for (int i = 0; i < n; i++)
		if (attached(h, d[i].disp_id) && dir_holds(&d[i], id))
			return true;
	return linked_here(id, h);
}

/* Is program id an xdpong loaded for ifindex in this network namespace,
 * as its .rodata says? */
static bool xdpong_of_here(__u32 id, int ifindex, __u32 ino)
{
	struct bpf_prog_info pi = { 0 };
	struct xdpong_bpf__rodata ro;
	struct attachment t;
	__u32 len = sizeof(pi);
	int fd = bpf_prog_get_fd_by_id(id), e;
	bool ours;

	if (fd < 0)
		return false;
	ours = !bpf_obj_get_info_by_fd(fd, &pi, &len) && !strcmp(pi.name, "xdpong");
	close(fd);
	if (!ours || attachment_of_prog(id, &t))
		return false;
	/* -EPROTO: another build, lacking some of our fields (left zero). */
	e = rodata_read(&t, &ro);
	attachment_close(&t);
	return (!e || e == -EPROTO) && ino && ro.cfg_netns_ino == ino &&
	       ro.cfg_ifindex == (__u32)ifindex;
}

/* Remove libxdp's directory as xdp_multiprog__unpin does: the links, the
 * programs, the directory. 0, -errno. */
static int dir_remove(const char *root, const char *name)
{
	char path[LEFTOVER_PATH];
	struct dirent *de;
	int e = 0;

	for (int pass = 0; pass < 2; pass++) {
		DIR *dir;

		snprintf(path, sizeof(path), "%s/%s", root, name);
		dir = opendir(path);
		if (!dir)
			return -errno;
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name);
			bool link = len > 5 && !strcmp(de->d_name + len - 5, "-link");

			if (de->d_type == DT_DIR || link != !pass)
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", root, name, de->d_name);
			if (unlink(path) && errno != ENOENT && !e)
				e = -errno;
		}
		closedir(dir);
	}
	snprintf(path, sizeof(path), "%s/%s", root, name);
	if (rmdir(path) && !e)
		e = -errno;
	return e;
}

/* Wait until the programs ids[] have left the kernel (the last holder was
 * a removed pin), or LEFTOVER_WAIT_MS have passed: something else holds
 * them then, and they are no leftovers of ours to go on with. */
static void wait_gone(const __u32 *ids, int n)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };

	for (int waited = 0; waited < LEFTOVER_WAIT_MS; waited += 10) {
		bool any = false;

		for (int i = 0; i < n && !any; i++) {
			int fd = bpf_prog_get_fd_by_id(ids[i]);

			any = fd >= 0;
			if (fd >= 0)
				close(fd);
		}
		if (!any)
			return;
		nanosleep(&pause, NULL);
	}
}

int leftovers_release(const char *ifname, int ifindex, __u32 prog_id)
{
	struct dispatch_dir *d = calloc(LEFTOVER_DIRS, sizeof(*d));
	char root[LEFTOVER_ROOT], path[LEFTOVER_PATH];
	__u32 gone[LEFTOVER_DIRS * LEFTOVER_PROGS], ino = netns_ino();
	struct attached_here h = { 0 };
	struct link_info li;
	int lock, n = 0, removed = 0, n_gone = 0, e;

	/* Without CAP_SYS_ADMIN xdpong never joins a dispatcher, and cannot
	 * ask whose a leftover is: left to a run that can. */
	if (!privs_by_id) {
		free(d);
		return 0;
	}
	if (!d)
		return -ENOMEM;
	libxdp_dir(root, sizeof(root));
	/* libxdp's lock (xdp_lock_acquire): flock on its directory. No libxdp
	 * call may be made while it is held: libxdp would wait for it. */
	lock = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock >= 0 && flock(lock, LOCK_EX)) {
		e = -errno;
		goto out;
	}
	e = link_get(NULL, ifindex, &li);
	if (e)
		goto out; /* -ENODEV: gone from here (see above) */
	attached_add(&h, li.xdp_prog_id);
	attached_add(&h, li.xdp_drv_prog_id);
	attached_add(&h, li.xdp_skb_prog_id);
	attached_add(&h, li.xdp_hw_prog_id);
	if (lock >= 0)
		n = dirs_read(root, ifindex, d);
	if (prog_id && still_here(prog_id, &h, d, n)) {
		e = -EBUSY;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		__u32 ours[LEFTOVER_PROGS];
		int n_ours = 0;
		bool live = false;

		if (attached(&h, d[i].disp_id))
			continue;
		for (int k = 0; k < d[i].n; k++) {
			__u32 id = d[i].prog[k];

			if (prog_id ? id == prog_id : xdpong_of_here(id, ifindex, ino))
				ours[n_ours++] = id;
		}
		for (int k = 0; k < n_ours && !live; k++)
			live = still_here(ours[k], &h, d, n);
		if (!n_ours || live)
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, d[i].name);
		e = dir_remove(root, d[i].name);
		if (e) {
			log_error("%s: cannot remove %s, which libxdp left when its dispatcher "
				  "(program id %u) was detached by other means: %s",
				  ifname, path, d[i].disp_id, strerror(-e));
			continue;
		}
		removed++;
		log_note("%s: removed %s, libxdp's pins of dispatcher id %u: it was detached "
			 "without libxdp, and they kept xdpong program id %u and its maps alive",
			 ifname, path, d[i].disp_id, ours[0]);
		for (int k = 0; k < n_ours; k++)
			gone[n_gone++] = ours[k];
	}
	e = removed;
out:
	if (lock >= 0)
		close(lock); /* the lock goes with it */
	free(d);
	/* Another's leftovers: gone from the kernel before the caller looks
	 * at the maps they used. Our own: held by us until we exit. */
	if (!prog_id && n_gone)
		wait_gone(gone, n_gone);
	return e;
}
