// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong run: attach in the foreground, follow the interface's addresses
 * through netlink, print stats every interval, detach on SIGINT/SIGTERM.
 * Made for a systemd unit (xdpong@IFACE.service).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <bpf/libbpf.h>
#include "loader.h"
#include "xdpong.skel.h"

void run_usage(FILE *f)
{
	fprintf(f,
		"Usage: xdpong run IFACE [attach options] [--interval SECS [--json]]\n"
		"                  [--metrics-file PATH]\n"
		"\n"
		"Attach xdpong to IFACE and stay in the foreground: addresses added to or\n"
		"removed from IFACE take effect at once (netlink), stats are printed every\n"
		"--interval seconds, SIGHUP rereads the addresses, and SIGINT or SIGTERM\n"
		"detach cleanly. If IFACE is deleted, its pins are removed and run exits\n"
		"with status 1.\n"
		"Takes every 'xdpong attach' option (see 'xdpong attach --help').\n"
		"\n"
		"Options:\n"
		"  -i, --interval SECS      print per-second rates every SECS seconds\n"
		"  -j, --json               print them as JSON lines (as 'xdpong stats --json')\n"
		"      --metrics-file PATH  rewrite PATH atomically every --interval (default\n"
		"                           15 s, then nothing is printed) in the Prometheus\n"
		"                           text format, for node_exporter's textfile\n"
		"                           collector; removed on exit\n"
		"\n"
		"Examples:\n"
		"  xdpong run eth0\n"
		"  xdpong run eth0 --addr 192.0.2.0/24 --interval 10\n"
		"  xdpong run eth0 --metrics-file /var/lib/prometheus/node-exporter/xdpong-eth0.prom\n"
		"  systemctl start xdpong@eth0\n");
}

static int monitor_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
	};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

enum monitor_event {
	EV_NONE = 0,
	EV_ADDRS = 1,     /* an address of ours changed */
	EV_LINK_GONE = 2, /* our interface was deleted */
	EV_OVERRUN = 4,   /* events were lost: resync everything */
	EV_LINK = 8,      /* our interface changed (its MAC, perhaps) */
};

/* Drain the socket; say what concerns ifindex. */
static int monitor_read(int fd, int ifindex)
{
	static char buf[65536];
	int ev = EV_NONE;

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
				ev |= EV_OVERRUN;
			break;
		}
		/* A signed length: a short last message must end the walk. */
		int left = (int)n;

		for (nh = (void *)buf; nl_msg_ok(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_type == RTM_NEWADDR || nh->nlmsg_type == RTM_DELADDR) {
				struct ifaddrmsg *ifa = NLMSG_DATA(nh);

				if (nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifa)) &&
				    (int)ifa->ifa_index == ifindex)
					ev |= EV_ADDRS;
			} else if (nh->nlmsg_type == RTM_DELLINK ||
				   nh->nlmsg_type == RTM_NEWLINK) {
				struct ifinfomsg *ifi = NLMSG_DATA(nh);

				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
				    ifi->ifi_index != ifindex)
					continue;
				ev |= nh->nlmsg_type == RTM_DELLINK ? EV_LINK_GONE : EV_LINK;
			}
		}
	}
	return ev;
}

static int signals_open(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC);
}

static int timer_open(double interval)
{
	struct itimerspec its = { 0 };
	int fd;

	if (interval <= 0)
		return -1;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	its.it_value.tv_sec = its.it_interval.tv_sec = (time_t)interval;
	its.it_value.tv_nsec = its.it_interval.tv_nsec =
		(long)((interval - (time_t)interval) * 1e9);
	timerfd_settime(fd, 0, &its, NULL);
	return fd;
}

static void print_sample(const struct attachment *a, const struct snapshot *prev,
			 const struct snapshot *cur, bool json, __u32 sample_every)
{
	double dt = (cur->mono.tv_sec - prev->mono.tv_sec) +
		    (cur->mono.tv_nsec - prev->mono.tv_nsec) / 1e9;

	if (dt <= 0)
		return;
	if (json) {
		stats_print_json(a, cur, prev, sample_every);
		return;
	}
	printf("%s: %.0f received/s, %.0f replied/s, %.0f passed/s, %.0f dropped/s (total %llu replied)\n",
	       a->ifname, (cur->received - prev->received) / dt,
	       (cur->outcome[XDPONG_REPLIED] - prev->outcome[XDPONG_REPLIED]) / dt,
	       (cur->outcome[XDPONG_PASSED] - prev->outcome[XDPONG_PASSED]) / dt,
	       (cur->outcome[XDPONG_DROPPED] - prev->outcome[XDPONG_DROPPED]) / dt,
	       (unsigned long long)cur->outcome[XDPONG_REPLIED]);
	fflush(stdout);
}

/*
 * A new MAC: frames to the old one are the kernel's to drop, frames to
 * the new one are ours to answer. The program reads it from .bss.
 */
