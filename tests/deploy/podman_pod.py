# SPDX-License-Identifier: GPL-2.0
"""
The DaemonSet's pod as `podman kube play` runs it (tests/deploy/podman.sh).

    python3 podman_pod.py MANIFEST POD_IP PROBE_DIR VARIANT PROFILE OUT_YAML

Writes OUT_YAML, the manifest's ConfigMap and its pod template as a Pod,
and prints shell assignments: GRACE (terminationGracePeriodSeconds), CAPS
(the capabilities the container adds) and CAP_EFF (CapEff they make, as
/proc/PID/status shows it). VARIANT is "manifest"; "rolling", the same for
a rolling update (change 5 below); or "sys-admin": the manifest's
commented alternative for libxdp's dispatcher (the line
"# add: [...]" under `capabilities:`), in place of its `add:`, and no
allowPrivilegeEscalation. PROFILE, if not empty: a Localhost seccomp
profile, in place of RuntimeDefault (`kube play --seccomp-profile-root`).
With CONFIGMAP_CONF in the environment, the ConfigMap's xdpong.conf is that
file's (the ConfigMap as edited since).
"""
import os
import re
import shlex
import sys

import yaml

CAP_BITS = {"NET_ADMIN": 12, "SYS_ADMIN": 21, "PERFMON": 38, "BPF": 39}


def sys_admin_variant(text, sc):
    """The commented alternative, from the manifest's text."""
    m = re.search(r"^ *# add: (\[.*\])$", text, re.M)
    assert m, "no commented '# add: [...]' alternative under capabilities:"
    sc["capabilities"]["add"] = yaml.safe_load(m.group(1))
    sc.pop("allowPrivilegeEscalation", None)


def as_podman_pod(template, pod_ip, probe_dir, profile, rolling):
    """
    The pod template as a Pod, changed only where podman 4.3 cannot follow
    Kubernetes. Every such change is here.
    """
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": dict(template["metadata"], name="xdpong"),
           "spec": template["spec"]}
    spec = pod["spec"]
    c = spec["containers"][0]
    # 1. No `ports` with hostNetwork: podman refuses a port mapping there.
    #    So the probes name the port by number, not by name.
    ports = {p["name"]: p["containerPort"] for p in c.pop("ports", [])}
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        get = c[probe]["httpGet"]
        get["port"] = ports.get(get["port"], get["port"])
        # 2. The kubelet probes the pod IP by default; podman probes
        #    localhost, where xdpong does not listen: the pod IP, said.
        get["host"] = pod_ip
    # 3. No downward API: POD_IP as a value.
    for e in c["env"]:
        if e["name"] == "POD_IP":
            del e["valueFrom"]
            e["value"] = pod_ip
    # 4. podman runs an httpGet probe as `curl -f URL` inside the
    #    container, where the image has no curl (the kubelet probes from
    #    outside): busybox's wget stands in, mounted read-only.
    spec["volumes"].append({"name": "probe", "hostPath": {"path": probe_dir,
                                                          "type": "Directory"}})
    c["volumeMounts"].append({"name": "probe", "mountPath": "/usr/local/bin",
                              "readOnly": True})
    # 5. podman runs no preStop hook, and restarts (restartPolicy Always)
    #    a container that exits, where the kubelet would not restart one
    #    whose pod is stopping. For a rolling update under the preStop's
    #    SIGUSR1 (the test sends it), OnFailure: xdpong exits 0 and stays
    #    stopped. Not elsewhere: podman's health check restarts a
    #    container only under Always.
    if rolling:
        spec["restartPolicy"] = "OnFailure"
    # 7. podman makes an emptyDir a named volume, which outlives the pod:
    #    a name of its own for each pod, so that each starts empty, as
    #    with the kubelet (what must outlive a pod is on the node's paths).
    for v in spec["volumes"]:
        if "emptyDir" in v:
            for m in c["volumeMounts"]:
                if m["name"] == v["name"]:
                    m["name"] += "-%d" % os.getpid()
            v["name"] += "-%d" % os.getpid()
    # 6. podman 4.3 takes a Localhost seccomp profile from the annotation
    #    Kubernetes used before seccompProfile, not from seccompProfile.
    if profile:
        spec["securityContext"]["seccompProfile"] = {"type": "Localhost",
                                                     "localhostProfile": profile}
        pod["metadata"]["annotations"][
            "container.seccomp.security.alpha.kubernetes.io/" + c["name"]] = "localhost/" + profile
    return pod


def main(manifest, pod_ip, probe_dir, variant, profile, out):
    text = open(manifest).read()
    docs = {d["kind"]: d for d in yaml.safe_load_all(text) if d}
    cm = docs["ConfigMap"]
    template = docs["DaemonSet"]["spec"]["template"]
    sc = template["spec"]["containers"][0]["securityContext"]
    caps = sc["capabilities"]
    if variant == "sys-admin":
        sys_admin_variant(text, sc)
    if os.environ.get("CONFIGMAP_CONF"):
        cm["data"]["xdpong.conf"] = open(os.environ["CONFIGMAP_CONF"]).read()
    # A Pod's and a ConfigMap's namespace: podman has none.
    cm["metadata"].pop("namespace", None)
    pod = as_podman_pod(template, pod_ip, probe_dir, profile, variant == "rolling")
    with open(out, "w") as f:
        yaml.safe_dump_all([cm, pod], f, sort_keys=False)
    eff = sum(1 << CAP_BITS[x] for x in caps["add"])
    for name, value in (("GRACE", str(pod["spec"]["terminationGracePeriodSeconds"])),
                        ("CAPS", " ".join(caps["add"])), ("CAP_EFF", "%016x" % eff)):
        print("%s=%s" % (name, shlex.quote(value)))


if __name__ == "__main__":
    main(*sys.argv[1:])
