#!/usr/bin/env bash
# Ad hoc 2-queue rate: main's build and this branch's, limits off and on.
set -u
NEW=/work/wt-limits/build/xdpong BASE=/tmp/wtl/base/build/xdpong
SECS=${SECS:-2} ROUNDS=${ROUNDS:-3}
LIM="--rate-limit 1000000000:1000000000 --global-limit 1000000000:1000000000"
cleanup() { ip netns del xmq-s 2>/dev/null; ip netns del xmq-r 2>/dev/null; rm -rf /sys/fs/bpf/xdpong/xmqr /sys/fs/bpf/xdpong/xmqs; }
trap cleanup EXIT
cleanup
ip netns add xmq-s; ip netns add xmq-r
for n in xmq-s xmq-r; do ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; done
ip -n xmq-s link add xmqs numtxqueues 2 numrxqueues 2 address 02:b0:00:00:00:01 type veth peer name xmqr numtxqueues 2 numrxqueues 2 address 02:b0:00:00:00:02 netns xmq-r
ip -n xmq-s addr add 198.18.0.1/24 dev xmqs; ip -n xmq-r addr add 198.18.0.2/24 dev xmqr
ip -n xmq-s link set xmqs up; ip -n xmq-r link set xmqr up; ip -n xmq-s link set lo up; ip -n xmq-r link set lo up
ip -n xmq-s neigh replace 198.18.0.2 lladdr 02:b0:00:00:00:02 dev xmqs nud permanent
ip -n xmq-r neigh replace 198.18.0.1 lladdr 02:b0:00:00:00:01 dev xmqr nud permanent
/tmp/wtl/mqrate 1 0 attach-only || exit 1
for r in $(seq 1 $ROUNDS); do
	for cfg in "base off" "base on" "new off" "new on"; do
		set -- $cfg
		bin=$BASE; [ $1 = new ] && bin=$NEW
		args=""; [ $2 = on ] && args=$LIM
		nsenter --net=/run/netns/xmq-r $bin attach xmqr --mode native $args >/dev/null 2>&1 ||
			{ echo "attach $cfg failed"; nsenter --net=/run/netns/xmq-r $bin attach xmqr --mode native $args; exit 1; }
		for n in 1 2; do
			printf 'round %s %-9s ' "$r" "$cfg"
			/tmp/wtl/mqrate $n $SECS
		done
		nsenter --net=/run/netns/xmq-r $bin detach xmqr >/dev/null 2>&1
	done
done
