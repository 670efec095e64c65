// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong status: what is attached where. Read-only, as status commands
 * are in iproute2, bpftool and xdp-loader: stale pins are reported with
 * the command that removes them, never removed here.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <json-c/json.h>
#include "cmd.h"
#include "xdpong.skel.h"

/* Does the MAC the program compares with still belong to the interface? */
static bool mac_current(const struct attachment *a, const struct xdpong_bpf__bss *bss)
{
	struct link_info li;
	__u64 word = 0;

	if (link_get(NULL, a->li.ifindex, &li) || !li.has_mac)
		return true;
	memcpy(&word, li.mac, 6);
	return word == bss->if_mac;
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

/* "3d 4h", "2h 5m", "5m 3s", "42s" */
static const char *duration(long long s, char *buf, size_t size)
{
	if (s >= 86400)
		snprintf(buf, size, "%lldd %lldh", s / 86400, s % 86400 / 3600);
	else if (s >= 3600)
		snprintf(buf, size, "%lldh %lldm", s / 3600, s % 3600 / 60);
	else if (s >= 60)
		snprintf(buf, size, "%lldm %llds", s / 60, s % 60);
	else
		snprintf(buf, size, "%llds", s);
	return buf;
}

static struct json_object *owner_json(const struct owner_info *w, bool owned)
{
	struct json_object *o;

	if (!owned)
		return NULL;
	o = json_object_new_object();
	add(o, "pid", json_object_new_int(w->pid));
	add(o, "since", w->since ? json_object_new_int64(w->since) : NULL);
	add(o, "uptime_s", w->since ? json_object_new_int64(time(NULL) - w->since) : NULL);
	add(o, "version", w->version[0] ? json_object_new_string(w->version) : NULL);
	return o;
}

/* who: owner_query's answer. */
static void owner_text(const struct attachment *a, const struct owner_info *w, int who)
{
	char buf[32];

	if (who && who != -ENOENT) {
		printf("  owner:   cannot tell: %s is not usable (%s; 'xdpong run' says why)\n",
		       OWNER_DIR, strerror(-who));
		return;
	}
	if (who) {
		printf("  owner:   none: left by 'xdpong attach', or by a run that died; the next "
		       "'xdpong run %s' or 'attach' takes it over\n",
		       a->li.name);
		return;
	}
	printf("  owner:   xdpong run, pid %d", w->pid);
	if (w->since)
		printf(", running for %s", duration(time(NULL) - w->since, buf, sizeof(buf)));
	if (w->version[0])
		printf(", version %s", w->version);
	printf("\n");
}

/* The XDP_TX failure count: how many tracepoint links feed it, and it. */
struct tx_state {
	int links; /* TXWATCH_LINKS: counted; -ENOENT: the build has no count */
	__u64 failed;
};

static void tx_text(const struct attachment *a, const struct tx_state *tx)
{
	if (tx->links == -ENOENT)
		return;
	printf("  tx fail: %llu replies not sent by the driver, ", (unsigned long long)tx->failed);
	if (tx->links == TXWATCH_LINKS)
		printf("counted (xdp:xdp_exception, xdp:xdp_bulk_tx)\n");
	else if (!feature_have(FEAT_TXWATCH))
		printf("NOT counted: %s\n", feature_why(FEAT_TXWATCH));
	else
		printf("NOT being counted: %d of the %d tracepoint links live (they are pinned "
		       "beside the maps, and die with them: pins made inside 'ip netns exec' "
		       "vanish with it); 'xdpong attach %s' from where the pins stay restores it\n",
		       tx->links < 0 ? 0 : tx->links, TXWATCH_LINKS, a->li.name);
}

static struct json_object *tx_json(const struct tx_state *tx)
{
	struct json_object *o;

	if (tx->links == -ENOENT)
		return NULL;
	o = json_object_new_object();
	add(o, "counted", json_object_new_boolean(tx->links == TXWATCH_LINKS));
	add(o, "links", json_object_new_int(tx->links < 0 ? 0 : tx->links));
	add(o, "tx_failed", json_object_new_uint64(tx->failed));
	return o;
}

/*
 * What runs on the interface with xdpong (chain.c), read once: err is
 * chain_query's, pos xdpong's index in c (the entry with its program id;
 * -1 if it is not there).
 */
struct chain_state {
	struct chain_info c;
	int err;
	int pos;
};

static void chain_read(const struct attachment *a, struct chain_state *cs)
{
	cs->err = chain_query(a->li.ifindex, &cs->c);
	cs->pos = cs->err ? -1 : chain_position(&cs->c, a->prog_id);
}

/*
 * One line: "alone (no libxdp dispatcher)", or where xdpong runs in the
 * dispatcher and every program in run order. A program before xdpong
 * whose XDP_PASS ends the chain keeps what it passes from xdpong: said.
 */
static void chain_text(const struct chain_state *cs)
{
	const struct chain_info *c = &cs->c;

	printf("  chain:   ");
	if (cs->err) {
		printf("cannot be read: %s\n", strerror(-cs->err));
		return;
	}
	if (!c->dispatcher) {
		printf("alone (no libxdp dispatcher)\n");
		return;
	}
	if (cs->pos >= 0)
		printf("%d of %d in libxdp's dispatcher (program id %u), at priority %u: ",
		       cs->pos + 1, c->n, c->dispatcher_id, c->p[cs->pos].priority);
	else
		printf("not among the %d programs of libxdp's dispatcher (program id %u): ", c->n,
		       c->dispatcher_id);
	for (int i = 0; i < c->n; i++) {
		bool ends = !c->p[i].pass_continues && i < c->n - 1;

		printf("%s%s (id %u, priority %u%s%s)", i ? ", " : "", c->p[i].name, c->p[i].id,
		       c->p[i].priority, i == cs->pos ? ", this one" : "",
		       ends ? ", its XDP_PASS ends the chain" : "");
	}
	printf("\n");
}

/* {"dispatcher", "dispatcher_id", "priority", "position" (from 1),
 * "programs": [{"id", "name", "priority", "xdpong", "pass_continues"}]};
 * priorities are null alone, where they mean nothing. */
static struct json_object *chain_json(const struct chain_state *cs)
{
	const struct chain_info *c = &cs->c;
	struct json_object *o, *progs;
	bool found = cs->pos >= 0;

	if (cs->err)
		return NULL;
	o = json_object_new_object();
	progs = json_object_new_array();
	add(o, "dispatcher", json_object_new_boolean(c->dispatcher));
	add(o, "dispatcher_id", c->dispatcher ? json_object_new_uint64(c->dispatcher_id) : NULL);
	add(o, "priority",
	    c->dispatcher && found ? json_object_new_uint64(c->p[cs->pos].priority) : NULL);
	add(o, "position", found ? json_object_new_int(cs->pos + 1) : NULL);
	for (int i = 0; i < c->n; i++) {
		struct json_object *p = json_object_new_object();

		add(p, "id", json_object_new_uint64(c->p[i].id));
		add(p, "name", json_object_new_string(c->p[i].name));
		add(p, "priority", c->dispatcher ? json_object_new_uint64(c->p[i].priority) : NULL);
		add(p, "xdpong", json_object_new_boolean(c->p[i].xdpong));
		add(p, "pass_continues", json_object_new_boolean(c->p[i].pass_continues));
		json_object_array_add(progs, p);
	}
	add(o, "programs", progs);
	return o;
}

/* How full the address maps are: entries and size, IPv4 then IPv6. */
struct room {
	__u32 used[2], max[2];
	bool ok;
};

static void room_read(const struct attachment *a, struct room *r)
{
	r->ok = !addr_map_room(a->map_fd[MAP_ADDR4], &r->used[0], &r->max[0]) &&
		!addr_map_room(a->map_fd[MAP_ADDR6], &r->used[1], &r->max[1]);
}

static struct json_object *room_json(const struct attachment *a)
{
	struct json_object *o, *f;
	struct room r;

	room_read(a, &r);
	if (!r.ok)
		return NULL;
	o = json_object_new_object();
	for (int i = 0; i < 2; i++) {
		f = json_object_new_object();
		add(f, "used", json_object_new_uint64(r.used[i]));
		add(f, "max", json_object_new_uint64(r.max[i]));
		add(o, i ? "ipv6" : "ipv4", f);
	}
	return o;
}

static void room_text(const struct attachment *a)
{
	struct room r;

	room_read(a, &r);
	if (r.ok)
		printf("  prefixes: IPv4 %u of %u, IPv6 %u of %u (room: --max-prefixes)\n",
		       r.used[0], r.max[0], r.used[1], r.max[1]);
}

/* STAMP: its port and clock as loaded, the clock's state as the kernel
 * says it now, and the Error Estimate the replies carry (.bss). NULL
 * (JSON null) when STAMP is off. */
/* --stamp-driver: the NIC's clock, its offset to UTC as run last wrote it,
 * and where the T2s came from. NULL (null) without it. */
static struct json_object *driver_json(const struct xdpong_bpf__rodata *ro,
				       const struct xdpong_bpf__bss *bss)
{
	struct json_object *o;
	char phc[32];

	if (!ro->cfg_stamp_driver)
		return NULL;
	o = json_object_new_object();
	snprintf(phc, sizeof(phc), "/dev/ptp%d", ro->cfg_stamp_phc);
	add(o, "phc", ro->cfg_stamp_phc < 0 ? NULL : json_object_new_string(phc));
	add(o, "phc_in_step", json_object_new_boolean(bss->stamp_phc_ok));
	add(o, "phc_offset_ns",
	    bss->stamp_phc_ok ? json_object_new_int64(bss->stamp_phc_off_ns) : NULL);
	add(o, "t2_driver", json_object_new_uint64(bss->stamp_t2_count.driver));
	add(o, "t2_system", json_object_new_uint64(bss->stamp_t2_count.system));
	return o;
}

static void driver_text(const struct xdpong_bpf__rodata *ro, const struct xdpong_bpf__bss *bss)
{
	if (!ro->cfg_stamp_driver)
		return;
	if (ro->cfg_stamp_phc < 0)
		printf("  T2:      from the driver, but the NIC has no PTP hardware clock");
	else if (!bss->stamp_phc_ok)
		printf("  T2:      from the driver, by /dev/ptp%d, NOT read against the system "
		       "clock",
		       ro->cfg_stamp_phc);
	else
		printf("  T2:      from the driver, by /dev/ptp%d (UTC = its time %+.9f s)",
		       ro->cfg_stamp_phc, bss->stamp_phc_off_ns / 1e9);
	printf("; %llu taken so, %llu from the system clock\n",
	       (unsigned long long)bss->stamp_t2_count.driver,
	       (unsigned long long)bss->stamp_t2_count.system);
}

static struct json_object *stamp_json(const struct xdpong_bpf__rodata *ro,
				      const struct xdpong_bpf__bss *bss)
{
	struct json_object *o;
	struct stamp_clock c;

	if (!ro->cfg_stamp_port)
		return NULL;
	o = json_object_new_object();
	add(o, "port", json_object_new_int(ro->cfg_stamp_port));
	add(o, "clock",
	    json_object_new_string(ro->cfg_stamp_driver ? "driver" :
							  stamp_clock_name(ro->cfg_stamp_clock)));
	add(o, "system_clock", json_object_new_string(stamp_clock_name(ro->cfg_stamp_clock)));
	add(o, "driver", driver_json(ro, bss));
	if (!stamp_clock_read(ro->cfg_stamp_clock, true, &c)) {
		add(o, "synchronised", json_object_new_boolean(c.synced));
		add(o, "clock_error_us", json_object_new_int64(c.error_us));
	}
	add(o, "error_estimate", json_object_new_int(bss->stamp_errest));
	return o;
}

static void stamp_text(const struct xdpong_bpf__rodata *ro, const struct xdpong_bpf__bss *bss)
{
	struct stamp_clock c;
	unsigned int e = bss->stamp_errest;

	if (!ro->cfg_stamp_port)
		return;
	printf("  stamp:   UDP port %u, clock %s%s", ro->cfg_stamp_port,
	       ro->cfg_stamp_driver ? "driver, else " : "", stamp_clock_name(ro->cfg_stamp_clock));
	if (!stamp_clock_read(ro->cfg_stamp_clock, true, &c))
		printf(", %s (%s error %lld us)", c.synced ? "synchronised" : "NOT synchronised",
		       c.synced ? "estimated" : "maximum", c.error_us);
	printf("; replies say S %u, scale %u, multiplier %u\n", e >> 15, (e >> 8) & 0x3f, e & 0xff);
	driver_text(ro, bss);
}

static struct json_object *status_json(const struct attachment *a,
				       const struct xdpong_bpf__rodata *ro,
				       const struct xdpong_bpf__bss *bss, bool pinned,
				       const struct owner_info *w, bool owned,
				       const struct tx_state *tx, const struct chain_state *cs)
{
	struct json_object *o = json_object_new_object(), *maps = json_object_new_object();
	char dir[256];

	pin_dir(a->li.name, dir, sizeof(dir));
	add(o, "iface", json_object_new_string(a->li.name));
	add(o, "ifindex", json_object_new_int(a->li.ifindex));
	add(o, "attached", json_object_new_boolean(1));
	add(o, "prog_id", json_object_new_uint64(a->prog_id));
	add(o, "mode", json_object_new_string(a->mode));
	add(o, "dispatcher", json_object_new_boolean(a->dispatcher));
	add(o, "chain", chain_json(cs));
	add(o, "owner", owner_json(w, owned));
	add(o, "framing",
	    json_object_new_string(ro->cfg_framing == XDPONG_FRAMING_IP ? "ip" : "ethernet"));
	add(o, "latency_sample", json_object_new_uint64(ro->cfg_latency_sample));
	add(o, "trace_enabled", json_object_new_boolean(bss->trace_enabled));
	add(o, "trace_lost", json_object_new_uint64(bss->trace_lost));
	add(o, "mac_current", json_object_new_boolean(!ro->cfg_check_mac || mac_current(a, bss)));
	add(o, "pin_dir", pinned ? json_object_new_string(dir) : NULL);
	add(o, "tx_failures", tx_json(tx));
	add(o, "stamp", stamp_json(ro, bss));
	for (int m = 0; m < MAP_COUNT; m++)
		if (a->map_fd[m] >= 0) /* the carry maps are newer than some builds */
			add(maps, map_defs[m].pin_name, json_object_new_uint64(a->map_id[m]));
	add(o, "maps", maps);
	add(o, "prefixes", room_json(a));
	add(o, "addresses", json_addresses(a));
	return o;
}

static void status_text(const struct attachment *a, const struct xdpong_bpf__rodata *ro,
			const struct xdpong_bpf__bss *bss, bool pinned, const struct owner_info *w,
			int who, const struct tx_state *tx, const struct chain_state *cs)
{
	char dir[256];

	pin_dir(a->li.name, dir, sizeof(dir));
	printf("%s: xdpong program id %u, %s mode%s, %s framing\n", a->li.name, a->prog_id, a->mode,
	       a->dispatcher ? " (libxdp dispatcher)" : "",
	       ro->cfg_framing == XDPONG_FRAMING_IP ? "IP (TUN)" : "Ethernet");
	owner_text(a, w, who);
	chain_text(cs);
	printf("  maps:    ");
	for (int m = 0, n = 0; m < MAP_COUNT; m++)
		if (a->map_fd[m] >= 0)
			printf("%s%s %u", n++ ? ", " : "", map_defs[m].pin_name, a->map_id[m]);
	printf("\n");
	if (pinned)
		printf("  pinned:  %s/\n", dir);
	else
		printf("  pinned:  not visible here (pins made inside 'ip netns exec' vanish with "
		       "it)\n");
	if (ro->cfg_latency_sample > 1)
		printf("  latency: 1 packet in %u timed, at most one a tick per CPU\n",
		       ro->cfg_latency_sample);
	else
		printf("  latency: 1 packet in %u timed%s\n", ro->cfg_latency_sample,
		       ro->cfg_latency_sample ? "" : " (off)");
	tx_text(a, tx);
	if (bss->trace_enabled)
		printf("  trace:   on, %llu events lost (no reader? 'xdpong trace %s --off')\n",
		       (unsigned long long)bss->trace_lost, a->li.name);
	if (ro->cfg_check_mac && !mac_current(a, bss))
		printf("  WARNING: %s's MAC changed since attach: frames to the new MAC go to the "
		       "kernel and frames to the old one would be answered; run 'xdpong attach %s "
		       "--force' (or use 'xdpong run', which follows MAC changes)\n",
		       a->li.name, a->li.name);
	if (ro->cfg_rate_cost_ns)
		printf("  limit:   %llu replies/s per source, burst %llu\n",
		       1000000000ULL / ro->cfg_rate_cost_ns,
		       ro->cfg_rate_tolerance_ns / ro->cfg_rate_cost_ns + 1);
	if (ro->cfg_global_cost_ns)
		printf("  limit:   %llu replies/s in all, burst %llu\n",
		       1000000000ULL / ro->cfg_global_cost_ns,
		       ro->cfg_global_tolerance_ns / ro->cfg_global_cost_ns + 1);
	stamp_text(ro, bss);
	room_text(a);
	printf("  answering for:\n");
	addr_print_text(stdout, a);
}

static struct json_object *status_one(const struct attachment *a, bool json)
{
	struct xdpong_bpf__rodata ro;
	struct xdpong_bpf__bss bss = { 0 };
	bool pinned = pins_match(a->li.name, a->map_id[MAP_STATS]);
	struct owner_info w;
	int who = owner_query(a->li.ifindex, &w);
	struct tx_state tx = { .links = txwatch_count(a) };
	struct chain_state cs;

	chain_read(a, &cs);
	rodata_read(a, &ro);
	map_read_own(a, MAP_BSS, &bss, sizeof(bss));
	if (tx.links != -ENOENT && txwatch_read(a->map_fd[MAP_TXFAIL], &tx.failed))
		tx.links = -ENOENT; /* a count this build cannot read */
	if (json)
		return status_json(a, &ro, &bss, pinned, &w, !who, &tx, &cs);
	status_text(a, &ro, &bss, pinned, &w, who, &tx, &cs);
	return NULL;
}

/* Pin directories whose interface is gone from this namespace. */
static void stale_pins_report(struct json_object *arr)
{
	struct dirent *de;
	DIR *d = opendir(PIN_ROOT);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= IF_NAMESIZE ||
		    if_nametoindex(de->d_name) || !pins_stale(de->d_name))
			continue;
		if (arr)
			json_object_array_add(arr, json_object_new_string(de->d_name));
		else
			printf("%s: gone (deleted while xdpong was attached); its pins remain in "
			       "%s/%s: 'xdpong detach %s' removes them\n",
			       de->d_name, PIN_ROOT, de->d_name, de->d_name);
	}
	closedir(d);
}

