// SPDX-License-Identifier: GPL-2.0
/*
 * GET /metrics and GET /healthz, over HTTP with libmicrohttpd (Debian's
 * libmicrohttpd12: a small embeddable server, maintained by GNU). It runs
 * in run's own poll loop (epoll mode, no thread), so a request reads the
 * maps in the same thread that changes what is served: no locks.
 *
 * It serves those two paths and nothing else: other paths 404, methods
 * other than GET and HEAD 405. A request must arrive, and be answered,
 * within HTTP_TIMEOUT_S of its connection's start (or of the previous
 * answer on a kept-alive one): slow clients (slowloris) are cut then.
 * Oversized requests get 431/413 from the library's memory limit, and the
 * connections are capped in all and per address: the library closes one
 * over the per-address cap as soon as it is accepted, and at the cap in
 * all it stops accepting, so the rest wait in the kernel's accept queue
 * (HTTP_BACKLOG) and beyond it the kernel drops their SYNs. None of it
 * costs the loop more than an accept and a close, so the watchdog's pets
 * and everything else in the loop keep their pace; pings never pass here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "service.h"

#define HTTP_TIMEOUT_S 5 /* a request must arrive and be answered within this */
#define HTTP_MAX_CONN 32
#define HTTP_MAX_CONN_PER_IP 8
#define HTTP_MEMORY_LIMIT 16384 /* per connection: request line and headers */
#define HTTP_BACKLOG 64         /* connections the kernel queues while we are full */

/* A connection the library holds, and when it must be done. */
struct http_conn {
	struct MHD_Connection *c; /* NULL: a free slot */
	int fd;
	__u64 deadline_ms; /* CLOCK_MONOTONIC */
	bool answering;    /* its request arrived whole: the library answers it */
	bool watched;      /* in ep, for the client's hang-up */
	bool hung_up;      /* the client closed its side */
	bool cut;          /* shut down, the library yet to close it */
};

struct http {
	struct MHD_Daemon *d;
	struct service *svc;
	int listen_fd;
	int ep; /* what run polls: the library's epoll fd and each connection's hang-up */
	/* The library holds at most HTTP_MAX_CONN: it counts a connection
	 * out only after telling us it closed. */
	struct http_conn conn[HTTP_MAX_CONN];
};

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status, const char *msg)
{
	char *body = strdup(msg);

	return body ? reply(c, status, "text/plain; charset=utf-8", body, strlen(body)) : MHD_NO;
}

/* 200 when every configured interface is attached and answering, else 503. */
static enum MHD_Result healthz(struct MHD_Connection *c, struct service *svc)
{
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	bool ok;

	if (!f)
		return MHD_NO;
	ok = service_health(svc, f);
	fclose(f);
	return reply(c, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
		     "text/plain; charset=utf-8", body, len);
}

static enum MHD_Result metrics(struct MHD_Connection *c, struct service *svc)
{
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	int ret;

	if (!f)
		return MHD_NO;
	ret = service_prom(svc, f);
	fclose(f);
	if (ret) {
		free(body);
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the counters\n");
	}
	return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", body, len);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct http *h = cls;
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	(void)version;
	(void)upload;
	/* Called once the headers are whole: the guard lets it be answered. */
	if (i && i->socket_context)
		((struct http_conn *)i->socket_context)->answering = true;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		/* A body is never read: answer at once and let the library drop it. */
		*upload_size = 0;
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	}
	if (!*state) {
		/* First call: headers only; answer on the second. */
		*state = h;
		return MHD_YES;
	}
	if (!strcmp(url, "/metrics"))
		return metrics(c, h->svc);
	if (!strcmp(url, "/healthz"))
		return healthz(c, h->svc);
	return text(c, MHD_HTTP_NOT_FOUND, "not found: this serves /metrics and /healthz\n");
}

