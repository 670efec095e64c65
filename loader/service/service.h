/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's third floor, loader/service/: what `xdpong run` keeps
 * running. It owns the config file (conffile.c), the Prometheus text
 * (prom.c), the interfaces served and their health (service.c), the HTTP
 * endpoints (http.c), listening for them (listen.c) and the probes of its
 * [probe NAME] sections (probes.c), whose names it resolves off its loop
 * (lookup.c). It brings interfaces up and down only through up/up.h, and
 * reads them through core/core.h; it includes no header above it.
 * Returns: core.h's legend.
 */
#ifndef XDPONG_SERVICE_H
#define XDPONG_SERVICE_H

#include "../up/up.h"

/* ---- conffile.c: /etc/xdpong/xdpong.conf ---- */
#define CONFIG_DEFAULT "/etc/xdpong/xdpong.conf"
#define CONFIG_MAX_IFACES 64
#define CONFIG_MAX_STRINGS 64
struct config_iface {
	char name[IF_NAMESIZE];
	char file[256]; /* where its section is, for messages */
	int line;
	struct opts o; /* [global] merged with its own keys; owns its addr list */
};
/* [probe NAME]: what the service probes, and how (xdpong(8), CONFIG FILE). */
#define CONFIG_MAX_PROBES 16
#define CONFIG_PROBE_NAME 64
struct config_probe {
	char name[CONFIG_PROBE_NAME];
	char file[256]; /* where its section is, for messages */
	int line;
	char *targets; /* the targets keys' words, space-separated (heap) */
	bool icmp;
	unsigned int port, size;
	double interval, timeout;
	bool sized;      /* size given */
	int ttl, tos;    /* -1: the kernel's */
	int family;      /* AF_UNSPEC, or the one family key or source allows */
	char source[64]; /* an interface or a local address, or "" */
};
struct config {
	struct opts global;
	int n_ifaces;
	struct config_iface ifaces[CONFIG_MAX_IFACES];
	int n_probes;
	struct config_probe probes[CONFIG_MAX_PROBES];
	char *strings[CONFIG_MAX_STRINGS]; /* values the opts point into */
	int n_strings;
	char error[512]; /* "FILE:LINE: what, and the fix" */
};
/* Parse path (and its includes) into c. 0, or -1 with c->error set.
 * Changes nothing but c. */
int config_load(const char *path, struct config *c);
/* The family of a [probe]'s target word that is an address (a scope after
 * '%' aside): AF_INET or AF_INET6; 0 for a name. */
int config_addr_family(const char *word);
/* What c holds (its strings, its addr lists); again is harmless. */
void config_free(struct config *c);

/* ---- prom.c: Prometheus text format ---- */
/* One interface to report: a and s NULL when it is configured but not
 * attached (it gets xdpong_up 0 and nothing else). */
struct prom_iface {
	const char *name;
	const struct attachment *a;
	const struct snapshot *s;
};
int prom_print_all(FILE *f, const struct prom_iface *v, int n);
int prom_print(FILE *f, const struct attachment *a, const struct snapshot *s);
/* Rewrite path atomically; errors are printed once, not every interval. */
int prom_update_file(const char *path, const struct prom_iface *v, int n);

/* ---- lookup.c: names resolved by threads, off run's loop ---- */
struct lookup;
/* A lookup of at most max names, not started; NULL if out of memory. */
struct lookup *lookup_new(int max);
/* Name word of family (as probe_resolve takes it), once. 0 or -errno. */
int lookup_add(struct lookup *l, const char *word, int family);
int lookup_count(const struct lookup *l);
/* Resolve each name in a thread; one that cannot be had fails its name. */
void lookup_start(struct lookup *l);
/* Readable when a name is done. */
int lookup_fd(const struct lookup *l);
/* The names done since the last call become lookup_result's; true once
 * every name is done. */
bool lookup_collect(struct lookup *l);
/* Word of family, if lookup_collect last had it: 0 with its addresses
 * (t, n), -1 with why it failed; 1 if not. */
int lookup_result(const struct lookup *l, const char *word, int family,
		  const struct probe_target **t, int *n, const char **why);
/* Let go of l (NULL: nothing); threads still resolving free it after. */
void lookup_put(struct lookup *l);

/* ---- probes.c: the [probe NAME] sections, probing as a service ---- */
#define PROBES_RESOLVE_S 30     /* names resolved again this often */
#define PROBES_TARGETS_MAX 4096 /* a section's addresses, at most */
#define PROBES_POLLFDS (2 * CONFIG_MAX_PROBES + 1)
struct pollfd;
struct probes {
	int n;
	struct config_probe cfg[CONFIG_MAX_PROBES]; /* their targets: copies of their own */
	struct prober *p[CONFIG_MAX_PROBES];
	unsigned long long resolve_ns; /* next lookup of the names (CLOCK_MONOTONIC), 0: none */
	struct lookup *lk;             /* the names' lookup under way, or NULL */
	bool lk_say;                   /* it says what does not resolve (a load's, a reload's) */
};
/*
 * Probe as v says (n sections) instead of as ps did: a section of the same
 * name and settings keeps its sockets and every target that stays keeps
 * its counts and its probes in flight; one changed otherwise starts anew,
 * keeping the counts of the targets that stay (of the same protocol).
 * Addresses are probed at once; names keep the addresses they had, and
 * are looked up in the background (a name that does not resolve is said
 * and tried again later). 0, or -1 (said) with ps as it was.
 */
