// SPDX-License-Identifier: GPL-2.0
/* What load_up did, said once it is done (phase 8), and the maps pinned. */
#include <stdio.h>
#include <xdp/libxdp.h>
#include "up.h"
#include "bringup.h"

/* Pins are for bpftool; a failure here is said, and changes nothing else.
 * Whether the maps are pinned. */
static bool pins_refresh(const struct attachment *lv, __u32 old_stats_id)
{
	if (bpffs_ensure())
		goto not_pinned;
	/* An earlier xdpong whose dispatcher was detached without libxdp
	 * (`ip link set dev IFACE xdp off`, then a kill -9 or a watchdog's
	 * restart) is held by libxdp's pins alone, and would keep its maps'
	 * pins in use: they go first (leftover.c), its counters with them. */
	leftovers_release(lv->li.name, lv->li.ifindex, 0);
	if (pins_prepare(lv->li.name, old_stats_id))
		goto not_pinned;
	pins_remove(lv->li.name); /* the old program's, or none */
	if (!pins_create(lv->li.name, lv->map_fd)) {
		if (txwatch_pin(lv))
			log_note("%s: the XDP_TX failure count is not pinned: it stops when this "
				 "process exits",
				 lv->li.name);
		return true;
	}
	pins_remove(lv->li.name);
not_pinned:
	log_note("%s: maps not pinned: every xdpong command still finds them through the attached "
		 "program",
		 lv->li.name);
	return false;
}

/* Where xdpong sits in the dispatcher's chain, said in one line. */
static void chain_report(const struct link_info *li, __u32 prog_id)
{
	struct chain_info c;
	char list[512];
	size_t len = 0;
	int pos;

	if (chain_query(li->ifindex, &c) || !c.dispatcher)
		return;
	pos = chain_position(&c, prog_id);
	list[0] = 0;
	for (int i = 0; i < c.n && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s (id %u, priority %u)",
				i ? ", " : "", c.p[i].name, c.p[i].id, c.p[i].priority);
	if (pos >= 0)
		log_note("%s: runs in libxdp's dispatcher (program id %u), %d of %d, at priority "
			 "%u: %s",
			 li->name, c.dispatcher_id, pos + 1, c.n, c.p[pos].priority, list);
}

/* 8. Pins, and what was done, said. */
void up_report(struct bringup *b)
{
	struct attachment *lv = b->lv;
	const struct link_info *li = &lv->li;
	char dir[256];
	bool pinned = pins_refresh(lv, b->have_old ? b->old.map_id[MAP_STATS] : 0);

	pin_dir(li->name, dir, sizeof(dir));
	/* attach's result goes to stdout; run's stdout is for its samples. */
	fprintf(b->o->cmd == CMD_RUN ? stderr : stdout,
		"xdpong: attached to %s in %s mode (program id %u), answering for %d IPv4 and %d "
		"IPv6 prefixes%s%s\n",
		li->name, lv->mode, lv->prog_id, b->n4, b->n6, pinned ? "; maps pinned in " : "",
		pinned ? dir : "");
	btfstore_prune(lv, false); /* what no map of it names any more */
	if (b->have_old)
		log_note("%s: took over from program id %u%s: %d of its maps kept as they are, the "
			 "rest carried over by name",
			 li->name, b->old.prog_id,
			 !b->share && (b->old.dispatcher || (int)b->mode != b->old.xdp_mode) ?
				 " (with the gap said above)" :
				 " without a gap",
			 b->tk.n_reused);
	if (b->have_old && (b->room[0] != b->old_room[0] || b->room[1] != b->old_room[1]))
		log_note("%s: the address maps now hold %u IPv4 and %u IPv6 prefixes (were %u and "
			 "%u), every entry carried over",
			 li->name, b->room[0], b->room[1], b->old_room[0], b->old_room[1]);
	if (lv->dispatcher)
		chain_report(li, lv->prog_id);
	if (!b->n4 && !b->n6 && !b->tk.reused[MAP_ADDR4] && !b->tk.reused[MAP_ADDR6])
		log_note("%s: no addresses to answer for: every ping goes to the kernel (add some "
			 "with --addr)",
			 li->name);
	fflush(stdout);
}