/*
 * The guard: what the library (0.9.75) lacks, kept here from its
 * notifications of connections started, requests done and connections
 * closed.
 *  - A deadline per request: MHD_OPTION_CONNECTION_TIMEOUT counts from a
 *    connection's last byte, so a client sending a header byte a second
 *    is never cut by it (slowloris).
 *  - A client's hang-up: the library watches its sockets edge-triggered
 *    and takes a short read for "nothing more", so a client whose request
 *    and FIN arrived together, before the accept (all that waited in the
 *    accept queue while we were full), is seen to have gone only when its
 *    timeout comes; each would hold one of the HTTP_MAX_CONN places for
 *    HTTP_TIMEOUT_S after a flood. We watch each socket for EPOLLRDHUP,
 *    and once the library has read what the client sent, one that hung up
 *    is cut unless its request is being answered; one that sent a whole
 *    request and then closed its side gets its answer.
 * Either way the connection's socket is shut down, and the library reads
 * the end of the stream and closes it its usual way (the socket stays the
 * library's to close; a response it has written still goes out first).
 */
static void unwatch(struct http *h, struct http_conn *s)
{
	if (s->watched)
		epoll_ctl(h->ep, EPOLL_CTL_DEL, s->fd, NULL);
	s->watched = false;
}

static void cut(struct http *h, struct http_conn *s)
{
	shutdown(s->fd, SHUT_RDWR);
	s->cut = true;
	unwatch(h, s);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http *h = cls;
	struct http_conn *s = *socket_context;
	const union MHD_ConnectionInfo *fd;
	struct epoll_event ev = { .events = EPOLLRDHUP };

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		/* Before the library closes the socket. */
		if (s) {
			unwatch(h, s);
			s->c = NULL;
		}
		*socket_context = NULL;
		return;
	}
	fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (int i = 0; i < HTTP_MAX_CONN && !s; i++)
		if (!h->conn[i].c)
			s = &h->conn[i];
	if (!s || !fd) {
		/* Cannot happen (the library's cap is ours); refused, not unguarded. */
		if (fd)
			shutdown(fd->connect_fd, SHUT_RDWR);
		return;
	}
	*s = (struct http_conn){ .c = c,
				 .fd = fd->connect_fd,
				 .deadline_ms = now_ms() + HTTP_TIMEOUT_S * 1000 };
	ev.data.ptr = s;
	s->watched = !epoll_ctl(h->ep, EPOLL_CTL_ADD, s->fd, &ev);
	*socket_context = s;
}

/* A request answered (or abandoned): the next one on a kept-alive
 * connection has a deadline of its own. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct http_conn *s = i ? i->socket_context : NULL;

	(void)cls;
	(void)state;
	(void)toe;
	if (s && !s->cut) {
		s->answering = false;
		s->deadline_ms = now_ms() + HTTP_TIMEOUT_S * 1000;
	}
}

/* Before a run: note the hang-ups (once each), cut what is overdue. */
static void guard(struct http *h)
{
	struct epoll_event ev[HTTP_MAX_CONN + 1];
	int n = epoll_wait(h->ep, ev, HTTP_MAX_CONN + 1, 0);
	__u64 now = now_ms();

	for (int i = 0; i < n; i++) {
		struct http_conn *s = ev[i].data.ptr;

		if (!s)
			continue; /* the library's own epoll fd */
		s->hung_up = true;
		unwatch(h, s);
	}
	for (int i = 0; i < HTTP_MAX_CONN; i++) {
		struct http_conn *s = &h->conn[i];

		if (s->c && !s->cut && now >= s->deadline_ms)
			cut(h, s);
	}
}

/* After a run: a client that hung up, whose request the library has read
 * all of and is not answering, will never send the rest. */
static void cut_hung_up(struct http *h)
{
	for (int i = 0; i < HTTP_MAX_CONN; i++) {
		struct http_conn *s = &h->conn[i];
		int unread = 0;

		if (s->c && s->hung_up && !s->cut && !s->answering &&
		    !ioctl(s->fd, FIONREAD, &unread) && !unread)
			cut(h, s);
	}
}

