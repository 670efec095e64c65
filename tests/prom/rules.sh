#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deploy/prometheus/ through Debian's promtool: the scrape configs and the
# alerting rules are valid (`promtool check config`, `check rules`), and the
# rules' unit tests pass (`promtool test rules xdpong-alerts.test.yml`).
# Then what promtool does not check (prom/rules_check.py): every alert has
# a case where it fires and one where it does not, and each firing case
# counts: without its alert, the unit tests fail. kubernetes.yml finds the
# DaemonSet's pods (their namespace, the annotations it reads); Debian's
# promtool has no Kubernetes discovery, so it checks the rest of that file
# with a static target in its place.
. "$(dirname "$0")/../lib/deploy.bash"

xdpt_require_cmd promtool
dp_require_yaml
xdpt_tmpdir
DIR=$XDPT_REPO/deploy/prometheus
CHECK=$XDPT_REPO/tests/prom/rules_check.py

xdpt_log "1. promtool check config, check rules, test rules"
xdpt_ok promtool check config "$DIR/prometheus.yml"
xdpt_assert_match "SUCCESS: 1 rule files found" "$XDPT_OUT" "prometheus.yml's rule files"
xdpt_ok promtool check rules "$DIR/xdpong-alerts.yml"
n=$(grep -c '^      - alert: ' "$DIR/xdpong-alerts.yml")
xdpt_assert_match "SUCCESS: $n rules found" "$XDPT_OUT" "rules checked"
xdpt_ok promtool test rules "$DIR/xdpong-alerts.test.yml"
xdpt_assert_match SUCCESS "$XDPT_OUT" "promtool test rules"

xdpt_log "2. every alert fires in a case and stays quiet in another"
xdpt_ok "$PY" "$CHECK" coverage "$DIR/xdpong-alerts.yml" "$DIR/xdpong-alerts.test.yml"
printf '%s\n' "$XDPT_OUT" | sed 's/^/#   /'
xdpt_assert_eq "$n" "$(printf '%s\n' "$XDPT_OUT" | grep -c ': fires, quiet$')" \
	"alerts with both cases"

xdpt_log "3. without each alert, its firing case fails"
cp "$DIR/xdpong-alerts.test.yml" "$XDPT_TMP/"
for alert in $(sed -n 's/^      - alert: //p' "$DIR/xdpong-alerts.yml"); do
	xdpt_ok "$PY" "$CHECK" without "$DIR/xdpong-alerts.yml" "$alert" \
		"$XDPT_TMP/xdpong-alerts.yml"
	xdpt_rc 1 promtool test rules "$XDPT_TMP/xdpong-alerts.test.yml"
	xdpt_assert_match "alertname: $alert," "$XDPT_OUT$XDPT_ERR" "failure without $alert"
done

xdpt_log "4. kubernetes.yml: the DaemonSet's pods, and the rest through promtool"
mkdir "$XDPT_TMP/k8s"
cp "$DIR/xdpong-alerts.yml" "$XDPT_TMP/k8s/"
xdpt_ok "$PY" "$CHECK" kubernetes "$DIR/kubernetes.yml" \
	"$XDPT_REPO/deploy/kubernetes/xdpong-daemonset.yaml" "$XDPT_TMP/k8s/kubernetes.yml"
xdpt_log "$XDPT_OUT"
xdpt_ok promtool check config "$XDPT_TMP/k8s/kubernetes.yml"
xdpt_pass