int probes_apply(struct probes *ps, const struct config_probe *v, int n);
void probes_free(struct probes *ps);
/* The fds to poll for them, at most PROBES_POLLFDS: how many. */
int probes_pollfds(const struct probes *ps, struct pollfd *pfd);
/* After poll (pfd, n: as probes_pollfds gave them): read what is ready,
 * send what is due, take a lookup's names, and look them up again when it
 * is time. */
void probes_run(struct probes *ps, const struct pollfd *pfd, int n);
/* How long poll may wait for them, ms (-1: no probes). */
int probes_timeout_ms(const struct probes *ps);
/* Their metrics (xdpong_probe_*), nothing without probes. */
void probes_prom(const struct probes *ps, FILE *f);

/* ---- service.c: the interfaces `xdpong run` serves ---- */
struct served {
	char name[IF_NAMESIZE];
	struct opts o; /* its settings, with an addr list of its own */
	int owner_fd;  /* owner.c's claim, -1 if none */
	int owned_ifindex;
	bool up;             /* attached by this run */
	struct attachment a; /* when up */
	time_t since;        /* attached since */
	char why[256];       /* why not up */
	bool missing;        /* not up because the interface does not exist */
	struct snapshot prev, cur;
	bool have_stats;
	bool resync;       /* addresses changed: service_flush() resyncs */
	bool lost;         /* detached behind our back: service_lost() released it */
	bool phc_failed;   /* --stamp-driver: the NIC's clock could not be read (said) */
	__u32 self_xdp_id; /* the dispatcher's id self_record() last wrote */
};
struct service {
	struct served v[CONFIG_MAX_IFACES];
	int n;
	struct probes probes; /* [probe NAME]: beside the responder, never in its health */
	bool wait_for_ifaces; /* config mode: a missing interface is waited for */
	bool lost_one;        /* an interface was deleted (ends a CLI-mode run) */
};
/* Claim, then load or take over. 0, or -1 with why set (and said, except
 * a missing interface: v->missing, which the caller may wait for). */
int served_up(struct served *v);
void served_down(struct served *v, bool detach);
/* Make the interface-origin addresses equal the interface's. */
void served_resync(struct served *v, bool quiet);
/* STAMP's clock offset and Error Estimate, written anew into every
 * program of the run that reflects STAMP (the clock may have been set,
 * or lost or gained its synchronisation). */
void service_stamp_clock(struct service *svc);
/* Is our program still the one on the interface? */
bool served_answering(const struct served *v);
/* How many attached interfaces' programs are no longer on them (detached
 * behind our back); what would outlive us of each is released: libxdp's
 * pins of a dispatcher detached without it, and our pins. */
int service_lost(struct service *svc);
/* A netlink event (monitor_read_all's callback). Address changes are
 * only marked: service_flush() resyncs once the socket is drained. */
void service_event(struct service *svc, int ifindex, int ev);
void service_flush(struct service *svc);
/* Read every attached interface's counters (prev keeps the last ones). */
void service_tick(struct service *svc);
/* /metrics and the metrics file: every interface, attached or not. */
int service_prom(struct service *svc, FILE *f);
/* The metrics file (--metrics-file) rewritten: every interface. */
void service_write_metrics(struct service *svc, const char *path);
/* systemd's STATUS= line: what is answered, and busy (the --metrics-listen
 * address another process holds; NULL if none). */
void service_notify_status(const struct service *svc, const char *busy);
/* A new configuration: interfaces added, removed, changed; the rest
 * untouched. 0, -errno. */
int service_apply(struct service *svc, const struct config *c);
/* The configured interfaces, as served entries (not yet attached).
 * 0 or -ENOMEM. */
int service_fill(struct service *svc, const struct config *c);
/* Free what the served entries own (after served_down). */
void service_free(struct service *svc);
/* Attach every interface: how many are up, or -1 when the command line's
 * one interface cannot be (a config's missing ones are waited for). */
int service_up_all(struct service *svc);
/* /healthz's body on f, a line per interface: whether every configured
 * interface is attached and answering. */
bool service_health(const struct service *svc, FILE *f);

/* ---- http.c: GET /metrics and /healthz ---- */
struct http;
/* Listen on addr ("127.0.0.1:9435"). NULL with the reason said; with
 * busy, a port another process holds sets *busy and is not said. */
struct http *http_start(const char *addr, struct service *svc, bool *busy);
/* The fd to poll for it, and how long to wait at most (ms, -1: forever). */
int http_fd(const struct http *h);
int http_timeout_ms(const struct http *h);
/* Serve what is ready; call when its fd is readable or the timeout passed. */
void http_run(struct http *h);
void http_stop(struct http *h);

/* ---- listen.c: --metrics-listen, tried again while the port is taken ---- */
#define LISTEN_RETRY_S 5
struct listener {
	const char *addr; /* NULL: none asked for */
	struct http *h;   /* NULL while not listening */
	int retry_fd;     /* a timerfd while waiting for the port, else -1 */
};
/* Listen on addr (NULL: none). 0 when listening, or when another process
 * holds the port (said once; listener_retry tries again), -1 when addr
 * cannot be listened on at all (said). l is untouched on -1. */
int listener_open(struct listener *l, const char *addr, struct service *svc);
/* retry_fd is readable: one more try. */
void listener_retry(struct listener *l, struct service *svc);
/* Still waiting for the port? */
bool listener_waiting(const struct listener *l);
void listener_close(struct listener *l);

#endif /* XDPONG_SERVICE_H */
