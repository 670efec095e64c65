// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong run: serve one interface (IFACE and options) or every interface
 * of a config file (--config), in the foreground: follow addresses and
 * MACs through netlink, print stats every interval, serve /metrics and
 * /healthz, tell systemd how it is (notify, watchdog), reload on SIGHUP,
 * detach on SIGTERM, exit leaving the programs attached on SIGUSR1.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <systemd/sd-daemon.h>
#include "cmd.h"

static int signals_open(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
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
	double dt = seconds_between(&prev->mono, &cur->mono);

	if (dt <= 0)
		return;
	if (json) {
		json_print(stdout, json_stats(a, cur, prev, sample_every));
		return;
	}
	printf("%s: %.0f received/s, %.0f replied/s, %.0f passed/s, %.0f dropped/s (total %llu "
	       "replied)\n",
	       a->li.name, (cur->received - prev->received) / dt,
	       (cur->outcome[XDPONG_REPLIED] - prev->outcome[XDPONG_REPLIED]) / dt,
	       (cur->outcome[XDPONG_PASSED] - prev->outcome[XDPONG_PASSED]) / dt,
	       (cur->outcome[XDPONG_DROPPED] - prev->outcome[XDPONG_DROPPED]) / dt,
	       (unsigned long long)cur->outcome[XDPONG_REPLIED]);
	fflush(stdout);
}

/* The service's settings: from the command line, or from the config file
 * (cfg: the one in force, whose strings and addr list global borrows). */
struct settings {
	struct opts global;
	bool print_stats;
	struct config *cfg;
};

/* With global in force: samples printed only for --interval, and the
 * metrics file written every 15 s where no interval is asked for
 * (node_exporter's scrape pace, more or less). */
static void settings_interval(struct settings *st)
{
	st->print_stats = st->global.interval > 0;
	if (st->global.metrics_file && !st->global.interval)
		st->global.interval = 15;
}

/*
 * SIGHUP in config mode: read the file again; if it is valid, apply the
 * difference; if not, say why and change nothing.
 */
static void reload(struct service *svc, struct settings *st, const char *path, struct listener *ml)
{
	struct config *c = calloc(1, sizeof(*c));
	const char *old_listen = st->global.metrics_listen;

	if (!c)
		return;
	if (config_load(path, c)) {
		log_error("reload: %s; nothing changed", c->error);
		sd_notifyf(0, "STATUS=reload refused: %s", c->error);
		free(c);
		return;
	}
	/* A new listener first: if it cannot be had, the old one stays;
	 * then the probes, which keep theirs if the new ones cannot be had. */
	if ((c->global.metrics_listen || old_listen) &&
	    (!c->global.metrics_listen || !old_listen ||
	     strcmp(c->global.metrics_listen, old_listen))) {
		struct listener n = { .retry_fd = -1 };
		int bad = listener_open(&n, c->global.metrics_listen, svc);

		if (bad || probes_apply(&svc->probes, c->probes, c->n_probes)) {
			if (!bad)
				listener_close(&n);
			log_error("reload: the new --metrics-listen or [probe] sections cannot be "
				  "had; nothing changed");
			config_free(c);
			free(c);
			return;
		}
		listener_close(ml);
		*ml = n;
	} else if (probes_apply(&svc->probes, c->probes, c->n_probes)) {
		log_error("reload: the new [probe] sections cannot be had; nothing changed");
		config_free(c);
		free(c);
		return;
	}
	ml->addr = c->global.metrics_listen; /* the old config's string goes below */
	service_apply(svc, c);
	st->global = c->global;
	settings_interval(st);
	/* The old config's strings go now that nothing points into them. */
	config_free(st->cfg);
	free(st->cfg);
	st->cfg = c;
}

/* systemd's STATUS= line, naming the port still waited for. */
static void notify_status(const struct service *svc, const struct listener *ml)
{
	service_notify_status(svc, listener_waiting(ml) ? ml->addr : NULL);
}

