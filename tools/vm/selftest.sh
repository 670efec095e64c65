#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Check, inside a tools/vm guest, what xdpong's tests rely on: bpffs,
# bpftool, network namespaces, a veth pair and ping across it, the two
# virtio-net NICs (run.sh --nics) with ping across them (one moved into a
# namespace), native (driver) XDP on virtio_net and on veth, and native
# XDP_TX on virtio_net back to its peer, with minimal XDP programs built
# here with clang. One line per check:
#
#	ok    veth ping across namespaces
#	FAIL  native XDP on virtio_net (eth0): Error: ...
#
# Usage: tools/vm/run.sh --nics [--kernel K] -- tools/vm/selftest.sh
# (as root; meant for a throwaway guest: it leaves what it creates).
# Exit: the number of failed checks.

set -u

PROG=tools/vm/selftest.sh
failed=0
WORK=$(mktemp -d /tmp/vm-selftest.XXXXXX) || exit 1
trap 'rm -rf -- "$WORK"' EXIT

ok()
{
	printf 'ok    %s\n' "$1"
}

fail()
{
	printf 'FAIL  %s%s\n' "$1" "${2:+: $2}"
	failed=$((failed + 1))
}

# check NAME CMD...: ok when CMD succeeds; its output's last line otherwise.
check()
{
	local name=$1 out

	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		fail "$name" "$(printf '%s\n' "$out" | grep . | tail -n 1)"
	fi
}

#
# Two minimal XDP programs, sections "xdp" (no frags: 5.10 has none):
# pass.o returns XDP_PASS; reflect.o swaps the Ethernet addresses and
# returns XDP_TX, sending every frame back where it came from.
#
build_xdp_progs()
{
	cat >"$WORK/pass.c" <<'EOF'
#include <linux/bpf.h>
__attribute__((section("xdp"), used)) int pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}
char _license[] __attribute__((section("license"), used)) = "GPL";
EOF
	cat >"$WORK/reflect.c" <<'EOF'
#include <linux/bpf.h>
__attribute__((section("xdp"), used)) int reflect(struct xdp_md *ctx)
{
	unsigned char *d = (unsigned char *)(long)ctx->data;
	unsigned char *end = (unsigned char *)(long)ctx->data_end;
	unsigned char t;
	int i;

	if (d + 12 > end)
		return XDP_DROP;
	for (i = 0; i < 6; i++) {
		t = d[i];
		d[i] = d[i + 6];
		d[i + 6] = t;
	}
	return XDP_TX;
}
char _license[] __attribute__((section("license"), used)) = "GPL";
EOF
	clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -c "$WORK/pass.c" -o "$WORK/pass.o" &&
		clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu \
			-c "$WORK/reflect.c" -o "$WORK/reflect.o"
}

#
# native_xdp_tx DEV (in namespace vmst-b) PEER (here) ADDR: XDP_TX in
# driver mode on DEV: pings to ADDR (DEV's, through a static neighbour
# entry) come back to PEER, reflected by DEV's driver: PEER's received
# frames grow by at least the pings sent (the namespace's kernel ignores
# echo requests meanwhile, so nothing else answers).
#
native_xdp_tx()
{
	local dev=$1 peer=$2 addr=$3 mac before after out msg

	mac=$(ip -n vmst-b -br link show dev "$dev" | awk '{ print $3 }')
	if ! out=$(ip -n vmst-b link set dev "$dev" xdpdrv obj "$WORK/reflect.o" sec xdp 2>&1); then
		fail "native XDP_TX on virtio_net ($dev)" \
			"$(printf '%s\n' "$out" | grep . | tail -n 1)"
		return
	fi
	ip neigh replace "$addr" lladdr "$mac" dev "$peer" nud permanent
	# Only the reflection may answer: the namespace's kernel does not.
	ip netns exec vmst-b sysctl -qw net.ipv4.icmp_echo_ignore_all=1
	before=$(cat "/sys/class/net/$peer/statistics/rx_packets")
	ping -c 5 -i 0.2 -W 1 "$addr" >/dev/null 2>&1
	after=$(cat "/sys/class/net/$peer/statistics/rx_packets")
	if [ $((after - before)) -ge 5 ]; then
		msg="native XDP_TX on virtio_net ($dev): $((after - before)) frames"
		ok "$msg reflected to $peer"
	else
		fail "native XDP_TX on virtio_net ($dev)" \
			"$peer received $((after - before)) frames, not 5"
		dmesg | tail -n 3 | sed 's/^/      dmesg: /'
	fi
	ip neigh del "$addr" dev "$peer" 2>/dev/null
	ip -n vmst-b link set dev "$dev" xdpdrv off
	ip netns exec vmst-b sysctl -qw net.ipv4.icmp_echo_ignore_all=0
}

