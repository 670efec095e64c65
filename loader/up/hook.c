// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP hook: a loaded xdpong put on the interface (alone, or through
 * libxdp's dispatcher; native, else skb), swapped for an old one, and
 * programs taken off it by id. load.c's phase 7 and chain.c's takeover
 * call these; they decide nothing (checks.c does), they only act and say
 * how it failed.
 */
#include <errno.h>
#include <string.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "up.h"
#include "bringup.h"

/* Without CAP_SYS_ADMIN libxdp cannot be used at all (it reads the
 * program's BTF by id): the program alone, through netlink. */
static int attach_alone(const struct attachment *lv, int mode)
{
	return bpf_xdp_attach(lv->li.ifindex, lv->prog_fd,
			      XDP_FLAGS_UPDATE_IF_NOEXIST | mode_flag(mode), NULL) ?
		       -errno :
		       0;
}

/* lv's program as libxdp's (lv->loaded->prog), made once. 0 or -errno, unsaid. */
static int prog_handle(struct attachment *lv)
{
	int e;

	if (lv->loaded->prog)
		return 0;
	lv->loaded->prog = xdp_program__from_fd(lv->prog_fd);
	e = libxdp_get_error(lv->loaded->prog);
	if (e)
		lv->loaded->prog = NULL;
	return e;
}

int hook_attach(struct attachment *lv, int mode)
{
	int e;

	/* A program bound to the device (--stamp-driver) never goes where
	 * libxdp might try its dispatcher first: netlink, alone. */
	if (!privs_by_id || lv->loaded->bound)
		return attach_alone(lv, mode);
	e = prog_handle(lv);
	return e ?: xdp_program__attach(lv->loaded->prog, lv->li.ifindex, mode, 0);
}

int hook_detach_id(int ifindex, __u32 prog_id, int mode)
{
	struct xdp_program *p;
	int e;

	/* Without CAP_SYS_ADMIN libxdp cannot look: the kernel detaches
	 * whatever is attached in that mode (found by pins: ours, alone). */
	if (!privs_by_id)
		return bpf_xdp_detach(ifindex, mode_flag(mode), NULL) ? -errno : 0;
	p = xdp_program__from_id(prog_id);
	e = libxdp_get_error(p);
	if (e)
		return e;
	e = xdp_program__detach(p, ifindex, mode, 0);
	xdp_program__close(p);
	return e;
}

/* --force on a foreign program: take it down (a gap: it is not ours). */
int hook_detach_foreign(const struct link_info *li, __u32 prog_id)
{
	struct xdp_multiprog *mp;
	int ret;

	/* Without CAP_SYS_ADMIN libxdp cannot look: the kernel detaches. */
	if (!privs_by_id) {
		ret = bpf_xdp_detach(li->ifindex, mode_flag(attached_mode(li)), NULL) ? -errno : 0;
		goto said;
	}
	mp = xdp_multiprog__get_from_ifindex(li->ifindex);
	ret = libxdp_get_error(mp);
	if (!ret) {
		ret = xdp_multiprog__detach(mp);
		xdp_multiprog__close(mp);
	}
said:
	if (ret)
		return log_error("cannot detach program id %u from %s: %s", prog_id, li->name,
				 strerror(-ret));
	log_note("%s: detached XDP program id %u (--force)", li->name, prog_id);
	return 0;
}

const char *attach_hint(int e, enum xdp_attach_mode mode)
{
	if (mode == XDP_MODE_NATIVE && (e == EOPNOTSUPP || e == EINVAL))
		return " (the driver has no native XDP; try --mode skb)";
	if (e == EBUSY || e == EEXIST)
		return " (another XDP program is attached; use --force)";
	if (e == EPERM)
		return " (needs CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN)";
	if (e == ERANGE)
		return " (the MTU is too large for XDP on this driver)";
	if (e == E2BIG || e == EACCES)
		return " (the kernel's verifier rejected the program; 'xdpong -vv attach ...' "
		       "prints its log)";
	return "";
}

/*
 * The loaded program handed to libxdp (hook_attach): alone, or into the
 * dispatcher if it is an extension. Auto mode: native, else skb. 0 or
 * -errno, unsaid.
 */
