// SPDX-License-Identifier: GPL-2.0
/*
 * XDP_TX that the driver did not send. The BPF object's two tracepoint
 * programs (bpf/xdpong.bpf.c, at the end) count them into xdpong_txfail
 * for this interface; here they are attached next to the XDP program and
 * pinned beside its maps, so that the count goes on after `xdpong attach`
 * exits and while `xdpong run` restarts. A link dies with its last
 * reference: the pin, or the process that made it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader.h"
#include "xdpong.skel.h"
#include "probe.h"

int txwatch_start(struct attachment *a)
{
	struct bpf_program *progs[TXWATCH_LINKS] = {
		a->skel->progs.xdpong_tx_exception,
		a->skel->progs.xdpong_tx_bulk,
	};

	if (!feature_have(FEAT_TXWATCH))
		return -EOPNOTSUPP; /* status names the feature, and why */
	for (int i = 0; i < TXWATCH_LINKS; i++) {
		a->tx_link[i] = bpf_program__attach(progs[i]);
		if (!a->tx_link[i]) {
			int e = errno ? errno : EINVAL;

			txwatch_stop(a);
			log_note("%s: XDP_TX failures are not counted: cannot attach to the "
				 "tracepoint xdp:%s: %s",
				 a->li.name, i ? "xdp_bulk_tx" : "xdp_exception", strerror(e));
			return -e;
		}
	}
	return 0;
}

void txwatch_stop(struct attachment *a)
{
	for (int i = 0; i < TXWATCH_LINKS; i++) {
		/* Closes our descriptor; a pinned link lives on. */
		bpf_link__destroy(a->tx_link[i]);
		a->tx_link[i] = NULL;
	}
}

int txwatch_pin(const struct attachment *a)
{
	char path[320];

	for (int i = 0; i < TXWATCH_LINKS; i++) {
		if (!a->tx_link[i])
			continue;
		pin_link_path(a->li.name, i, path, sizeof(path));
		unlink(path); /* an old program's: this one's replaces it */
		if (bpf_link__pin(a->tx_link[i], path))
			return -errno;
	}
	return 0;
}

/* Is program prog_id a tracepoint program that uses the map map_id? (The
 * XDP program names the map too, and in libxdp's dispatcher it is held by
 * a link of its own.) */
static bool prog_uses_map(__u32 prog_id, __u32 map_id)
{
	struct bpf_prog_info pi = { 0 };
	__u32 ids[32], len = sizeof(pi);
	bool uses = false;
	int fd = bpf_prog_get_fd_by_id(prog_id);

	if (fd < 0)
		return false;
	pi.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	pi.map_ids = (__u64)(unsigned long)ids;
	if (!bpf_obj_get_info_by_fd(fd, &pi, &len) && pi.type == BPF_PROG_TYPE_TRACING)
		for (__u32 i = 0; i < pi.nr_map_ids && i < 32; i++)
			uses |= ids[i] == map_id;
	close(fd);
	return uses;
}

/*
 * The links are found the way the maps are (attachment.c): from what the
 * kernel holds, not from pins, which `ip netns exec` cannot see. Every
 * link on the host is looked at: a handful, and only when asked.
 */
int txwatch_count(const struct attachment *a)
{
	__u32 id = 0;
	int n = 0;

	if (a->map_fd[MAP_TXFAIL] < 0)
		return -ENOENT;
	/* Without CAP_SYS_ADMIN no link can be had by id: the pinned ones. */
	if (!privs_by_id) {
		for (int i = 0; i < TXWATCH_LINKS; i++) {
			char path[320];
			int fd;

			pin_link_path(a->li.name, i, path, sizeof(path));
			fd = bpf_obj_get(path);
			if (fd >= 0) {
				n++;
				close(fd);
			}
		}
		return n;
	}
	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info li = { 0 };
		__u32 len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone meanwhile */
		if (!bpf_obj_get_info_by_fd(fd, &li, &len) &&
		    prog_uses_map(li.prog_id, a->map_id[MAP_TXFAIL]))
			n++;
		close(fd);
	}
	return n;
}

int txwatch_read(int fd, __u64 *tx_failed)
{
	struct layout l;
	const struct layout_field *f;
	void *buf = NULL;
	int ncpu, ret;

	*tx_failed = 0;
	ret = layout_of_fd(fd, &l);
	if (ret)
		return ret;
	f = layout_find(&l, "tx_failed");
	if (!f || f->size != sizeof(__u64))
		return -EPROTO;
	ret = layout_read_one(fd, &l, &buf, &ncpu);
	for (int cpu = 0; !ret && cpu < ncpu; cpu++) {
		__u64 v;

		memcpy(&v, (char *)layout_cpu(&l, buf, cpu) + f->off, sizeof(v));
		*tx_failed += v;
	}
	free(buf);
	return ret;
}
