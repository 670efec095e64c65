// SPDX-License-Identifier: GPL-2.0
/*
 * What `xdpong run` serves: a set of interfaces, each claimed (owner.c),
 * loaded or taken over (load.c), and followed through netlink. An
 * interface that is missing, or goes away, is waited for and attached when
 * it appears (config mode); one named on the command line ends the run
 * when it goes, as it always did. A reload applies the difference between
 * two configurations and touches nothing that did not change.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>
#include "service.h"
#include "xdpong.skel.h"

static void set_why(struct served *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_why(struct served *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

/* Own ifindex (owner.c) before touching it. 0, or -1 with why set and said. */
static int served_claim(struct served *v, int ifindex)
{
	struct owner_info who;
	char why[sizeof(v->why) - 32];
	int fd = owner_claim(ifindex, why, sizeof(why));

	if (fd == -EBUSY) {
		if (!owner_query(ifindex, &who) && who.pid)
			set_why(v, "owned by another 'xdpong run' (pid %d)", who.pid);
		else
			set_why(v, "owned by another 'xdpong run'");
		return log_error("%s is %s: one run per interface; stop that one first", v->name,
				 v->why);
	}
	if (fd < 0) {
		set_why(v, "cannot take ownership: %s", why);
		return log_error("%s: %s", v->name, v->why);
	}
	v->owner_fd = fd;
	v->owned_ifindex = ifindex;
	return 0;
}

int served_up(struct served *v)
{
	struct link_info li;
	int e;

	if (v->up)
		return 0;
	e = link_get(v->name, 0, &li);
	v->missing = e == -ENODEV;
	if (e) {
		set_why(v, "%s",
			e == -ENODEV ? "no such interface (waiting for it)" : strerror(-e));
		return -1;
	}
	if (v->owner_fd < 0 && served_claim(v, li.ifindex))
		return -1;
	if (load_up(v->name, &v->o, &v->a)) {
		set_why(v, "attach failed (see the log)");
		owner_release(v->owner_fd, v->owned_ifindex);
		v->owner_fd = -1;
		return -1;
	}
	v->up = true;
	v->lost = false;
	v->since = time(NULL);
	v->why[0] = '\0';
	v->have_stats = !snapshot_read(&v->a, &v->cur);
	return 0;
}

void served_down(struct served *v, bool detach)
{
	if (v->up)
		load_down(&v->a, detach);
	v->up = false;
	v->have_stats = false;
	owner_release(v->owner_fd, v->owned_ifindex);
	v->owner_fd = -1;
	v->owned_ifindex = 0;
}

/* The interface is gone: the kernel took the program with it. */
static void served_gone(struct served *v)
{
	if (v->up) {
		pins_release(v->name, v->a.map_id[MAP_STATS]);
		v->a.loaded->attached_here = false;
	}
	served_down(v, false);
	set_why(v, "interface deleted (waiting for it to return)");
}

/*
 * A new MAC: frames to the old one are the kernel's to drop, frames to
 * the new one are ours to answer. The program reads it from .bss.
 */
static void follow_mac(struct attachment *lv)
{
	struct bss_access bss;
	struct link_info now;
	int e;

	if (!lv->li.has_mac || link_get(NULL, lv->li.ifindex, &now) || !now.has_mac ||
	    !memcmp(now.mac, lv->li.mac, 6))
		return;
	e = bss_open(&bss, lv->map_fd[MAP_BSS]);
	if (!e)
		e = bss_set_mac(&bss, now.mac);
	bss_close(&bss);
	if (e) {
		log_error("%s: the MAC changed but the program could not follow: %s", lv->li.name,
			  strerror(-e));
		return;
	}
	memcpy(lv->li.mac, now.mac, 6);
	log_note("%s: MAC changed to %02x:%02x:%02x:%02x:%02x:%02x; following it", lv->li.name,
		 now.mac[0], now.mac[1], now.mac[2], now.mac[3], now.mac[4], now.mac[5]);
}