int attach_auto(struct attachment *lv, enum xdp_attach_mode *mode)
{
	int e;

	if (*mode != XDP_MODE_UNSPEC)
		return hook_attach(lv, *mode);
	*mode = XDP_MODE_NATIVE;
	e = hook_attach(lv, *mode);
	/* Only "the driver cannot": any other error is reported as is. */
	if (e == -EOPNOTSUPP || e == -EINVAL || e == -ERANGE) {
		log_note("%s: native XDP not available (%s); using skb mode", lv->li.name,
			 strerror(-e));
		*mode = XDP_MODE_SKB;
		e = hook_attach(lv, *mode);
	}
	return e;
}

/* Attach a loaded program where nothing of ours is: libxdp, native else skb. */
int attach_fresh(struct attachment *lv, enum xdp_attach_mode *mode)
{
	struct link_info *li = &lv->li;
	int e;

	/* Without CAP_SYS_ADMIN libxdp cannot read the program (its BTF by
	 * id): hook_attach attaches it alone through netlink. */
	e = privs_by_id ? prog_handle(lv) : 0;
	if (e)
		return log_error("%s: cannot hand the program to libxdp: %s", li->name,
				 strerror(-e));
	e = attach_auto(lv, mode);
	if (e)
		return log_error("failed to attach to %s in %s mode: %s%s", li->name,
				 mode_name(*mode), strerror(-e), attach_hint(-e, *mode));
	return 0;
}

/*
 * Put the new program where the old xdpong is, in one step: the kernel
 * swaps them (XDP_FLAGS_REPLACE) only if the old one is still there, so
 * not one packet meets no program. Through libxdp's dispatcher, or into
 * another mode, there is no such swap: detach, then attach.
 */
int attach_replace(struct attachment *lv, const struct attachment *old, enum xdp_attach_mode *mode)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = old->prog_fd);
	struct link_info *li = &lv->li;
	/* Found by its pins (no CAP_SYS_ADMIN), the old program has no
	 * descriptor here: the kernel still swaps the two in one step, and the
	 * owner lock keeps any other xdpong from changing it meanwhile. */
	__u32 replace = old->prog_fd >= 0 ? XDP_FLAGS_REPLACE : 0;
	int e;

	if (!old->dispatcher && (int)*mode == old->xdp_mode) {
		if (bpf_xdp_attach(li->ifindex, lv->prog_fd, replace | mode_flag(*mode),
				   replace ? &opts : NULL))
			return log_error("cannot replace program id %u on %s: %s%s", old->prog_id,
					 li->name, strerror(errno), attach_hint(errno, *mode));
		return 0;
	}
	log_note("%s: %s: the old program (id %u) is detached before the new one attaches, so "
		 "pings in between go to the kernel",
		 li->name,
		 old->dispatcher ? "attached through libxdp's dispatcher" : "changing mode",
		 old->prog_id);
	e = hook_detach_id(li->ifindex, old->prog_id, old->xdp_mode);
	if (e)
		return log_error("cannot detach program id %u from %s: %s", old->prog_id, li->name,
				 strerror(-e));
	return attach_fresh(lv, mode);
}

/*
 * Into libxdp's dispatcher: the one there, or a new one. Auto mode tries
 * native, then skb, as attach_fresh does. 0, -1 said, or 1: libxdp could
 * not build a dispatcher here, and nothing else is on the interface.
 */
int attach_shared(struct bringup *b)
{
	struct link_info *li = &b->lv->li;
	int e = attach_auto(b->lv, &b->mode);

	if (!e)
		return 0;
	/* libxdp says EOPNOTSUPP where it cannot build a dispatcher, and the
	 * kernel EINVAL where libxdp then attaches the extension alone. */
	if (!b->foreign && (e == -EOPNOTSUPP || e == -EINVAL)) {
		snprintf(b->alone_why, sizeof(b->alone_why),
			 "libxdp could not build a dispatcher here (%s)", strerror(-e));
		return 1;
	}
	return log_error("failed to attach to %s through libxdp's dispatcher in %s mode: %s%s",
			 li->name, mode_name(b->mode), strerror(-e), attach_hint(-e, b->mode));
}
