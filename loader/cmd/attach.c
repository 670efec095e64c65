// SPDX-License-Identifier: GPL-2.0
/* xdpong attach: load, attach and leave it running. */
#include "cmd.h"

static int attach_main(const struct opts *o)
{
	struct attachment a;

	if (load_up(o->args[0], o, &a))
		return 1;
	load_down(&a, false); /* the program stays attached */
	return 0;
}

const struct cmd_def cmd_attach = {
	.id = CMD_ATTACH,
	.name = "attach",
	.synopsis = "IFACE [options]",
	.min_args = 1,
	.max_args = 1,
	.iface_arg = true,
	.summary = "load and attach, fill the address map, pin the maps",
	.description = "Load xdpong, fill its address map with IFACE's addresses (and --addr\n"
		       "prefixes), attach it to IFACE and pin its maps under " PIN_ROOT "/IFACE/.\n"
		       "The program stays attached when the command exits.",
	.examples = "  xdpong attach eth0\n"
		    "  xdpong attach eth0 --mode skb --addr 198.51.100.0/24\n"
		    "  xdpong attach veth0 --force --rate-limit 100:20\n",
	.run = attach_main,
};
