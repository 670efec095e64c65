#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What promtool does not check in deploy/prometheus/, for tests/prom/rules.sh.

    rules_check.py coverage RULES TESTS
        every alert of RULES has, in TESTS, an evaluation where it fires
        and one where it does not; one line per alert
    rules_check.py without RULES ALERT OUT
        RULES without ALERT, into OUT (the test then proves that its
        firing case fails)
    rules_check.py kubernetes CONFIG DAEMONSET OUT
        CONFIG's job discovers the DaemonSet's pods (its namespace, the
        annotations its relabeling reads); OUT is CONFIG with its
        kubernetes_sd_configs replaced by a static target, for a promtool
        built without Kubernetes discovery (Debian's) to check the rest
"""
import sys

import yaml


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def alerts(rules):
    return [r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r]


def coverage(rules_path, tests_path):
    cases = {}
    for t in load(tests_path)["tests"]:
        for a in t.get("alert_rule_test", []):
            fired = "fires" if a.get("exp_alerts") else "quiet"
            cases.setdefault(a["alertname"], set()).add(fired)
    bad = []
    for name in alerts(load(rules_path)):
        got = cases.pop(name, set())
        print("%s: %s" % (name, ", ".join(sorted(got)) or "no case"))
        if got != {"fires", "quiet"}:
            bad.append(name)
    if cases:
        sys.exit("cases for alerts that are not in the rules: %s" % ", ".join(sorted(cases)))
    if bad:
        sys.exit("alerts without a case where they fire and one where they do not: %s"
                 % ", ".join(bad))


def without(rules_path, name, out):
    rules = load(rules_path)
    for g in rules["groups"]:
        g["rules"] = [r for r in g["rules"] if r.get("alert") != name]
    with open(out, "w") as f:
        yaml.safe_dump(rules, f)


def kubernetes(config_path, daemonset_path, out):
    config = load(config_path)
    docs = [d for d in yaml.safe_load_all(open(daemonset_path)) if d]
    ds = next(d for d in docs if d["kind"] == "DaemonSet")
    annotations = ds["spec"]["template"]["metadata"]["annotations"]
    (job,) = [j for j in config["scrape_configs"] if "kubernetes_sd_configs" in j]
    (sd,) = job["kubernetes_sd_configs"]
    errors = []
    if sd.get("role") != "pod":
        errors.append("role is %r, not pod" % sd.get("role"))
    names = sd.get("namespaces", {}).get("names", [])
    if names != [ds["metadata"]["namespace"]]:
        errors.append("namespaces %r, the DaemonSet's is %r" % (names, ds["metadata"]["namespace"]))
    prefix = "__meta_kubernetes_pod_annotation_"
    for r in job.get("relabel_configs", []):
        for label in r.get("source_labels", []):
            if not label.startswith(prefix):
                continue
            key = label[len(prefix):].replace("prometheus_io_", "prometheus.io/", 1)
            if key not in annotations:
                errors.append("relabeling reads annotation %s, the pods have none" % key)
            elif r.get("action") == "keep" and str(r["regex"]) != str(annotations[key]):
                errors.append("keeps %s=%s, the pods say %s" % (key, r["regex"], annotations[key]))
    if errors:
        sys.exit("%s against %s: %s" % (config_path, daemonset_path, "; ".join(errors)))
    del job["kubernetes_sd_configs"]
    job["static_configs"] = [{"targets": ["192.0.2.1:9435"]}]
    with open(out, "w") as f:
        yaml.safe_dump(config, f)
    print("job %s: pods in namespace %s, annotations %s" % (
        job["job_name"], names[0], ", ".join(sorted(annotations))))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"coverage": coverage, "without": without, "kubernetes": kubernetes}[cmd](*args)