void served_resync(struct served *v, bool quiet)
{
	int n4 = 0, n6 = 0, e;

	if (!v->up)
		return;
	e = addr_sync(v->a.map_fd[MAP_ADDR4], v->a.map_fd[MAP_ADDR6],
		      v->o.no_iface_addrs ? NULL : &v->a.li, v->o.host_addrs, quiet, &n4, &n6);
	if (!e)
		e = addr_own_sync(v->a.map_fd[MAP_ADDR4], v->a.map_fd[MAP_ADDR6],
				  v->a.map_fd[MAP_BSS]);
	if (e)
		log_error("%s: cannot resync addresses: %s", v->name, strerror(-e));
	else if (verbose)
		log_note("%s: addresses: %d IPv4, %d IPv6 from the %s", v->name, n4, n6,
			 v->o.host_addrs ? "host" : "interface");
}

void service_event(struct service *svc, int ifindex, int ev)
{
	for (int i = 0; i < svc->n; i++) {
		struct served *v = &svc->v[i];

		if (ev == EV_OVERRUN) {
			if (v->up) {
				follow_mac(&v->a);
				v->resync = true;
			}
			continue;
		}
		if (v->up && v->a.li.ifindex == ifindex) {
			if (ev & EV_LINK_GONE) {
				log_error("%s was deleted; removing its pins", v->name);
				served_gone(v);
				svc->lost_one = true;
				continue;
			}
			if (ev & EV_LINK)
				follow_mac(&v->a);
			if (ev & EV_ADDRS)
				v->resync = true;
		} else if (v->up && v->o.host_addrs && ifindex) {
			/* Another interface's addresses, or whether it is up. */
			v->resync = true;
		} else if (!v->up && svc->wait_for_ifaces && (ev & EV_LINK)) {
			/* Perhaps the one we wait for (a new link, or a rename). */
			struct link_info li;

			if (!link_get(NULL, ifindex, &li) && !strcmp(li.name, v->name) &&
			    !served_up(v))
				log_note("%s appeared: attached", v->name);
		}
	}
}

void service_flush(struct service *svc)
{
	for (int i = 0; i < svc->n; i++) {
		struct served *v = &svc->v[i];

		if (v->resync && v->up)
			served_resync(v, false);
		v->resync = false;
	}
}

/*
 * --stamp-driver: the NIC's clock's offset to UTC (core.h, phc_offset),
 * read anew: the two clocks drift apart. Where it cannot be read, the
 * program goes back to the system clock (stamp_phc_ok 0) until it can:
 * said once a failure, not every time. 0 or -errno (the .bss).
 */
static int stamp_phc_keep(struct served *v, const struct bss_access *bss)
{
	struct xdpong_bpf__rodata ro;
	long long off;
	int e;

	if (rodata_read(&v->a, &ro) || ro.cfg_stamp_phc < 0)
		return 0;
	e = phc_offset(ro.cfg_stamp_phc, &off);
	if (e) {
		if (!v->phc_failed)
			log_error("%s: cannot read /dev/ptp%d against the system clock (%s): "
				  "STAMP's T2 comes from the system clock until it can",
				  v->name, ro.cfg_stamp_phc, strerror(-e));
		v->phc_failed = true;
		return bss_set(bss, BSS_stamp_phc_ok, 0);
	}
	v->phc_failed = false;
	e = bss_set(bss, BSS_stamp_phc_off_ns, (__u64)off);
	return e ?: bss_set(bss, BSS_stamp_phc_ok, 1);
}

void service_stamp_clock(struct service *svc)
{
	for (int i = 0; i < svc->n; i++) {
		struct served *v = &svc->v[i];
		struct bss_access bss;
		struct stamp_clock c;
		int e;

		if (!v->up || !v->o.stamp_port)
			continue;
		e = stamp_clock_read(stamp_clock_source(), true, &c);
		if (!e)
			e = bss_open(&bss, v->a.map_fd[MAP_BSS]);
		if (!e) {
			e = bss_set(&bss, BSS_stamp_clock_off_ns, (__u64)c.off_ns);
			if (!e)
				e = bss_set(&bss, BSS_stamp_errest, c.errest);
			if (!e && v->o.stamp_driver)
				e = stamp_phc_keep(v, &bss);
			bss_close(&bss);
		}
		if (e)
			log_error("%s: cannot keep STAMP's clock in step: %s", v->name,
				  strerror(-e));
	}
}