static void follow_mac(struct live *lv)
{
	struct bss_access bss;
	struct link_info now;
	int e;

	if (!lv->li.has_mac || link_get(NULL, lv->li.ifindex, &now) ||
	    !now.has_mac || !memcmp(now.mac, lv->li.mac, 6))
		return;
	e = bss_open(&bss, bpf_map__fd(lv->skel->maps.bss));
	if (!e)
		e = bss_set_mac(&bss, now.mac);
	bss_close(&bss);
	if (e) {
		err("%s: the MAC changed but the program could not follow: %s",
		    lv->li.name, strerror(-e));
		return;
	}
	memcpy(lv->li.mac, now.mac, 6);
	note("%s: MAC changed to %02x:%02x:%02x:%02x:%02x:%02x; following it",
	     lv->li.name, now.mac[0], now.mac[1], now.mac[2], now.mac[3],
	     now.mac[4], now.mac[5]);
}

int cmd_run(int argc, char **argv)
{
	struct snapshot prev = { 0 }, cur = { 0 };
	struct attach_opts o;
	struct attachment a;
	struct pollfd pfd[3];
	struct live lv;
	int mon = -1, sig = -1, tmr = -1, ret = 1;
	bool have_attachment = false, have_stats = false, print_stats;

	if (parse_attach(argc, argv, &o, true))
		return EXIT_USAGE;
	print_stats = o.interval > 0;
	if (o.metrics_file && !o.interval)
		o.interval = 15; /* node_exporter's scrape pace, more or less */
	/* Subscribe before reading the addresses, so no change slips between. */
	sig = signals_open();
	mon = monitor_open();
	if (sig < 0 || mon < 0) {
		err("%s: cannot listen for %s: %s", o.ifname,
		    sig < 0 ? "signals" : "netlink events",
		    strerror(-(sig < 0 ? sig : mon)));
		goto out_fds;
	}
	if (attach_up(&o, &lv))
		goto out_fds;
	have_attachment = !attachment_find(lv.li.ifindex, &a, NULL);
	have_stats = have_attachment && !snapshot_read(&a, &cur);
	/* A metrics file that cannot be written is a configuration error: say so now. */
	if (o.metrics_file && (!have_stats || prom_update_file(o.metrics_file, &a, &cur)))
		goto out_detach;
	tmr = timer_open(o.interval);
	note("%s: running; Ctrl-C or SIGTERM detaches", lv.li.name);

	pfd[0] = (struct pollfd){ .fd = sig, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = mon, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = tmr, .events = POLLIN };
	for (;;) {
		if (poll(pfd, tmr >= 0 ? 3 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			err("%s: poll: %s", lv.li.name, strerror(errno));
			break;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sig, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGHUP) {
				/* The systemd convention for "reload": resync. */
				addr_sync(lv.fd4, lv.fd6, &lv.li, false, NULL, NULL);
				continue;
			}
			note("%s: %s: detaching", lv.li.name, strsignal(si.ssi_signo));
			ret = 0;
			break;
		}
		if (pfd[1].revents & POLLIN) {
			int ev = monitor_read(mon, lv.li.ifindex);

			if (ev & EV_LINK_GONE) {
				err("%s was deleted; removing its pins", lv.li.name);
				pins_remove(lv.li.name);
				lv.attached = false; /* the kernel detached it with the device */
				break;
			}
			if (ev & (EV_LINK | EV_OVERRUN))
				follow_mac(&lv);
			if (ev & (EV_ADDRS | EV_OVERRUN)) {
				int n4 = 0, n6 = 0, e;

				e = addr_sync(lv.fd4, lv.fd6, &lv.li, false, &n4, &n6);
				if (e)
					err("%s: cannot resync addresses: %s", lv.li.name,
					    strerror(-e));
				else if (verbose)
					note("%s: addresses changed: %d IPv4, %d IPv6 from the interface",
					     lv.li.name, n4, n6);
			}
		}
		if (tmr >= 0 && (pfd[2].revents & POLLIN)) {
			__u64 ticks;

			if (read(tmr, &ticks, sizeof(ticks)) < 0)
				continue;
			if (!have_stats)
				continue;
			prev = cur;
			if (snapshot_read(&a, &cur))
				continue;
			if (print_stats)
				print_sample(&a, &prev, &cur, o.json, o.latency_sample);
			if (o.metrics_file)
				prom_update_file(o.metrics_file, &a, &cur);
		}
	}
	/* Counters of a detached program must not look alive to Prometheus. */
	if (o.metrics_file)
		unlink(o.metrics_file);
out_detach:
	if (have_attachment)
		attachment_close(&a);
	attach_down(&lv, true);
out_fds:
	if (tmr >= 0)
		close(tmr);
	if (mon >= 0)
		close(mon);
	if (sig >= 0)
		close(sig);
	return ret;
}
