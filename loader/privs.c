// SPDX-License-Identifier: GPL-2.0
/*
 * What every command needs of the kernel, checked up front so the failure
 * names the capability instead of an EPERM from deep inside libbpf.
 *
 * CAP_SYS_ADMIN: every command finds xdpong through the program attached
 * to the interface (BPF_PROG_GET_FD_BY_ID, BPF_MAP_GET_FD_BY_ID), and the
 * kernel allows those only with CAP_SYS_ADMIN, whatever else is held. It
 * also implies what CAP_BPF and CAP_PERFMON grant (bpf_capable(),
 * perfmon_capable()), so loading needs neither on its own.
 * It is also what mounting a bpffs at /sys/fs/bpf takes.
 * CAP_NET_ADMIN: attaching and detaching XDP (RTM_SETLINK). The read-only
 * commands need it only because they share the check; requiring one set
 * for every command keeps the message, xdpong(8) and the unit in step.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "loader.h"

/* Effective capability bit n, from capget(2); no libcap needed. */
static bool have_cap(const struct __user_cap_data_struct d[2], int n)
{
	return d[n / 32].effective & (1U << (n % 32));
}

int require_privileges(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };
	const char *missing;

	/* Root in a container may lack them: the uid alone says nothing. */
	if (syscall(SYS_capget, &h, d))
		return log_error("cannot read this process's capabilities: %s",
				 strerror(errno));
	if (!have_cap(d, CAP_SYS_ADMIN) && !have_cap(d, CAP_NET_ADMIN))
		missing = "CAP_SYS_ADMIN and CAP_NET_ADMIN";
	else if (!have_cap(d, CAP_SYS_ADMIN))
		missing = "CAP_SYS_ADMIN";
	else if (!have_cap(d, CAP_NET_ADMIN))
		missing = "CAP_NET_ADMIN";
	else
		return 0;
	return log_error("%s: missing %s (xdpong needs CAP_SYS_ADMIN and CAP_NET_ADMIN; see xdpong(8), SECURITY)",
			 geteuid() ? "must run as root" :
				     "running as root but without the needed capabilities",
			 missing);
}
