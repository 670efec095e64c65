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
#include "up.h"
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
	struct bpf_program *prog = lv->loaded->skel->progs.xdpong;
	struct anchor_bpf *anchor;
	int e;

	anchor = anchor_load();
	if (!anchor)
		return -errno;
	lv->loaded->anchor = anchor;
	e = bpf_program__set_type(prog, BPF_PROG_TYPE_EXT);
	e = e ?: bpf_program__set_expected_attach_type(prog, 0);
	e = e     ?:
		    bpf_program__set_attach_target(
			    prog, bpf_program__fd(anchor->progs.xdpong_anchor), "xdpong_slot");
	/* Multi-buffer is the dispatcher's to declare (libxdp does so only for
	 * components it loaded itself): an extension carries no frags flag. */
	e = e ?: bpf_program__set_flags(prog, bpf_program__flags(prog) & ~BPF_F_XDP_HAS_FRAGS);
	e = e ?: chain_run_config_add(lv->loaded->skel->obj, priority);
	return e;
}

void chain_anchor_free(struct attachment *a)
{
	anchor_bpf__destroy(a->loaded->anchor);
	a->loaded->anchor = NULL;
}

int chain_active_set(int fd, __u64 gen)
{
	__u32 key = 0;

	return bpf_map_update_elem(fd, &key, &gen, BPF_ANY) ? -errno : 0;
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
