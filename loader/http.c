// SPDX-License-Identifier: GPL-2.0
/*
 * GET /metrics and GET /healthz, over HTTP with libmicrohttpd (Debian's
 * libmicrohttpd12: a small embeddable server, maintained by GNU). It runs
 * in run's own poll loop (epoll mode, no thread), so a request reads the
 * maps in the same thread that changes what is served: no locks.
 *
 * It serves those two paths and nothing else: other paths 404, methods
 * other than GET and HEAD 405. Slow clients (slowloris) are cut after a
 * few seconds, oversized requests get 431/413 from the library's memory
 * limit, and the connections are capped in all and per address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "loader.h"

#define HTTP_TIMEOUT_S 5      /* a request must arrive whole within this */
#define HTTP_MAX_CONN 32
#define HTTP_MAX_CONN_PER_IP 8
#define HTTP_MEMORY_LIMIT 16384 /* per connection: request line and headers */

struct http {
	struct MHD_Daemon *d;
	struct service *svc;
	int listen_fd;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, char *body, size_t len)
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
	bool ok = true;

	if (!f)
		return MHD_NO;
	for (int i = 0; i < svc->n; i++) {
		const struct served *v = &svc->v[i];
		bool up = served_answering(v);

		ok &= up;
		if (up)
			fprintf(f, "%s: ok, program id %u, %s mode\n", v->name, v->a.prog_id, v->a.mode);
		else
			fprintf(f, "%s: not attached: %s\n", v->name,
				v->why[0] ? v->why : v->up ? "the program was detached behind our back" :
							      "not attached");
	}
	if (!svc->n) {
		ok = false;
		fprintf(f, "no interfaces configured\n");
	}
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

	(void)version;
	(void)upload;
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
	if (bind(fd, (struct sockaddr *)ss, len) || listen(fd, 64)) {
		e = errno;
		close(fd);
		if (busy && e == EADDRINUSE) {
			*busy = true;
			return -1;
		}
		return log_error("--metrics-listen %s: %s%s", addr, strerror(e),
				 e == EADDRNOTAVAIL ? " (not an address of this host)" :
				 e == EACCES ? " (a port below 1024 needs CAP_NET_BIND_SERVICE)" : "");
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
	h->listen_fd = listen_on(addr, &ss, busy);
	if (h->listen_fd < 0) {
		free(h);
		return NULL;
	}
	h->d = MHD_start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, handle, h,
				MHD_OPTION_LISTEN_SOCKET, h->listen_fd,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONN,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONN_PER_IP,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
				MHD_OPTION_END);
	if (!h->d) {
		log_error("--metrics-listen %s: cannot start the HTTP server", addr);
		close(h->listen_fd);
		free(h);
		return NULL;
	}
	return h;
}

int http_fd(const struct http *h)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);

	return i ? i->epoll_fd : -1;
}

int http_timeout_ms(const struct http *h)
{
	MHD_UNSIGNED_LONG_LONG t;

	if (MHD_get_timeout(h->d, &t) != MHD_YES)
		return -1;
	return t > 60000 ? 60000 : (int)t;
}

void http_run(struct http *h)
{
	MHD_run(h->d);
}

void http_stop(struct http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	close(h->listen_fd);
	free(h);
}
