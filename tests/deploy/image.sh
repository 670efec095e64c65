#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deploy/build-image.sh builds the OCI image from Debian packages only, and
# what is in it works: the image's entrypoint, command and stop signal are
# the documented ones; its files, read through `podman image mount`, hold
# the binary with every library it needs; and chrooted into them, the
# image's own loader and libraries run `xdpong --version`, `xdpong --help`
# and `xdpong config check` of the image's config.
#
# Not tested here: `podman run` (crun cannot set rlimits in this sandbox)
# and a cluster (there is none). The Debian base is cached under
# /var/cache/xdpong-deploy/ (deploy/build-image.sh), for every clone on
# the machine; its first fetch takes about two minutes, and when that does
# not fit in the test's time, the test skips.
. "$(dirname "$0")/../lib/deploy.bash"

xdpt_require_root
xdpt_require_cmd make tar chroot
[ -x "$XDPONG" ] || xdpt_fail "$XDPONG is missing: run 'make' first"
xdpt_tmpdir
TAG=localhost/xdpong-test:$XDPT_ID
MNT=

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup_image()
{
	[ -n "$MNT" ] && podman image unmount "$TAG" >/dev/null 2>&1
	podman image exists "$TAG" 2>/dev/null && podman rmi -f "$TAG" >/dev/null 2>&1
	return 0
}
# The test's exit code goes on to xdpt_cleanup, which exits with it.
trap 'rc=$?; cleanup_image; (exit "$rc"); xdpt_cleanup' EXIT

xdpt_log "1. build the image as $TAG"
dp_build --image "$TAG"
command -v podman >/dev/null 2>&1 || xdpt_fail "build-image.sh succeeded without podman"
podman image exists "$TAG" || xdpt_fail "no image $TAG after the build"
version=$("$XDPT_REPO/tools/version.sh")

xdpt_log "2. its configuration"
cfg=$(podman image inspect --format '{{json .Config}}' "$TAG") ||
	xdpt_fail "podman image inspect $TAG failed"
xdpt_log "$cfg"
xdpt_assert_eq '["/usr/sbin/xdpong"]' "$(jq -c .Entrypoint <<<"$cfg")" "Entrypoint"
xdpt_assert_eq '["run","--config","/etc/xdpong/xdpong.conf"]' "$(jq -c .Cmd <<<"$cfg")" "Cmd"
xdpt_assert_match '"PATH=[^"]*/usr/sbin' "$(jq -c .Env <<<"$cfg")" "PATH for kubectl exec"
# SIGTERM: xdpong run detaches and exits (deploy/README.md).
xdpt_assert_eq 15 "$(jq -r .StopSignal <<<"$cfg")" "StopSignal"
xdpt_assert_eq "$version" "$(jq -r '.Labels["org.opencontainers.image.version"]' <<<"$cfg")" \
	"version label"
layers=$(podman image inspect --format '{{len .RootFS.Layers}}' "$TAG")
xdpt_assert_eq 1 "$layers" "layers (one imported rootfs)"

xdpt_log "3. its files, through podman image mount"
MNT=$(podman image mount "$TAG") || xdpt_fail "podman image mount $TAG failed"
[ -d "$MNT/usr" ] || xdpt_fail "podman image mount gave '$MNT', which holds no /usr"
for f in usr/sbin/xdpong etc/xdpong/xdpong.conf usr/share/man/man8/xdpong.8 \
	usr/share/doc/xdpong/examples/xdpong.conf etc/os-release; do
	[ -f "$MNT/$f" ] || xdpt_fail "not in the image: /$f"
done
[ -d "$MNT/run/xdpong" ] ||
	xdpt_fail "not in the image: /run/xdpong (the DaemonSet's include directory)"
cmp -s "$MNT/usr/sbin/xdpong" "$XDPONG" ||
	xdpt_fail "the image's /usr/sbin/xdpong is not build/xdpong"
cmp -s "$MNT/etc/xdpong/xdpong.conf" "$XDPT_REPO/deploy/xdpong.conf" ||
	xdpt_fail "the image's /etc/xdpong/xdpong.conf is not deploy/xdpong.conf"
xdpt_assert_match '^VERSION_CODENAME=bookworm$' "$(cat "$MNT/etc/os-release")" \
	"the image's Debian release"
# Debian's packages only, each one registered with dpkg (so scanners see them).
# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
pkgs=$(chroot "$MNT" dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 2>&1) ||
	xdpt_fail "dpkg-query in the image failed: $pkgs"
for p in libbpf1 libxdp1 libelf1 zlib1g libjson-c5 libsystemd0 libinih1 libmicrohttpd12 libc6; do
	xdpt_assert_match "^ii +$p(:[a-z0-9]+)?\$" "$pkgs" "package $p installed in the image"
done
xdpt_assert_no_match '^ii +(apt|perl|usrmerge) ' "$pkgs" "packages the image should not carry"

xdpt_log "4. the image's binary, chrooted into the image"
xdpt_ok chroot "$MNT" /usr/bin/ldd /usr/sbin/xdpong
xdpt_assert_no_match 'not found' "$XDPT_OUT" "libraries of /usr/sbin/xdpong in the image"
for lib in libbpf.so.1 libxdp.so.1 libjson-c.so.5 libsystemd.so.0 libinih.so.1 \
		libmicrohttpd.so.12; do
	xdpt_assert_match "$lib => /(usr/)?lib/" "$XDPT_OUT" "$lib resolved inside the image"
done
xdpt_ok chroot "$MNT" /usr/sbin/xdpong --version
xdpt_assert_match "^xdpong $version " "$XDPT_OUT" "xdpong --version in the image"
xdpt_log "$XDPT_OUT"
xdpt_ok chroot "$MNT" /usr/sbin/xdpong --help
xdpt_assert_match '^  run ' "$XDPT_OUT" "xdpong --help in the image lists run"
xdpt_ok chroot "$MNT" /usr/sbin/xdpong config check /etc/xdpong/xdpong.conf
xdpt_assert_match 'valid, 1 interface' "$XDPT_OUT" "config check of the image's config"
xdpt_assert_match 'metrics and health on http://127\.0\.0\.1:9435/' "$XDPT_OUT" \
	"the image's config listens on localhost"
xdpt_log "$XDPT_OUT"
# A file that is no config is refused inside the image too, naming the
# line (the image is mounted read-only: its own /etc/os-release serves).
xdpt_rc 1 chroot "$MNT" /usr/sbin/xdpong config check /etc/os-release
xdpt_assert_match '^xdpong: /etc/os-release:1: ' "$XDPT_ERR" \
	"config check error names file and line"
xdpt_pass