/*
 * What this kernel lacks of what xdpong uses (core.h), found by trying:
 * JSON {"release", "features": {NAME: {"available", and when not: "what",
 * "since", "without", "why"}}}; as text, one line per feature that is off.
 */
static struct json_object *kernel_json(void)
{
	struct json_object *k = json_object_new_object(), *fs = json_object_new_object();

	add(k, "release", json_object_new_string(kernel_release()));
	for (int f = 0; f < FEAT_COUNT; f++) {
		struct json_object *o = json_object_new_object();
		bool have = feature_have(f);

		add(o, "available", json_object_new_boolean(have));
		if (!have) {
			add(o, "what", json_object_new_string(feature_info[f].what));
			add(o, "since", json_object_new_string(feature_info[f].since));
			add(o, "without", json_object_new_string(feature_info[f].without));
			add(o, "why", json_object_new_string(feature_why(f)));
		}
		add(fs, feature_info[f].name, o);
	}
	add(k, "features", fs);
	return k;
}

static void kernel_text(void)
{
	for (int f = 0; f < FEAT_COUNT; f++)
		if (!feature_have(f))
			printf("kernel %s: no %s (%s, Linux %s): %s\n", kernel_release(),
			       feature_info[f].name, feature_info[f].what, feature_info[f].since,
			       feature_info[f].without);
}

