// SPDX-License-Identifier: GPL-2.0
/* xdpong addr: change or list the prefixes an attached xdpong answers for. */
#include <limits.h>
#include <errno.h>
#include <string.h>
#include <json-c/json.h>
#include "cmd.h"

static int addr_list(const struct attachment *a, bool json)
{
	struct json_object *o;

	if (!json) {
		printf("%s: xdpong answers for\n", a->li.name);
		addr_print_text(stdout, a);
		return 0;
	}
	o = json_object_new_object();
	json_object_object_add(o, "iface", json_object_new_string(a->li.name));
	json_object_object_add(o, "addresses", json_addresses(a));
	return json_print(stdout, o) ? 1 : 0;
}

/* The refusal of a prefix its family's full map has no room for. */
static void addr_full(const struct attachment *a, const struct prefix *p, const char *text)
{
	bool v4 = p->family == AF_INET;
	__u32 max = 0;

	addr_map_room(a->map_fd[v4 ? MAP_ADDR4 : MAP_ADDR6], NULL, &max);
	log_error("%s: cannot add %s: the %s address map is full (%u prefixes); attach with "
		  "--max-prefixes N (or max-prefixes = N in the config file) for room for more",
		  a->li.name, text, v4 ? "IPv4" : "IPv6", max);
}

static int addr_main(const struct opts *o)
{
	const char *verb = o->n_args > 1 ? o->args[1] : "";
	bool add = !strcmp(verb, "add"), list = !strcmp(verb, "list");
	struct attachment a;
	bool mirrored = false;
	int ret, rc = 0;

	if (o->n_args < 2) {
		log_error("missing command (usage: xdpong addr %s)", cmd_addr.synopsis);
		return EXIT_USAGE;
	}
	if (!add && !list && strcmp(verb, "del")) {
		log_error("unknown addr command '%s' (expected add, del or list)", verb);
		return EXIT_USAGE;
	}
	if (list && o->n_args > 2) {
		log_error("unexpected argument '%s' (usage: xdpong addr IFACE list [--json])",
			  o->args[2]);
		return EXIT_USAGE;
	}
	if (!list && o->n_args < 3) {
		log_error("missing PREFIX (usage: xdpong addr IFACE %s PREFIX...)", verb);
		return EXIT_USAGE;
	}
	/* Validate every prefix before changing anything. */
	for (int i = 2; i < o->n_args; i++) {
		struct prefix p;

		if (prefix_parse(o->args[i], &p)) {
			log_error("invalid PREFIX '%s': expected ADDR or ADDR/LEN, IPv4 or IPv6",
				  o->args[i]);
			return EXIT_USAGE;
		}
	}
	if (attachment_open(o->args[0], &a))
		return 1;
	if (list) {
		rc = addr_list(&a, o->json);
		goto out;
	}
	for (int i = 2; i < o->n_args; i++) {
		struct prefix p;
		char buf[64];

		prefix_parse(o->args[i], &p);
		prefix_mask(&p);
		prefix_str(&p, buf, sizeof(buf));
		mirrored |= addr_map_mirrored(a.map_fd[MAP_ADDR4], a.map_fd[MAP_ADDR6], &p);
		if (add)
			ret = addr_map_put(a.map_fd[MAP_ADDR4], a.map_fd[MAP_ADDR6], &p,
					   XDPONG_ADDR_OPERATOR);
		else
			ret = addr_map_del(a.map_fd[MAP_ADDR4], a.map_fd[MAP_ADDR6], &p);
		if (ret == -ENOENT) {
			log_error("%s: %s is not in the address map (see 'xdpong addr %s list')",
				  a.li.name, buf, a.li.name);
			rc = 1;
		} else if (ret == -ENOSPC) {
			addr_full(&a, &p, buf);
			rc = 1;
		} else if (ret) {
			log_error("%s: cannot %s %s: %s", a.li.name, verb, buf, strerror(-ret));
			rc = 1;
		} else {
			printf("xdpong: %s: %s %s\n", a.li.name,
			       add ? "answering for" : "no longer answering for", buf);
		}
	}
	/* An interface address overwritten or deleted by hand: the lists
	 * follow (one walk of the maps, so only then). */
	ret = 0;
	if (mirrored)
		ret = addr_own_sync(a.map_fd[MAP_ADDR4], a.map_fd[MAP_ADDR6], a.map_fd[MAP_BSS]);
	if (ret) {
		log_error("%s: cannot update the program's address lists: %s", a.li.name,
			  strerror(-ret));
		rc = 1;
	}
out:
	attachment_close(&a);
	return rc;
}

const struct cmd_def cmd_addr = {
	.id = CMD_ADDR,
	.name = "addr",
	.synopsis = "IFACE add|del PREFIX... | IFACE list [--json]",
	.min_args = 1,
	.max_args = INT_MAX,
	.iface_arg = true,
	.summary = "change or list the prefixes an attached xdpong answers for",
	.description = "Change the prefixes the xdpong attached to IFACE answers for, without\n"
		       "reattaching. Added prefixes are the operator's: address changes on the\n"
		       "interface never remove them. Deleting an interface address lasts until\n"
		       "'xdpong run' sees the interface's addresses change.",
	.examples = "  xdpong addr eth0 add 192.0.2.0/24 2001:db8:1::/48\n"
		    "  xdpong addr eth0 del 192.0.2.0/24\n"
		    "  xdpong addr eth0 list\n",
	.run = addr_main,
};
