// SPDX-License-Identifier: GPL-2.0
/* xdpong detach: take xdpong off an interface; the kernel answers again. */
#include <errno.h>
#include <string.h>
#include <linux/if_link.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "cmd.h"

static void detach_stale(const struct link_info *li, int mode)
{
	struct chain_info c;

	if (chain_query(li->ifindex, &c))
		return;
	for (int i = 0; i < c.n; i++)
		if (c.p[i].xdpong && !hook_detach_id(li->ifindex, c.p[i].id, mode))
			log_note("%s: also removed program id %u, an xdpong a killed takeover left "
				 "in the dispatcher",
				 li->name, c.p[i].id);
}

static int detach_main(const struct opts *o)
{
	const char *ifname = o->args[0];
	struct attachment a;
	struct link_info li;
	__u32 other = 0;
	int ret;

	if (require_privileges(PRIVS_DETACH))
		return 1;
	if (link_get(ifname, 0, &li)) {
		int removed = pins_release(ifname, 0);

		if (removed) {
			printf("xdpong: %s is gone; removed its %d stale pins\n", ifname, removed);
			return 0;
		}
		iface_lookup(ifname, &li); /* it failed above: this explains why */
		return 1;
	}
	ret = attachment_find(li.ifindex, &a, &other);
	if (attachment_said(ret, &li))
		return 1;
	if (ret == -ENOENT) {
		/* Detached without libxdp (ip link set dev IFACE xdp off) from
		 * its dispatcher: libxdp's leftovers hold it, and its pins. */
		leftovers_release(li.name, li.ifindex, 0);
		pins_release(li.name, 0);
		if (other)
			log_error("%s has XDP program id %u, which is not xdpong; not touching it",
				  li.name, other);
		else
			log_error("%s: xdpong is not attached here ('xdpong status' shows where it "
				  "is)",
				  li.name);
		return 1;
	}
	if (ret) {
		log_error("cannot inspect the XDP program on %s: %s", li.name, strerror(-ret));
		return 1;
	}
	/* Without CAP_SYS_ADMIN xdpong is alone (attachment.c found it by its
	 * pins), and the kernel detaches it. */
	ret = hook_detach_id(li.ifindex, a.prog_id, a.xdp_mode);
	/* In a dispatcher, any other xdpong too: one a killed takeover left
	 * there, stood down. */
	if (!ret && a.dispatcher)
		detach_stale(&li, a.xdp_mode);
	if (!ret) {
		leftovers_release(li.name, li.ifindex, 0);
		pins_release(li.name, a.map_id[MAP_STATS]);
		btfstore_prune(&a, true);
	}
	attachment_close(&a);
	if (ret) {
		log_error("failed to detach xdpong (program id %u) from %s: %s%s", a.prog_id,
			  li.name, strerror(-ret),
			  a.dispatcher && !chain_possible_bpffs() ? " (it is in libxdp's "
								    "dispatcher, whose links are "
								    "pins in a bpffs this "
								    "command cannot see: run it "
								    "through 'nsenter "
								    "--net=/run/netns/NAME' "
								    "rather than 'ip netns exec')" :
								    "");
		return 1;
	}
	printf("xdpong: detached from %s (program id %u); the kernel answers pings again\n",
	       li.name, a.prog_id);
	return 0;
}

const struct cmd_def cmd_detach = {
	.id = CMD_DETACH,
	.name = "detach",
	.synopsis = "IFACE",
	.min_args = 1,
	.max_args = 1,
	.iface_arg = true,
	.summary = "detach and remove the pins; the kernel answers again",
	.description = "Detach xdpong from IFACE and remove its pins; the kernel answers pings\n"
		       "again. Refuses to touch an XDP program that is not xdpong. If IFACE is\n"
		       "gone, removes the pins it left.",
	.examples = "  xdpong detach eth0\n"
		    "  ip netns exec lab xdpong detach veth0\n",
	.run = detach_main,
};