static int status_iface(const char *ifname, bool json)
{
	struct json_object *top, *arr;
	struct attachment a;
	struct link_info li;
	__u32 other = 0;
	int ret;

	if (link_get(ifname, 0, &li)) {
		if (pins_stale(ifname)) {
			log_error("%s is gone (deleted while xdpong was attached); its pins remain "
				  "in %s/%s: 'xdpong detach %s' removes them",
				  ifname, PIN_ROOT, ifname, ifname);
			return 1;
		}
		iface_lookup(ifname, &li); /* it failed above: this explains why */
		return 1;
	}
	ret = attachment_find(li.ifindex, &a, &other);
	top = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(top, "interfaces", arr);
	json_object_object_add(top, "kernel", kernel_json());
	if (!json)
		kernel_text();
	if (ret) {
		/* Not attached (exit 3), or cannot tell (exit 1): a health check
		 * must not take the one for the other. */
		struct json_object *o = json_object_new_object();
		bool absent = ret == -ENOENT;

		add(o, "iface", json_object_new_string(li.name));
		add(o, "ifindex", json_object_new_int(li.ifindex));
		add(o, "attached", absent ? json_object_new_boolean(0) : NULL);
		add(o, "other_prog_id", json_object_new_uint64(other));
		if (!absent)
			add(o, "error",
			    json_object_new_string(ret == -ENOPKG ? "no pins to tell by without "
								    "CAP_SYS_ADMIN" :
								    strerror(-ret)));
		json_object_array_add(arr, o);
		if (json)
			json_print(stdout, top);
		else if (attachment_said(ret, &li))
			; /* said, with what would help */
		else if (!absent)
			log_error("%s: cannot tell whether xdpong is attached: %s", li.name,
				  strerror(-ret));
		else if (other)
			printf("%s: xdpong not attached (XDP program id %u is)\n", li.name, other);
		else
			printf("%s: xdpong not attached\n", li.name);
		if (!json)
			json_object_put(top);
		return absent ? EXIT_NOT_ATTACHED : 1;
	}
	if (json) {
		json_object_array_add(arr, status_one(&a, true));
		json_print(stdout, top);
	} else {
		status_one(&a, false);
		json_object_put(top);
	}
	attachment_close(&a);
	return 0;
}