/* Milliseconds to the next deadline, -1 if none. */
static int next_deadline_ms(const struct http *h)
{
	__u64 now = now_ms(), first = 0;

	for (int i = 0; i < HTTP_MAX_CONN; i++) {
		const struct http_conn *s = &h->conn[i];

		if (s->c && !s->cut && (!first || s->deadline_ms < first))
			first = s->deadline_ms;
	}
	if (!first)
		return -1;
	return first <= now ? 0 : (int)(first - now);
}

/* The library's epoll fd in ours, so that run polls one. 0 or -1. */
static int watch_library(struct http *h)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	return i ? epoll_ctl(h->ep, EPOLL_CTL_ADD, i->epoll_fd, &ev) : -1;
}

static unsigned int connections(const struct http *h)
{
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	return i ? i->num_connections : 0;
}

/* Our own socket, so a port in use or a foreign address is named as such;
 * with busy, a port in use is only told (*busy), not said. */
static int listen_on(const char *addr, struct sockaddr_storage *ss, bool *busy)
{
	socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						    sizeof(struct sockaddr_in);
	int fd, one = 1, e;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return log_error("--metrics-listen %s: cannot open a socket: %s", addr,
				 strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)ss, len) || listen(fd, HTTP_BACKLOG)) {
		e = errno;
		close(fd);
		if (busy && e == EADDRINUSE) {
			*busy = true;
			return -1;
		}
		return log_error("--metrics-listen %s: %s%s", addr, strerror(e),
				 e == EADDRNOTAVAIL ? " (not an address of this host)" :
				 e == EACCES ? " (a port below 1024 needs CAP_NET_BIND_SERVICE)" :
					       "");
	}
	return fd;
}

struct http *http_start(const char *addr, struct service *svc, bool *busy)
{
	struct sockaddr_storage ss;
	struct http *h;

	if (listen_parse(addr, &ss)) {
		log_error("--metrics-listen %s: expected ADDR:PORT", addr);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->svc = svc;
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	if (h->ep < 0) {
		log_error("--metrics-listen %s: epoll: %s", addr, strerror(errno));
		free(h);
		return NULL;
	}
	h->listen_fd = listen_on(addr, &ss, busy);
	if (h->listen_fd < 0) {
		close(h->ep);
		free(h);
		return NULL;
	}
	h->d = MHD_start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, handle, h, MHD_OPTION_LISTEN_SOCKET,
				h->listen_fd, MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)HTTP_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)HTTP_MAX_CONN, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				(unsigned int)HTTP_MAX_CONN_PER_IP,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
	if (!h->d || watch_library(h)) {
		log_error("--metrics-listen %s: cannot start the HTTP server", addr);
		if (h->d)
			MHD_stop_daemon(h->d);
		close(h->listen_fd);
		close(h->ep);
		free(h);
		return NULL;
	}
	return h;
}

int http_fd(const struct http *h)
{
	return h->ep;
}

int http_timeout_ms(const struct http *h)
{
	MHD_UNSIGNED_LONG_LONG t;
	int deadline = next_deadline_ms(h);

	if (MHD_get_timeout(h->d, &t) != MHD_YES)
		return deadline;
	if (t > 60000)
		t = 60000;
	return deadline >= 0 && deadline < (int)t ? deadline : (int)t;
}

void http_run(struct http *h)
{
	bool full;

	guard(h);
	full = connections(h) >= HTTP_MAX_CONN;
	MHD_run(h->d);
	cut_hung_up(h);
	/* At its cap the library takes the listening socket out of its epoll
	 * set, and puts it back only at the start of a run: run again now
	 * that there is room, or a connection waiting to be accepted would
	 * wait for the next unrelated event (the watchdog's timer, or
	 * forever without one). */
	if (full && connections(h) < HTTP_MAX_CONN)
		MHD_run(h->d);
}

void http_stop(struct http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	close(h->listen_fd);
	close(h->ep);
	free(h);
}