void service_tick(struct service *svc)
{
	for (int i = 0; i < svc->n; i++) {
		struct served *v = &svc->v[i];

		if (!v->up)
			continue;
		v->prev = v->cur;
		v->have_stats = !snapshot_read(&v->a, &v->cur);
	}
}

bool served_answering(const struct served *v)
{
	struct link_info now;
	struct chain_info c;

	if (!v->up || link_get(NULL, v->a.li.ifindex, &now))
		return false;
	if (!v->a.dispatcher)
		return now.xdp_prog_id == v->a.prog_id;
	/* In the dispatcher: still one of its programs. */
	return !chain_query(v->a.li.ifindex, &c) && c.dispatcher &&
	       chain_position(&c, v->a.prog_id) >= 0;
}

/* A program that joined or left the dispatcher made a new one: the word
 * that commands without CAP_SYS_ADMIN go by names it (attachment.c). */
static void served_self_refresh(struct served *v)
{
	struct link_info now;

	if (!link_get(NULL, v->a.li.ifindex, &now) && now.xdp_prog_id != v->self_xdp_id &&
	    !self_record(&v->a))
		v->self_xdp_id = now.xdp_prog_id;
}

/*
 * Our program is no longer on the interface: someone detached it behind
 * our back (`ip link set dev IFACE xdp off`). Under systemd the watchdog's
 * pets stop and systemd kills this run (SIGABRT: no cleanup then) and
 * starts another, which attaches a new program. So what would outlive us
 * goes now: in libxdp's dispatcher, libxdp's pins of that dispatcher,
 * which keep our program and its maps alive for good (leftover.c); and
 * our pins, which would keep the next run from pinning its maps. Only
 * once the kernel says our program is off the interface (leftovers_release
 * checks under libxdp's lock). The counters start from zero in the next run.
 */
static void served_lost(struct served *v)
{
	if (v->lost || leftovers_release(v->name, v->a.li.ifindex, v->a.prog_id) < 0)
		return; /* on the interface after all (-EBUSY), or cannot tell */
	v->lost = true;
	if (pins_match(v->name, v->a.map_id[MAP_STATS]) && pins_remove(v->name))
		log_note("%s: removed the pins of program id %u, which is no longer attached",
			 v->name, v->a.prog_id);
}

int service_lost(struct service *svc)
{
	int n = 0;

	for (int i = 0; i < svc->n; i++) {
		struct served *v = &svc->v[i];

		if (v->up && !served_answering(v)) {
			served_lost(v);
			n++;
		} else if (v->up && v->a.dispatcher) {
			served_self_refresh(v);
		}
	}
	return n;
}

int service_prom(struct service *svc, FILE *f)
{
	struct prom_iface rows[CONFIG_MAX_IFACES];
	struct snapshot *now = calloc(svc->n ? svc->n : 1, sizeof(*now));
	int ret;

	if (!now)
		return -ENOMEM;
	for (int i = 0; i < svc->n; i++) {
		struct served *v = &svc->v[i];
		bool ok = served_answering(v) && !snapshot_read(&v->a, &now[i]);

		rows[i] = (struct prom_iface){ .name = v->name,
					       .a = ok ? &v->a : NULL,
					       .s = ok ? &now[i] : NULL };
	}
	ret = prom_print_all(f, rows, svc->n);
	if (!ret)
		probes_prom(&svc->probes, f);
	free(now);
	return ret;
}

/* Two sets of options that would load the same program (rodata, mode,
 * its priority in a dispatcher, its maps' size). */
static bool same_program(const struct opts *a, const struct opts *b)
{
	return a->mode == b->mode && a->priority == b->priority &&
	       a->latency_sample == b->latency_sample && a->rate_pps == b->rate_pps &&
	       a->rate_burst == b->rate_burst && a->global_pps == b->global_pps &&
	       a->global_burst == b->global_burst && a->max_prefixes == b->max_prefixes &&
	       a->stamp_port == b->stamp_port;
}