static int status_main(const struct opts *o)
{
	struct json_object *top = NULL, *arr = NULL, *stale = NULL;
	struct if_nameindex *ifs, *i;
	struct attachment a;
	int found = 0;

	if (require_privileges(PRIVS_READ))
		return 1;
	if (o->n_args)
		return status_iface(o->args[0], o->json);

	ifs = if_nameindex();
	if (!ifs) {
		log_error("cannot list interfaces: %s", strerror(errno));
		return 1;
	}
	if (o->json) {
		top = json_object_new_object();
		arr = json_object_new_array();
		stale = json_object_new_array();
		json_object_object_add(top, "interfaces", arr);
		json_object_object_add(top, "kernel", kernel_json());
	} else {
		kernel_text();
	}
	for (i = ifs; i->if_index; i++) {
		if (attachment_find(i->if_index, &a, NULL))
			continue;
		if (arr)
			json_object_array_add(arr, status_one(&a, true));
		else
			status_one(&a, false);
		attachment_close(&a);
		found++;
	}
	if_freenameindex(ifs);
	stale_pins_report(stale);
	if (top) {
		json_object_object_add(top, "stale_pins", stale);
		return json_print(stdout, top) ? 1 : 0;
	}
	if (!found)
		printf("xdpong is not attached to any interface in this network namespace\n");
	return 0;
}

const struct cmd_def cmd_status = {
	.id = CMD_STATUS,
	.name = "status",
	.synopsis = "[IFACE] [--json]",
	.min_args = 0,
	.max_args = 1,
	.iface_arg = true,
	.summary = "what is attached where",
	.description = "Show where xdpong is attached in this network namespace: program id,\n"
		       "mode, the programs it shares the interface with in libxdp's dispatcher\n"
		       "(or alone), maps, pins and the prefixes it answers for, and the pins\n"
		       "of interfaces that are gone. Changes nothing. With IFACE, exits 0 if\n"
		       "xdpong is attached there, 3 if it is not, 1 if that cannot be told\n"
		       "(no such interface, no privileges, an error). A feature of xdpong's\n"
		       "that this kernel lacks is named, with what xdpong does without it\n"
		       "(JSON: \"kernel\", found by trying, never from the version).",
	.examples = "  xdpong status\n"
		    "  xdpong status eth0 --json\n",
	.run = status_main,
};
