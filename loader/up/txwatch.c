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
#include "up.h"
#include "xdpong.skel.h"

int txwatch_start(struct attachment *a)
{
	struct loaded *l = a->loaded;
	struct bpf_program *progs[TXWATCH_LINKS] = {
		l->skel->progs.xdpong_tx_exception,
		l->skel->progs.xdpong_tx_bulk,
	};

	if (!feature_have(FEAT_TXWATCH))
		return -EOPNOTSUPP; /* status names the feature, and why */
	for (int i = 0; i < TXWATCH_LINKS; i++) {
		l->tx_link[i] = bpf_program__attach(progs[i]);
		if (!l->tx_link[i]) {
			int e = errno ? errno : EINVAL;

			txwatch_stop(l);
			log_note("%s: XDP_TX failures are not counted: cannot attach to the "
				 "tracepoint xdp:%s: %s",
				 a->li.name, i ? "xdp_bulk_tx" : "xdp_exception", strerror(e));
			return -e;
		}
	}
	return 0;
}

void txwatch_stop(struct loaded *l)
{
	for (int i = 0; i < TXWATCH_LINKS; i++) {
		/* Closes our descriptor; a pinned link lives on. */
		bpf_link__destroy(l->tx_link[i]);
		l->tx_link[i] = NULL;
	}
}

int txwatch_pin(const struct attachment *a)
{
	const struct loaded *l = a->loaded;
	char path[320];

	for (int i = 0; i < TXWATCH_LINKS; i++) {
		if (!l->tx_link[i])
			continue;
		pin_link_path(a->li.name, i, path, sizeof(path));
		unlink(path); /* an old program's: this one's replaces it */
		if (bpf_link__pin(l->tx_link[i], path))
			return -errno;
	}
	return 0;
}