# native_xdp NAME NS DEV PEER_ADDR: attach XDP_PASS in driver mode to DEV
# (in NS, "" for this one), see it as "xdp" (not xdpgeneric), ping across,
# detach.
native_xdp()
{
	local name=$1 ns=$2 dev=$3 peer=$4 nsargs=() out

	[ -n "$ns" ] && nsargs=(-n "$ns")
	if ! out=$(ip "${nsargs[@]}" link set dev "$dev" xdpdrv obj "$WORK/pass.o" \
		sec xdp 2>&1); then
		fail "native XDP on $name ($dev)" "$(printf '%s\n' "$out" | grep . | tail -n 1)"
		dmesg | tail -n 3 | sed 's/^/      dmesg: /'
		return
	fi
	if ip "${nsargs[@]}" -d link show dev "$dev" | grep -q 'prog/xdp id'; then
		ok "native XDP on $name ($dev) attached"
	else
		fail "native XDP on $name ($dev) attached" "ip link shows no driver-mode program"
	fi
	if [ -n "$ns" ]; then
		check "ping with native XDP on $name" ip netns exec "$ns" ping -c 2 -W 2 "$peer"
	else
		check "ping with native XDP on $name" ping -c 2 -W 2 "$peer"
	fi
	ip "${nsargs[@]}" link set dev "$dev" xdpdrv off
}

main()
{
	local nics

	[ "$(id -u)" -eq 0 ] ||
		{ echo "$PROG: must run as root (in a tools/vm guest)" >&2; exit 1; }
	echo "kernel $(uname -r)"
	check "bpffs at /sys/fs/bpf" mountpoint -q /sys/fs/bpf
	check "bpftool prog" bpftool prog show
	check "clang builds XDP programs" build_xdp_progs
	check "ip netns add" ip netns add vmst-a
	ip netns add vmst-b
	check "veth pair between namespaces" \
		ip link add va netns vmst-a type veth peer vb netns vmst-b
	ip -n vmst-a addr add 10.9.0.1/24 dev va
	ip -n vmst-b addr add 10.9.0.2/24 dev vb
	ip -n vmst-a link set va up
	ip -n vmst-b link set vb up
	check "veth ping across namespaces" ip netns exec vmst-a ping -c 2 -W 2 10.9.0.2
	# A veth needs XDP on both ends for native XDP_TX, not for XDP_PASS.
	[ -f "$WORK/pass.o" ] && native_xdp veth vmst-a va 10.9.0.2

	read -r -a nics <<<"${XDPONG_VM_NICS:-}"
	if [ "${#nics[@]}" -lt 2 ]; then
		echo "skip  virtio-net checks: no NICs (run.sh --nics)"
	else
		ok "two virtio-net NICs: ${nics[0]} ${nics[1]} ($(basename \
			"$(readlink "/sys/class/net/${nics[0]}/device/driver")"))"
		ip link set "${nics[1]}" netns vmst-b
		ip addr add 10.8.0.1/24 dev "${nics[0]}"
		ip link set "${nics[0]}" up
		ip -n vmst-b addr add 10.8.0.2/24 dev "${nics[1]}"
		ip -n vmst-b link set "${nics[1]}" up
		check "virtio-net ping ${nics[0]} -> ${nics[1]} (in a namespace)" \
			ping -c 3 -W 2 10.8.0.2
		echo "      queues: $(ethtool -l "${nics[0]}" 2>/dev/null |
			awk '/^Combined/ { printf "%s ", $2 }')(max, current)"
		[ -f "$WORK/pass.o" ] && native_xdp virtio_net vmst-b "${nics[1]}" 10.8.0.1
		[ -f "$WORK/reflect.o" ] && native_xdp_tx "${nics[1]}" "${nics[0]}" 10.8.0.2
	fi
	ip netns del vmst-a 2>/dev/null
	ip netns del vmst-b 2>/dev/null
	echo "$failed failed"
	return "$failed"
}

main "$@"