static void on_event(int ifindex, int ev, void *arg)
{
	service_event(arg, ifindex, ev);
}

static int load_settings(const struct opts *cli, struct config *c, struct settings *st)
{
	if (cli->config) {
		/* The config is the whole truth: no IFACE, no other options. */
		for (int i = 0; i < opt_count; i++) {
			if (cli->seen[i] && strcmp(opt_table[i].name, "config") &&
			    strcmp(opt_table[i].name, "verbose")) {
				log_error("--%s: with --config, every setting comes from the file",
					  opt_table[i].name);
				return EXIT_USAGE;
			}
		}
		if (cli->n_args) {
			log_error("unexpected argument '%s': with --config, the interfaces come "
				  "from the file",
				  cli->args[0]);
			return EXIT_USAGE;
		}
		if (config_load(cli->config, c)) {
			log_error("%s", c->error);
			return 1;
		}
		st->global = c->global;
	} else {
		if (!cli->n_args) {
			log_error("missing interface (usage: xdpong run IFACE [options] | --config "
				  "FILE)");
			return EXIT_USAGE;
		}
		st->global = *cli;
		c->n_ifaces = 1;
		snprintf(c->ifaces[0].name, IF_NAMESIZE, "%s", cli->args[0]);
		c->ifaces[0].o = *cli;
		/* Its own copy: config_free frees it, main frees cli's. */
		if (opts_own_addrs(&c->ifaces[0].o)) {
			log_error("out of memory");
			return 1;
		}
	}
	if (st->global.json && !st->global.interval) {
		log_error("--json needs --interval (it prints the samples as JSON lines)");
		return EXIT_USAGE;
	}
	settings_interval(st);
	return 0;
}

enum { FD_SIG, FD_MON, FD_TIMER, FD_DOG, FD_HTTP, FD_LISTEN_RETRY, FD_CLOCK, FD_MAX };

/*
 * STAMP's clock is written anew every STAMP_CLOCK_SECS (the kernel's
 * synchronisation and error move), and at once when the real time clock
 * is set (a step moves the monotonic clock's offset to UTC): an absolute
 * real time timerfd that is cancelled on a set says both. -1 if none.
 */