/* The same settings for one interface (the service-wide ones aside). */
static bool same_iface_settings(const struct opts *a, const struct opts *b)
{
	return same_program(a, b) && a->no_iface_addrs == b->no_iface_addrs &&
	       a->host_addrs == b->host_addrs && a->n_addrs == b->n_addrs &&
	       (!a->n_addrs || !memcmp(a->addrs, b->addrs, a->n_addrs * sizeof(a->addrs[0])));
}

/* New prefixes into the running program's maps, or none of them where
 * they do not fit (addr_sync_config). */
static void served_sync_config(struct served *v, const struct opts *o)
{
	int e = addr_sync_config(v->a.map_fd[MAP_ADDR4], v->a.map_fd[MAP_ADDR6], o->addrs,
				 o->n_addrs);

	if (e == -ENOSPC)
		log_error("%s: more addr prefixes than the address maps hold: raise max-prefixes; "
			  "the old prefixes stay",
			  v->name);
	else if (e)
		log_error("%s: cannot update the prefixes: %s", v->name, strerror(-e));
}

/* v's settings changed to o: a takeover of its own where the program
 * differs, else the prefixes in place. v->o becomes o (an addr list of
 * its own), or stays where the new one could not be applied. */
static void served_change(struct served *v, const struct opts *o)
{
	struct opts n = *o;

	if (opts_own_addrs(&n)) {
		log_error("%s: out of memory; the old settings stay", v->name);
		return;
	}
	if (v->up && !same_program(&v->o, o)) {
		/* Another program: a takeover of our own, no gap, state kept. */
		struct attachment a;

		if (load_up(v->name, o, &a)) {
			log_error("%s: the new settings could not be applied; the old ones stay",
				  v->name);
			opts_free(&n);
			return;
		}
		v->a.loaded->attached_here = false; /* replaced: nothing of it to undo */
		load_down(&v->a, false);
		v->a = a;
	} else if (v->up) {
		served_sync_config(v, o);
	}
	opts_free(&v->o);
	v->o = n;
	served_resync(v, true);
}

/* A served entry for a new interface of the config, attached if it can be. */
static void served_add(struct served *v, const struct config_iface *ci)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", ci->name);
	v->o = ci->o;
	v->owner_fd = -1;
	v->a.prog_fd = -1;
	if (opts_own_addrs(&v->o))
		set_why(v, "out of memory");
	else if (!served_up(v))
		log_note("%s: attached", v->name);
	if (!v->up)
		log_note("%s: not attached: %s", v->name, v->why);
}

int service_apply(struct service *svc, const struct config *c)
{
	struct served *next = calloc(CONFIG_MAX_IFACES, sizeof(*next));
	int n = 0, added = 0, removed = 0, changed = 0;

	if (!next)
		return -ENOMEM;
	/* Gone from the config: detached, the kernel's again. */
	for (int i = 0; i < svc->n; i++) {
		bool kept = false;

		for (int k = 0; k < c->n_ifaces && !kept; k++)
			kept = !strcmp(svc->v[i].name, c->ifaces[k].name);
		if (!kept) {
			log_note("%s: no longer in the config: detaching", svc->v[i].name);
			served_down(&svc->v[i], true);
			opts_free(&svc->v[i].o);
			removed++;
		}
	}
	/* The kept entries move to next, with what they own. */
	for (int k = 0; k < c->n_ifaces; k++) {
		struct served *v = &next[n++], *old = NULL;

		for (int i = 0; i < svc->n && !old; i++)
			if (!strcmp(svc->v[i].name, c->ifaces[k].name))
				old = &svc->v[i];
		if (!old) {
			served_add(v, &c->ifaces[k]);
			added++;
			continue;
		}
		*v = *old;
		if (same_iface_settings(&v->o, &c->ifaces[k].o)) {
			/* Unchanged: not touched. Its strings are the new
			 * config's; its addr list, equal, stays its own. */
			struct prefix *mine = v->o.addrs;

			v->o = c->ifaces[k].o;
			v->o.addrs = mine;
			continue;
		}
		changed++;
		served_change(v, &c->ifaces[k].o);
	}
	memcpy(svc->v, next, n * sizeof(*next));
	svc->n = n;
	free(next);
	if (added || removed || changed)
		log_note("config applied: %d interfaces added, %d removed, %d changed", added,
			 removed, changed);
	return 0;
}

