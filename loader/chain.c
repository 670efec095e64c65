// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing the interface: xdpong as one program in libxdp's dispatcher, the
 * way the XDP tools share one (xdp-filter, xdp-loader, Suricata's AF_XDP).
 *
 * The dispatcher is an XDP program that calls its component programs in
 * turn, by priority (lower first); each is an extension program linked
 * into one of its slots, and a component's XDP_PASS goes on to the next
 * (its run configuration says so; any other action ends the chain).
 *
 * libxdp 1.3 links an extension only if it loads it itself, or if it is
 * already loaded as one. xdpong loads its own (so its maps are filled
 * before it sees a packet, as everywhere else): verified against an anchor
 * of the same signature (bpf/anchor.bpf.c), its run configuration written
 * into its BTF, where libxdp reads it back from the loaded program. Then
 * libxdp builds a new dispatcher with it and the programs already there,
 * and swaps it in atomically.
 *
 * A takeover inside the chain: libxdp has no call that replaces one
 * program in it, so the new xdpong is added next to the old and the old
 * removed after. While both are there, one word that both read
 * (xdpong_active) says which acts: the other passes every frame on, uncounted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/random.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "loader.h"
#include "xdpong.skel.h"
#include "anchor.skel.h"

/* libxdp's environment: its off switch (its bpffs: LIBXDP_BPFFS_ENV). */
#define LIBXDP_SKIP_ENV "LIBXDP_SKIP_DISPATCHER"

/* The anchor, loaded: its XDP program only (the probe needs a target). */
static struct anchor_bpf *anchor_load(void)
{
	struct anchor_bpf *a = anchor_bpf__open();

	if (!a)
		return NULL;
	bpf_program__set_autoload(a->progs.xdpong_probe, false);
	if (anchor_bpf__load(a)) {
		int e = errno;

		anchor_bpf__destroy(a);
		errno = e;
		return NULL;
	}
	return a;
}

/* Whether the kernel loads an extension program: 0, or the -errno of its
 * refusal. Asked once per process. */
static int ext_probe(void)
{
	static int result = 1;
	struct anchor_bpf *target, *probe = NULL;

	if (result <= 0)
		return result;
	target = anchor_load();
	if (!target)
		return result = -errno;
	probe = anchor_bpf__open();
	if (!probe) {
		result = -errno;
	} else {
		bpf_program__set_autoload(probe->progs.xdpong_anchor, false);
		result = bpf_program__set_attach_target(
			probe->progs.xdpong_probe, bpf_program__fd(target->progs.xdpong_anchor),
			"xdpong_slot");
		result = result ?: anchor_bpf__load(probe);
	}
	anchor_bpf__destroy(probe);
	anchor_bpf__destroy(target);
	return result;
}

bool chain_possible_bpffs(void)
{
	const char *dir = getenv(LIBXDP_BPFFS_ENV);
	struct statfs st;

	if (!dir)
		dir = BPFFS_ROOT;
	return !statfs(dir, &st) && st.f_type == BPF_FS_MAGIC &&
	       !(bpffs_mounted_here && !strcmp(dir, BPFFS_ROOT));
}

enum chain_way chain_possible(char *why, size_t size)
{
	const char *skip = getenv(LIBXDP_SKIP_ENV);
	const char *dir = getenv(LIBXDP_BPFFS_ENV);
	int e;

	if (!privs_by_id) {
		snprintf(why, size,
			 "sharing an interface in libxdp's dispatcher needs CAP_SYS_ADMIN, which "
			 "this process lacks (libxdp finds the dispatcher by program id)");
		return CHAIN_NO_ADMIN;
	}
	if (skip && !strcmp(skip, "1")) {
		snprintf(why, size, "%s=1 is set", LIBXDP_SKIP_ENV);
		return CHAIN_SKIPPED;
	}
	if (!dir)
		dir = BPFFS_ROOT;
	/* libxdp keeps the links that hold each program in the chain as pins
	 * there. A bpffs mounted for this command alone (a fresh `ip netns
	 * exec` has none) would take xdpong out of the chain when it exits,
	 * so xdpong never mounts one for libxdp. */
	if (!chain_possible_bpffs()) {
		snprintf(why, size,
			 "there is no bpffs at %s for libxdp to keep the dispatcher's links in "
			 "(under 'ip netns exec' each command has its own /sys: enter the "
			 "namespace with 'nsenter --net=/run/netns/NAME' instead)",
			 dir);
		return CHAIN_NO_BPFFS;
	}
	e = ext_probe();
	if (e) {
		snprintf(why, size,
			 "this kernel refuses the extension programs of libxdp's dispatcher "
			 "(loading one: %s)",
			 strerror(-e));
		return chain_refused(-e) ? CHAIN_REFUSED : CHAIN_ERROR;
	}
	return CHAIN_OK;
}

bool chain_refused(int err)
{
	/* What a kernel without extension programs, or one that forbids them
	 * (lockdown, no trampolines), answers to loading one. */
	return err == EPERM || err == EOPNOTSUPP || err == ENOTSUP || err == 524 /* ENOTSUPP */ ||
	       err == EINVAL;
}

__u64 chain_new_gen(void)
{
	__u64 gen = 0;

	while (!gen)
		if (getrandom(&gen, sizeof(gen), 0) != sizeof(gen))
			gen = (__u64)getpid() << 32 ^ (__u64)time(NULL);
	return gen;
}

/*
 * The run configuration as xdp-tools' XDP_RUN_CONFIG writes it, added to
 * the object's BTF before load: section ".xdp_run_config", variable
 * _xdpong, a struct whose members encode values as array sizes:
 * priority, and XDP_PASS = 1 (go on to the next program).
 */
int chain_run_config_add(struct bpf_object *obj, unsigned int priority)
{
	struct btf *btf = bpf_object__btf(obj);
	int int_id, prio_arr, prio_ptr, one_arr, one_ptr, st, var, sec;

	if (!btf)
		return -ENOENT;
	int_id = btf__find_by_name_kind(btf, "int", BTF_KIND_INT);
	if (int_id < 0)
		int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	prio_arr = btf__add_array(btf, int_id, int_id, priority);
	prio_ptr = btf__add_ptr(btf, prio_arr);
	one_arr = btf__add_array(btf, int_id, int_id, 1);
	one_ptr = btf__add_ptr(btf, one_arr);
	st = btf__add_struct(btf, "_xdpong", 16);
	if (int_id < 0 || prio_arr < 0 || prio_ptr < 0 || one_arr < 0 || one_ptr < 0 || st < 0)
		return -ENOMEM;
	if (btf__add_field(btf, "priority", prio_ptr, 0, 0) ||
	    btf__add_field(btf, "XDP_PASS", one_ptr, 64, 0))
		return -ENOMEM;
	var = btf__add_var(btf, "_xdpong", BTF_VAR_GLOBAL_ALLOCATED, st);
	sec = btf__add_datasec(btf, ".xdp_run_config", 16);
	if (var < 0 || sec < 0 || btf__add_datasec_var_info(btf, var, 0, 16))
		return -ENOMEM;
	return 0;
}

int chain_prepare(struct attachment *lv, unsigned int priority)
{
	struct bpf_program *prog = lv->skel->progs.xdpong;
	struct anchor_bpf *anchor;
	int e;

	anchor = anchor_load();
	if (!anchor)
		return -errno;
	lv->anchor = anchor;
	e = bpf_program__set_type(prog, BPF_PROG_TYPE_EXT);
	e = e ?: bpf_program__set_expected_attach_type(prog, 0);
	e = e     ?:
		    bpf_program__set_attach_target(
			    prog, bpf_program__fd(anchor->progs.xdpong_anchor), "xdpong_slot");
	/* Multi-buffer is the dispatcher's to declare (libxdp does so only for
	 * components it loaded itself): an extension carries no frags flag. */
	e = e ?: bpf_program__set_flags(prog, bpf_program__flags(prog) & ~BPF_F_XDP_HAS_FRAGS);
	e = e ?: chain_run_config_add(lv->skel->obj, priority);
	return e;
}

void chain_anchor_free(struct attachment *a)
{
	anchor_bpf__destroy(a->anchor);
	a->anchor = NULL;
}

int chain_active_set(int fd, __u64 gen)
{
	__u32 key = 0;

	return bpf_map_update_elem(fd, &key, &gen, BPF_ANY) ? -errno : 0;
}

int chain_position(const struct chain_info *c, __u32 prog_id)
{
	for (int i = 0; i < c->n; i++)
		if (c->p[i].id == prog_id)
			return i;
	return -1;
}

/* Whether program new_id runs before old_id in the chain c. */
static bool new_runs_first(const struct chain_info *c, __u32 new_id, __u32 old_id)
{
	int n = chain_position(c, new_id), o = chain_position(c, old_id);

	return n >= 0 && (o < 0 || n < o);
}

int chain_takeover(struct attachment *lv, const struct attachment *old, __u64 old_gen,
		   __u64 new_gen, int mode, struct takeover *tk)
{
	int fd = lv->map_fd[MAP_ACTIVE], e;
	struct bpf_prog_info pi = { 0 };
	__u32 len = sizeof(pi);
	struct chain_info c;

	/* Both generations known, and one word both read: the protocol. An
	 * old build without it goes on acting until it is removed: in that
	 * instant a frame it passes may be counted by both. */
	bool protocol = old_gen && new_gen;

	if (protocol && (e = chain_active_set(fd, old_gen)))
		return log_error("%s: cannot write the chain's active word: %s", lv->li.name,
				 strerror(-e));
	e = hook_attach(lv, mode);
	if (e)
		return log_error("%s: cannot add xdpong to the dispatcher next to program id "
				 "%u: %s",
				 lv->li.name, old->prog_id, strerror(-e));
	/*
	 * Both are in the chain; the old one acts. From the store of the new
	 * generation on, the new one does, and the old passes every frame on.
	 * A frame meets the two in run order: with the old one first, one
	 * that met it just before the store meets the new one just after, and
	 * both act (the old one's reply ends the chain; a frame it passes is
	 * counted by both). With the new one first, such a frame would meet
	 * both stood down and reach the kernel unanswered: so the word goes
	 * through 0 (both act) first.
	 */
	if (bpf_obj_get_info_by_fd(lv->prog_fd, &pi, &len) || chain_query(lv->li.ifindex, &c))
		c.n = 0; /* cannot tell ours from the others: leave them */
	if (protocol && new_runs_first(&c, pi.id, old->prog_id))
		chain_active_set(fd, 0);
	if (protocol && (e = chain_active_set(fd, new_gen)))
		log_note("%s: cannot hand over the chain's active word (%s): both programs act "
			 "until the old one is removed",
			 lv->li.name, strerror(-e));
	takeover_settle(old, lv, tk);
	/* Every other xdpong in the chain goes: the old one, and any a killed
	 * takeover left there. The word goes on naming this one: whatever
	 * stays behind, and the old one's tracepoint links until their pins
	 * go, stand down. */
	if (!c.n)
		log_note("%s: cannot read the dispatcher's programs: program id %u stays in it, "
			 "passing every frame on",
			 lv->li.name, old->prog_id);
	for (int i = 0; i < c.n; i++) {
		if (!c.p[i].xdpong || c.p[i].id == pi.id)
			continue;
		e = hook_detach_id(lv->li.ifindex, c.p[i].id, mode);
		if (e)
			log_note("%s: cannot remove program id %u from the dispatcher (%s): it "
				 "stays, passing every frame on",
				 lv->li.name, c.p[i].id, strerror(-e));
	}
	return 0;
}

/* libxdp's dispatcher configuration (its .rodata), version 2, as
 * <xdp/prog_dispatcher.h> has it. */
#define DISPATCHER_MAGIC 236
struct dispatcher_config {
	__u8 magic;
	__u8 version;
	__u8 num_progs_enabled;
	__u8 is_xdp_frags;
	__u32 chain_call_actions[CHAIN_MAX];
	__u32 run_prios[CHAIN_MAX];
};

static int dispatcher_config_read(__u32 disp_id, struct dispatcher_config *cfg)
{
	struct bpf_prog_info pi = { 0 };
	__u32 len = sizeof(pi), map_id = 0, key = 0;
	struct bpf_map_info mi = { 0 };
	__u32 mlen = sizeof(mi);
	int fd = bpf_prog_get_fd_by_id(disp_id), mfd, e = 0;
	void *val;

	if (fd < 0)
		return -errno;
	pi.nr_map_ids = 1;
	pi.map_ids = (__u64)(unsigned long)&map_id;
	if (bpf_obj_get_info_by_fd(fd, &pi, &len) || !map_id)
		e = -ENOENT;
	close(fd);
	if (e)
		return e;
	mfd = bpf_map_get_fd_by_id(map_id);
	if (mfd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(mfd, &mi, &mlen) || mi.value_size < sizeof(*cfg)) {
		close(mfd);
		return -EPROTO;
	}
	val = calloc(1, mi.value_size);
	if (!val || bpf_map_lookup_elem(mfd, &key, val))
		e = val ? -errno : -ENOMEM;
	else
		memcpy(cfg, val, sizeof(*cfg));
	free(val);
	close(mfd);
	if (!e && cfg->magic != DISPATCHER_MAGIC)
		e = -EPROTO;
	return e;
}

/*
 * The dispatcher's programs where libxdp cannot list them: it reads them
 * from the links it pinned, and a fresh `ip netns exec` has no bpffs. The
 * kernel knows them as the extension links whose target is the
 * dispatcher (Linux 5.13 says the target; 5.10 does not, and the chain
 * stays unlisted there), in slot order; the priorities are in the
 * dispatcher's configuration.
 */
static void chain_from_links(struct chain_info *c)
{
	struct dispatcher_config cfg = { 0 };
	__u32 id = 0, btf_ids[CHAIN_MAX];
	bool have_cfg = !dispatcher_config_read(c->dispatcher_id, &cfg);

	while (!bpf_link_get_next_id(id, &id) && c->n < CHAIN_MAX) {
		struct bpf_link_info li = { 0 };
		struct bpf_prog_info pi = { 0 };
		__u32 len = sizeof(li), plen = sizeof(pi);
		int fd = bpf_link_get_fd_by_id(id), pfd, i;

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &li, &len) || li.type != BPF_LINK_TYPE_TRACING ||
		    li.tracing.target_obj_id != c->dispatcher_id) {
			close(fd);
			continue;
		}
		close(fd);
		pfd = bpf_prog_get_fd_by_id(li.prog_id);
		if (pfd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(pfd, &pi, &plen)) {
			close(pfd);
			continue;
		}
		close(pfd);
		/* In slot order: insertion by the slot function's BTF id. */
		for (i = c->n; i > 0 && btf_ids[i - 1] > li.tracing.target_btf_id; i--) {
			c->p[i] = c->p[i - 1];
			btf_ids[i] = btf_ids[i - 1];
		}
		memset(&c->p[i], 0, sizeof(c->p[i]));
		c->p[i].id = li.prog_id;
		snprintf(c->p[i].name, sizeof(c->p[i].name), "%s", pi.name);
		c->p[i].xdpong = !strcmp(pi.name, "xdpong");
		btf_ids[i] = li.tracing.target_btf_id;
		c->n++;
	}
	for (int i = 0; have_cfg && i < c->n && i < cfg.num_progs_enabled; i++) {
		c->p[i].priority = cfg.run_prios[i];
		c->p[i].pass_continues = cfg.chain_call_actions[i] & (1U << XDP_PASS);
	}
}