#define STAMP_CLOCK_SECS 10
static int clock_timer_open(void)
{
	struct itimerspec its = { .it_interval = { .tv_sec = STAMP_CLOCK_SECS } };
	int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -1;
	clock_gettime(CLOCK_REALTIME, &its.it_value);
	its.it_value.tv_sec += STAMP_CLOCK_SECS;
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* What the poll loop's handlers share. */
struct loop {
	struct service *svc;
	struct settings *st;
	const char *config_path;
	struct listener *ml;    /* --metrics-listen */
	int sig, mon, tmr, dog; /* signalfd, netlink monitor, timerfds (-1: none) */
	int clk;                /* clock_timer_open()'s, with --stamp (-1: none) */
	bool keep;              /* leave the programs attached at exit */
	int ret;                /* the exit code, once the loop ends */
};

enum { LOOP_ON, LOOP_END };

/* A signal: SIGHUP reloads; SIGUSR1 exits, keeping the programs; the
 * rest detach and exit. */
static int on_signal_fd(struct loop *l)
{
	struct signalfd_siginfo si;

	if (read(l->sig, &si, sizeof(si)) != sizeof(si))
		return LOOP_ON;
	if (si.ssi_signo == SIGHUP) {
		sd_notify(0, "RELOADING=1");
		if (l->config_path) {
			double was = l->st->global.interval;

			reload(l->svc, l->st, l->config_path, l->ml);
			if (l->st->global.interval != was) {
				if (l->tmr >= 0)
					close(l->tmr);
				l->tmr = timer_open(l->st->global.interval);
			}
		} else {
			served_resync(&l->svc->v[0], false);
		}
		sd_notify(0, "READY=1");
		notify_status(l->svc, l->ml);
		return LOOP_ON;
	}
	l->ret = 0;
	if (si.ssi_signo == SIGUSR1) {
		/* systemd's RestartKillSignal: a restart, not a stop. */
		log_note("%s: exiting; the programs stay attached and answering, and the next "
			 "'xdpong run' or 'attach' takes them over",
			 strsignal(si.ssi_signo));
		sd_notify(0, "STOPPING=1\nSTATUS=restarting: the programs stay attached");
		l->keep = true;
		return LOOP_END;
	}
	log_note("%s: detaching", strsignal(si.ssi_signo));
	sd_notify(0, "STOPPING=1\nSTATUS=detaching: the kernel answers pings again");
	return LOOP_END;
}

/* systemd's watchdog: pet it only while every program it holds is still
 * attached. */
static void on_watchdog(struct loop *l)
{
	__u64 ticks;

	if (read(l->dog, &ticks, sizeof(ticks)) < 0)
		return;
	/* A detached one's leftovers are released first: systemd's kill
	 * (SIGABRT) leaves no time for it. */
	if (service_lost(l->svc)) {
		/* No more pets: systemd restarts us, and the new run attaches. */
		log_error("a program of this run is no longer attached; not telling the watchdog "
			  "all is well");
		sd_notify(0, "STATUS=a program was detached by someone else");
		return;
	}
	sd_notify(0, "WATCHDOG=1");
}

/* Every --interval: the counters, the samples printed, the metrics file. */
static void on_timer(struct loop *l)
{
	struct service *svc = l->svc;
	__u64 ticks;

	if (read(l->tmr, &ticks, sizeof(ticks)) < 0)
		return;
	service_tick(svc);
	notify_status(svc, l->ml);
	for (int i = 0; l->st->print_stats && i < svc->n; i++)
		if (svc->v[i].up && svc->v[i].have_stats)
			print_sample(&svc->v[i].a, &svc->v[i].prev, &svc->v[i].cur,
				     l->st->global.json, svc->v[i].o.latency_sample);
	if (l->st->global.metrics_file)
		service_write_metrics(svc, l->st->global.metrics_file);
}

/* STAMP's clock: its time came, or the real time clock was set (the
 * timer, cancelled, is made anew). */
static void on_clock(struct loop *l)
{
	__u64 ticks;

	if (read(l->clk, &ticks, sizeof(ticks)) < 0 && errno == ECANCELED) {
		close(l->clk);
		l->clk = clock_timer_open();
	}
	service_stamp_clock(l->svc);
}

/* The descriptors to wait on. */
static void loop_fds(const struct loop *l, struct pollfd *pfd)
{
	pfd[FD_SIG] = (struct pollfd){ .fd = l->sig, .events = POLLIN };
	pfd[FD_MON] = (struct pollfd){ .fd = l->mon, .events = POLLIN };
	pfd[FD_TIMER] = (struct pollfd){ .fd = l->tmr, .events = POLLIN };
	pfd[FD_DOG] = (struct pollfd){ .fd = l->dog, .events = POLLIN };
	pfd[FD_HTTP] = (struct pollfd){ .fd = l->ml->h ? http_fd(l->ml->h) : -1, .events = POLLIN };
	pfd[FD_LISTEN_RETRY] = (struct pollfd){ .fd = l->ml->retry_fd, .events = POLLIN };
	pfd[FD_CLOCK] = (struct pollfd){ .fd = l->clk, .events = POLLIN };
}

/* Wait for the loop's descriptors and the probes' (after pfd[FD_MAX]);
 * the probes are served at once, before a reload may change them. */
static int loop_poll(struct loop *l, struct pollfd *pfd)
{
	int http = l->ml->h ? http_timeout_ms(l->ml->h) : -1;
	int probes = probes_timeout_ms(&l->svc->probes), n, ret;

	loop_fds(l, pfd);
	n = probes_pollfds(&l->svc->probes, pfd + FD_MAX);
	ret = poll(pfd, FD_MAX + n, http < 0 || (probes >= 0 && probes < http) ? probes : http);
	if (ret >= 0)
		probes_run(&l->svc->probes, pfd + FD_MAX, n);
	return ret;
}

static int run_loop(struct service *svc, struct settings *st, const char *config_path,
		    struct listener *ml, int sig, int mon)
{
	struct loop l = { .svc = svc,
			  .st = st,
			  .config_path = config_path,
			  .ml = ml,
			  .sig = sig,
			  .mon = mon,
			  .tmr = timer_open(st->global.interval),
			  .dog = -1,
			  .clk = clock_timer_open(),
			  .ret = 1 };
	struct pollfd pfd[FD_MAX + PROBES_POLLFDS];
	uint64_t dog_usec = 0;

	/* systemd's watchdog (WatchdogSec=): pet it at half its period. */
	if (sd_watchdog_enabled(0, &dog_usec) > 0 && dog_usec)
		l.dog = timer_open(dog_usec / 2e6);
	for (;;) {
		if (loop_poll(&l, pfd) < 0) {
			if (errno == EINTR)
				continue;
			log_error("poll: %s", strerror(errno));
			break;
		}
		if (ml->h)
			http_run(ml->h);
		if (pfd[FD_LISTEN_RETRY].revents & POLLIN)
			listener_retry(ml, svc);
		if ((pfd[FD_SIG].revents & POLLIN) && on_signal_fd(&l) == LOOP_END)
			break;
		if (pfd[FD_SIG].revents & POLLIN)
			continue;
		if (pfd[FD_MON].revents & POLLIN) {
			monitor_read_all(mon, on_event, svc);
			service_flush(svc);
			if (svc->lost_one && !svc->wait_for_ifaces)
				break; /* the command line's interface is gone: exit 1 */
		}
		if (l.dog >= 0 && (pfd[FD_DOG].revents & POLLIN))
			on_watchdog(&l);
		if (l.tmr >= 0 && (pfd[FD_TIMER].revents & POLLIN))
			on_timer(&l);
		if (l.clk >= 0 && (pfd[FD_CLOCK].revents & POLLIN))
			on_clock(&l);
	}
	/* Counters of a detached program must not look alive to Prometheus;
	 * a kept one's file is rewritten by the next run. */
	if (st->global.metrics_file && !l.keep)
		unlink(st->global.metrics_file);
	for (int i = 0; i < svc->n; i++)
		served_down(&svc->v[i], !l.keep);
	if (l.tmr >= 0)
		close(l.tmr);
	if (l.dog >= 0)
		close(l.dog);
	if (l.clk >= 0)
		close(l.clk);
	return l.ret;
}

/* Where the ownership locks live must be usable before anything is
 * attached: a run that cannot own its interfaces changes nothing. 0 or -1. */
static int owner_dir_usable(void)
{
	char why[256];

	if (!owner_dir_ready(why, sizeof(why)))
		return 0;
	return log_error("%s: 'xdpong run' keeps its ownership locks there; nothing attached", why);
}

static int run_main(const struct opts *cli)
{
	struct config *c = calloc(1, sizeof(*c));
	struct service *svc = calloc(1, sizeof(*svc));
	struct settings st = { .cfg = c };
	struct listener ml = { .retry_fd = -1 };
	int sig = -1, mon = -1, ret = 1, up = 0;

	if (!c || !svc) {
		log_error("out of memory");
		goto out;
	}
	ret = load_settings(cli, c, &st);
	if (ret)
		goto out;
	ret = 1;
	if (require_privileges(PRIVS_ATTACH) || owner_dir_usable())
		goto out;
	svc->wait_for_ifaces = cli->config != NULL;
	/* Subscribe before reading the addresses, so no change slips between. */
	sig = signals_open();
	mon = monitor_open();
	if (sig < 0 || mon < 0) {
		log_error("cannot listen for %s: %s", sig < 0 ? "signals" : "netlink events",
			  strerror(-(sig < 0 ? sig : mon)));
		goto out;
	}
	/* A listener that cannot be had at all is a configuration error:
	 * before anything is attached, so a bad one changes nothing. A port
	 * another process holds is not: it is waited for (listen.c). */
	if (listener_open(&ml, st.global.metrics_listen, svc))
		goto out;
	if (service_fill(svc, c)) {
		log_error("out of memory");
		goto out;
	}
	/* Probes that cannot be had: before anything is attached, too. */
	if (probes_apply(&svc->probes, c->probes, c->n_probes))
		goto out;
	/* A metrics file that cannot be written is a configuration error: said
	 * before anything is attached (the first one says xdpong_up 0). */
	if (st.global.metrics_file) {
		service_write_metrics(svc, st.global.metrics_file);
		if (access(st.global.metrics_file, F_OK))
			goto out;
	}
	up = service_up_all(svc);
	if (up < 0)
		goto out_down;
	if (st.global.metrics_file)
		service_write_metrics(svc, st.global.metrics_file);
	sd_notifyf(0, "READY=1\nMAINPID=%d", getpid());
	notify_status(svc, &ml);
	log_note("running (pid %d), %d of %d interfaces attached; SIGTERM detaches, SIGUSR1 exits "
		 "leaving the programs attached for the next run",
		 getpid(), up, svc->n);
	ret = run_loop(svc, &st, cli->config, &ml, sig, mon);
	if (svc->lost_one && !svc->wait_for_ifaces)
		ret = 1;
	goto out;
out_down:
	for (int i = 0; i < svc->n; i++)
		served_down(&svc->v[i], true);
out:
	listener_close(&ml);
	if (sig >= 0)
		close(sig);
	if (mon >= 0)
		close(mon);
	if (st.cfg)
		config_free(st.cfg);
	free(st.cfg);
	if (svc)
		service_free(svc);
	free(svc);
	return ret;
}

const struct cmd_def cmd_run = {
	.id = CMD_RUN,
	.name = "run",
	.synopsis = "IFACE [options] | --config FILE",
	.min_args = 0,
	.max_args = 1,
	.iface_arg = true,
	.summary = "serve one interface, or a config file's, in the foreground (a service)",
	.description = "Attach xdpong to IFACE and stay in the foreground: addresses added to or\n"
		       "removed from IFACE take effect at once (netlink), stats are printed every\n"
		       "--interval seconds, SIGHUP rereads the addresses, SIGINT or SIGTERM\n"
		       "detach cleanly, and SIGUSR1 exits leaving the program attached and\n"
		       "answering for the next run to take over (a restart). While it runs it\n"
		       "owns IFACE: another run is refused, naming its pid. It takes over an\n"
		       "xdpong left by 'xdpong attach' or by a run that died, without a gap\n"
		       "and keeping its counters and prefixes. Under systemd (Type=notify) it\n"
		       "reports READY=1 once attached and pets the watchdog while the program\n"
		       "is still attached. If IFACE is deleted, its pins are removed and run\n"
		       "exits with status 1. A config file's [probe NAME] sections make it\n"
		       "probe too, as 'xdpong probe' does, with the metrics on /metrics.",
	.examples = "  xdpong run eth0\n"
		    "  xdpong run eth0 --addr 192.0.2.0/24 --interval 10\n"
		    "  xdpong run eth0 --interval 1 --json\n"
		    "  xdpong run eth0 --metrics-file "
		    "/var/lib/prometheus/node-exporter/xdpong-eth0.prom\n"
		    "  xdpong run --config /etc/xdpong/xdpong.conf\n"
		    "  systemctl start xdpong@eth0\n",
	.run = run_main,
};
