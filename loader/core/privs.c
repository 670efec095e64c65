// SPDX-License-Identifier: GPL-2.0
/*
 * What each command needs of the kernel, checked up front so the failure
 * names the capabilities instead of an EPERM from deep inside libbpf.
 *
 * CAP_BPF: every bpf(2) command xdpong uses (Debian sets
 * kernel.unprivileged_bpf_disabled). CAP_PERFMON: loading the program
 * (its XDP_TX failure counters are tracing programs) and the extension
 * program of libxdp's dispatcher. CAP_NET_ADMIN: attaching and detaching
 * XDP (RTM_SETLINK). CAP_SYS_ADMIN implies CAP_BPF and CAP_PERFMON.
 *
 * CAP_SYS_ADMIN is what the kernel asks to hand out programs, maps and BTF
 * by id (BPF_*_GET_FD_BY_ID). With it, xdpong finds itself through the
 * program attached to the interface, wherever it runs. Without it, xdpong
 * finds itself through its own pins (attachment.c) and reads its maps'
 * layouts from the BTF its loader left in /run/xdpong/btf (btfstore.c).
 * Three things then stay out of reach, each said where it is met: sharing
 * an interface in libxdp's dispatcher (libxdp finds the dispatcher by id),
 * an xdpong without pins (a fresh `ip netns exec` has its own /sys), and
 * mounting a bpffs.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "core.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

bool privs_by_id = true;

/* Effective capability bit n, from capget(2); no libcap needed. */
static bool have_cap(const struct __user_cap_data_struct d[2], int n)
{
	return d[n / 32].effective & (1U << (n % 32));
}

/* "A", "A and B", "A, B and C" of the n names. */
static void join(char *buf, size_t size, const char *const *names, int n)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s",
				!i         ? "" :
				i == n - 1 ? " and " :
					     ", ",
				names[i]);
}

int require_privileges(enum privs_need need)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };
	const char *names[3];
	char missing[96];
	int n = 0;
	bool admin;

	/* Root in a container may lack them: the uid alone says nothing. */
	if (syscall(SYS_capget, &h, d))
		return log_error("cannot read this process's capabilities: %s", strerror(errno));
	admin = have_cap(d, CAP_SYS_ADMIN);
	privs_by_id = admin;
	if (!admin && !have_cap(d, CAP_BPF))
		names[n++] = "CAP_BPF";
	if (need == PRIVS_ATTACH && !admin && !have_cap(d, CAP_PERFMON))
		names[n++] = "CAP_PERFMON";
	if (need != PRIVS_READ && !have_cap(d, CAP_NET_ADMIN))
		names[n++] = "CAP_NET_ADMIN";
	join(missing, sizeof(missing), names, n);
	if (!missing[0])
		return 0;
	return log_error("%s: missing %s (%s; see xdpong(8), SECURITY)",
			 geteuid() ? "must run as root" :
				     "running as root but without the needed capabilities",
			 missing,
			 need == PRIVS_READ   ? "reading xdpong's maps needs CAP_BPF" :
			 need == PRIVS_DETACH ? "detaching needs CAP_BPF and CAP_NET_ADMIN" :
						"loading and attaching need CAP_BPF, CAP_PERFMON "
						"and CAP_NET_ADMIN");
}