void service_notify_status(const struct service *svc, const char *busy)
{
	unsigned long long rep = 0, pas = 0, drp = 0;
	char wait[128] = "";
	int up = 0;

	for (int i = 0; i < svc->n; i++) {
		const struct served *v = &svc->v[i];

		if (!v->up || !v->have_stats)
			continue;
		up++;
		rep += v->cur.outcome[XDPONG_REPLIED];
		pas += v->cur.outcome[XDPONG_PASSED];
		drp += v->cur.outcome[XDPONG_DROPPED];
	}
	if (busy)
		snprintf(wait, sizeof(wait), "; /metrics not served: %s is in use", busy);
	if (svc->n == 1 && svc->v[0].up)
		sd_notifyf(0,
			   "STATUS=answering on %s (program id %u, %s mode): %llu replied, %llu "
			   "passed, %llu dropped%s",
			   svc->v[0].name, svc->v[0].a.prog_id, svc->v[0].a.mode, rep, pas, drp,
			   wait);
	else
		sd_notifyf(0,
			   "STATUS=answering on %d of %d interfaces: %llu replied, %llu passed, "
			   "%llu dropped%s",
			   up, svc->n, rep, pas, drp, wait);
}

void service_write_metrics(struct service *svc, const char *path)
{
	struct prom_iface rows[CONFIG_MAX_IFACES];

	for (int i = 0; i < svc->n; i++) {
		struct served *v = &svc->v[i];
		bool ok = v->up && v->have_stats;

		rows[i] = (struct prom_iface){ .name = v->name,
					       .a = ok ? &v->a : NULL,
					       .s = ok ? &v->cur : NULL };
	}
	prom_update_file(path, rows, svc->n);
}

int service_fill(struct service *svc, const struct config *c)
{
	for (int i = 0; i < c->n_ifaces; i++) {
		struct served *v = &svc->v[svc->n++];

		snprintf(v->name, sizeof(v->name), "%s", c->ifaces[i].name);
		v->o = c->ifaces[i].o;
		v->owner_fd = -1;
		v->a.prog_fd = -1;
		if (opts_own_addrs(&v->o))
			return -ENOMEM;
	}
	return 0;
}

void service_free(struct service *svc)
{
	for (int i = 0; i < svc->n; i++)
		opts_free(&svc->v[i].o);
	svc->n = 0;
	probes_free(&svc->probes);
}

int service_up_all(struct service *svc)
{
	int up = 0;

	for (int i = 0; i < svc->n; i++) {
		struct served *v = &svc->v[i];

		if (!served_up(v)) {
			up++;
		} else if (!svc->wait_for_ifaces) {
			/* The command line's one interface: failures other
			 * than a missing interface were said already. */
			if (v->missing)
				log_error("interface '%s' not found in this network namespace (see "
					  "'ip link')",
					  v->name);
			return -1;
		} else {
			log_note("%s: not attached: %s", v->name, v->why);
		}
	}
	return up;
}

bool service_health(const struct service *svc, FILE *f)
{
	bool ok = true;

	for (int i = 0; i < svc->n; i++) {
		const struct served *v = &svc->v[i];
		bool up = served_answering(v);

		ok &= up;
		if (up)
			fprintf(f, "%s: ok, program id %u, %s mode\n", v->name, v->a.prog_id,
				v->a.mode);
		else
			fprintf(f, "%s: not attached: %s\n", v->name,
				v->why[0] ? v->why :
				v->up     ? "the program was detached behind our "
					    "back" :
					    "not attached");
	}
	if (!svc->n) {
		ok = false;
		fprintf(f, "no interfaces configured\n");
	}
	return ok;
}