/* Without CAP_SYS_ADMIN: what the interface shows, and whether it is the
 * xdpong of the pins (attachment.c); the dispatcher's others stay unseen. */
static int chain_by_pins(int ifindex, struct chain_info *c)
{
	struct attachment a;
	struct chain_prog *p = &c->p[0];
	int e = attachment_find(ifindex, &a, NULL);

	if (e == -ENOENT && !a.li.xdp_prog_id)
		return 0; /* nothing attached */
	if (e && e != -ENOENT && e != -ENOPKG)
		return e;
	c->n = 1;
	c->mode = attached_mode(&a.li);
	p->id = a.li.xdp_prog_id;
	snprintf(p->name, sizeof(p->name), "%s", "unknown");
	if (!e) {
		p->id = a.prog_id;
		p->xdpong = true;
		snprintf(p->name, sizeof(p->name), "%s", "xdpong");
		c->dispatcher = a.dispatcher;
		c->dispatcher_id = a.dispatcher ? a.li.xdp_prog_id : 0;
		attachment_close(&a);
	}
	return 0;
}

int chain_query(int ifindex, struct chain_info *c)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	int e;

	memset(c, 0, sizeof(*c));
	if (!privs_by_id)
		return chain_by_pins(ifindex, c);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	e = libxdp_get_error(mp);
	if (e == -ENOENT || !mp) /* nothing attached */
		return 0;
	if (e)
		return e;
	c->mode = xdp_multiprog__attach_mode(mp);
	c->dispatcher = !xdp_multiprog__is_legacy(mp);
	/* Without its bpffs, libxdp takes its own dispatcher for a program
	 * alone: the kernel knows better (chain_from_links). */
	if (!c->dispatcher && xdp_multiprog__main_prog(mp) &&
	    !strcmp(xdp_program__name(xdp_multiprog__main_prog(mp)), "xdp_dispatcher")) {
		c->dispatcher = true;
		c->dispatcher_id = xdp_program__id(xdp_multiprog__main_prog(mp));
		xdp_multiprog__close(mp);
		chain_from_links(c);
		return 0;
	}
	if (c->dispatcher) {
		c->dispatcher_id = xdp_program__id(xdp_multiprog__main_prog(mp));
		p = xdp_multiprog__next_prog(NULL, mp);
	} else {
		p = xdp_multiprog__main_prog(mp);
	}
	for (; p && c->n < CHAIN_MAX; p = c->dispatcher ? xdp_multiprog__next_prog(p, mp) : NULL) {
		struct chain_prog *cp = &c->p[c->n];

		cp->id = xdp_program__id(p);
		snprintf(cp->name, sizeof(cp->name), "%s", xdp_program__name(p));
		cp->priority = xdp_program__run_prio(p);
		cp->pass_continues = c->dispatcher && xdp_program__chain_call_enabled(p, XDP_PASS);
		cp->xdpong = !strcmp(cp->name, "xdpong");
		c->n++;
	}
	xdp_multiprog__close(mp);
	if (c->dispatcher && !c->n)
		chain_from_links(c);
	return 0;
}
