# SPDX-License-Identifier: GPL-2.0
"""
What the Kubernetes schema cannot say about deploy/kubernetes/xdpong-daemonset.yaml:
that its parts agree with each other and with xdpong. One line per check,
"FAIL: ..." and exit 1 at the first that does not hold.

    python3 manifest_check.py MANIFEST PRIVS_C UNIT IMAGE_TAG

PRIVS_C (loader/core/privs.c) and UNIT (systemd/xdpong.service) give the
capabilities xdpong checks for and the unit grants; IMAGE_TAG is the tag
deploy/build-image.sh gives by default.
"""
import re
import sys

import yaml


def check(cond, what):
    if not cond:
        print("FAIL: %s" % what)
        sys.exit(1)
    print("ok   %s" % what)


def main(manifest, privs_c, unit, image_tag):
    text = open(manifest).read()
    docs = [d for d in yaml.safe_load_all(text) if d is not None]
    kinds = [(d.get("apiVersion"), d.get("kind")) for d in docs]
    check(kinds == [("v1", "Namespace"), ("v1", "ServiceAccount"), ("v1", "ConfigMap"),
                    ("apps/v1", "DaemonSet"), ("v1", "Service")],
          "objects: Namespace, ServiceAccount, ConfigMap, DaemonSet, Service, in that order "
          "(%s)" % kinds)
    ns, sa, cm, ds, svc = docs
    name = ns["metadata"]["name"]
    for d in docs[1:]:
        check(d["metadata"].get("namespace") == name,
              "%s %s is in namespace %s" % (d["kind"], d["metadata"]["name"], name))
    check(ns["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "privileged",
          "the namespace admits privileged pods (hostNetwork, hostPath, CAP_BPF)")

    spec = ds["spec"]
    pod = spec["template"]["spec"]
    meta = spec["template"]["metadata"]
    sel = spec["selector"]["matchLabels"]
    check(all(meta["labels"].get(k) == v for k, v in sel.items()),
          "the selector %s matches the pod template's labels" % sel)
    ssel = svc["spec"].get("selector", {})
    check(svc["spec"].get("clusterIP") == "None" and ssel and
          all(meta["labels"].get(k) == v for k, v in ssel.items()),
          "the Service is headless and selects the pods (the pingmesh's targets)")
    mesh = "%s.%s.svc.cluster.local" % (svc["metadata"]["name"], name)
    check(("# targets = " + mesh) in cm["data"]["xdpong.conf"],
          "the ConfigMap's [probe mesh] example names the Service (%s)" % mesh)
    check(pod.get("serviceAccountName") == sa["metadata"]["name"], "the pods use the ServiceAccount")
    check(sa.get("automountServiceAccountToken") is False and
          pod.get("automountServiceAccountToken") is False, "no API token in the pods")
    check(pod.get("hostNetwork") is True, "hostNetwork: XDP on the node's own interfaces")
    check({"operator": "Exists"} in pod.get("tolerations", []),
          "a toleration of every taint: a pod on every node")
    us = spec.get("updateStrategy", {})
    check(us.get("type") == "RollingUpdate" and
          "maxSurge" not in us.get("rollingUpdate", {}),
          "rolling updates without surge (two xdpong cannot own one interface)")
    grace = pod.get("terminationGracePeriodSeconds")
    check(isinstance(grace, int) and 5 <= grace <= 60,
          "terminationGracePeriodSeconds %s: time for SIGTERM's detach" % grace)

    check(len(pod["containers"]) == 1, "one container")
    c = pod["containers"][0]
    check(c["image"] == image_tag, "image %s is what deploy/build-image.sh tags (%s)"
          % (c["image"], image_tag))

    # Capabilities: the unit's and the container's are exactly those
    # xdpong checks for without CAP_SYS_ADMIN. The commented alternative
    # for libxdp's dispatcher: CAP_SYS_ADMIN in place of CAP_BPF and
    # CAP_PERFMON (which it implies).
    privs = open(privs_c).read()
    bounding = set(re.search(r"^CapabilityBoundingSet=(.*)$", open(unit).read(), re.M)
                   .group(1).split())
    check(bounding == {"CAP_BPF", "CAP_PERFMON", "CAP_NET_ADMIN"} and
          all('"%s"' % c in privs for c in bounding),
          "loader/core/privs.c checks for the unit's %s" % sorted(bounding))
    sc = c["securityContext"]
    caps = sc["capabilities"]
    check(caps.get("drop") == ["ALL"], "every other capability dropped")
    check({"CAP_" + x for x in caps.get("add", [])} == bounding,
          "the container adds exactly the unit's %s" % sorted(bounding))
    alt = re.findall(r"^ *# add: (\[.*\])$", text, re.M)
    check(len(alt) == 1 and
          {"CAP_" + x for x in yaml.safe_load(alt[0])} == {"CAP_SYS_ADMIN", "CAP_NET_ADMIN"},
          "one commented alternative '# add:' for the dispatcher: CAP_SYS_ADMIN, CAP_NET_ADMIN")
    check(sc.get("privileged") is False, "not privileged")
    # As the unit's NoNewPrivileges=yes. The API server refuses it with
    # CAP_SYS_ADMIN: the alternative says to remove it.
    check(sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation: false")
    check(sc.get("runAsUser") == 0, "runs as root (added capabilities are effective for root)")
    check(sc.get("readOnlyRootFilesystem") is True, "read-only root filesystem")
    check(sc.get("appArmorProfile", {}).get("type") == "Unconfined",
          "AppArmor unconfined (the default profile denies writes under /sys/fs/bpf)")

    # Volumes: the config, the include directory, the host's bpffs and
    # ownership locks.
    vols = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    conf_mount = mounts.get("/etc/xdpong")
    check(conf_mount is not None and conf_mount.get("readOnly") is True and
          vols[conf_mount["name"]].get("configMap", {}).get("name") == cm["metadata"]["name"],
          "the ConfigMap mounted read-only at /etc/xdpong")
    check("xdpong.conf" in cm["data"], "the ConfigMap holds xdpong.conf")
    bpf = mounts.get("/sys/fs/bpf")
    check(bpf is not None and vols[bpf["name"]].get("hostPath", {}).get("path") == "/sys/fs/bpf",
          "the host's /sys/fs/bpf mounted at /sys/fs/bpf")
    owner = mounts.get("/run/xdpong/owner")
    check(owner is not None and not owner.get("readOnly") and
          vols[owner["name"]].get("hostPath", {}).get("path") == "/run/xdpong/owner",
          "the host's /run/xdpong/owner mounted at /run/xdpong/owner (ownership holds between pods)")
    btf = mounts.get("/run/xdpong/btf")
    check(btf is not None and not btf.get("readOnly") and
          vols[btf["name"]].get("hostPath", {}).get("path") == "/run/xdpong/btf",
          "the host's /run/xdpong/btf mounted at /run/xdpong/btf (a new pod reads the maps)")
    # Bidirectional needs a privileged container.
    check(bpf.get("mountPropagation") in ("HostToContainer", None),
          "bpffs mount propagation %s (Bidirectional needs privileged)" % bpf.get("mountPropagation"))

    conf = cm["data"]["xdpong.conf"]
    inc = re.search(r"^include = (/[^*\n]*)/\*\.conf$", conf, re.M)
    check(inc is not None, "the config includes a directory's *.conf")
    run = mounts.get(inc.group(1))
    check(run is not None and "emptyDir" in vols[run["name"]] and not run.get("readOnly"),
          "the include directory %s is a writable emptyDir" % inc.group(1))
    check(not re.search(r"^\s*metrics-listen\s*=", conf, re.M),
          "the ConfigMap leaves metrics-listen to the node's file")

    # The command writes the node's metrics-listen there, then becomes xdpong.
    script = c["args"][0]
    check(c["command"] == ["/bin/sh", "-c"], "the command is /bin/sh -c SCRIPT")
    check(">%s/node.conf" % inc.group(1) in script, "the script writes %s/node.conf" % inc.group(1))
    check("chmod 0700 %s/\n" % inc.group(1) in script,
          "the script makes %s 0700 (xdpong refuses a lock directory others may write)" % inc.group(1))
    check(script.rstrip().endswith("exec /usr/sbin/xdpong run --config /etc/xdpong/xdpong.conf"),
          "the script ends by exec-ing xdpong run --config (PID 1, signals reach it)")
    env = {e["name"]: e for e in c["env"]}
    check(env["POD_IP"].get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "status.podIP",
          "POD_IP from status.podIP (the node's IP with hostNetwork)")
    port = env["METRICS_PORT"]["value"]

    # Prometheus, probes, ports: one port.
    ann = meta["annotations"]
    check(all(isinstance(v, str) for v in ann.values()), "annotation values are strings")
    check(ann.get("prometheus.io/scrape") == "true", "prometheus.io/scrape: true")
    check(ann.get("prometheus.io/path") == "/metrics", "prometheus.io/path: /metrics")
    check(ann.get("prometheus.io/port") == port, "prometheus.io/port is METRICS_PORT (%s)" % port)
    ports = {p["name"]: p for p in c["ports"]}
    check(str(ports["metrics"]["containerPort"]) == port and "hostPort" not in ports["metrics"],
          "containerPort 'metrics' is METRICS_PORT")
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        p = c.get(probe, {}).get("httpGet", {})
        check(p.get("path") == "/healthz" and p.get("port") in ("metrics", int(port)) and
              "host" not in p,
              "%s: GET /healthz on the pod IP's metrics port" % probe)
    live = c["livenessProbe"]
    check(live["periodSeconds"] * live["failureThreshold"] >= 30,
          "liveness tolerates at least 30 s of 503 (as the unit's WatchdogSec)")

    res = c["resources"]
    check("memory" in res.get("requests", {}) and "memory" in res.get("limits", {}) and
          "cpu" in res.get("requests", {}), "CPU and memory requests, a memory limit")
    print("all checks hold")


if __name__ == "__main__":
    main(*sys.argv[1:])
