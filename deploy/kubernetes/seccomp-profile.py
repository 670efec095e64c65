#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
A runtime's default seccomp profile, with bpf(2) allowed to CAP_BPF and
perf_event_open(2) to CAP_PERFMON: what containerd 1.6.9 and
containers-common 0.60 (CRI-O 1.31, podman 5.2) allow by default, for the
runtimes before them, which allow both to CAP_SYS_ADMIN only. Nothing else
changes: xdpong's pod needs no other call the default refuses.

    seccomp-profile.py [DEFAULT.json] >xdpong.json

DEFAULT.json: the runtime's profile (default /usr/share/containers/seccomp.json,
podman's and CRI-O's; Docker's is moby's profiles/seccomp/default.json).
Where it goes: deploy/README.md, "Seccomp".
"""
import json
import sys

# The syscall, and the capability that should allow it.
ALLOW = (("bpf", "CAP_BPF"), ("perf_event_open", "CAP_PERFMON"))


def main(path="/usr/share/containers/seccomp.json"):
    p = json.load(open(path))
    for name, cap in ALLOW:
        if any(name in s["names"] and s["action"] == "SCMP_ACT_ALLOW" and
               cap in s.get("includes", {}).get("caps", []) for s in p["syscalls"]):
            continue
        # The rule refusing it to whoever lacks CAP_SYS_ADMIN would win
        # over an allow: it refuses it to whoever lacks both now.
        for s in list(p["syscalls"]):
            if (name in s["names"] and s["action"] == "SCMP_ACT_ERRNO" and
                    "CAP_SYS_ADMIN" in s.get("excludes", {}).get("caps", [])):
                s["names"].remove(name)
                p["syscalls"].append({"names": [name], "action": "SCMP_ACT_ERRNO",
                                      "errnoRet": s.get("errnoRet", 1),
                                      "excludes": {"caps": ["CAP_SYS_ADMIN", cap]}})
        p["syscalls"].append({"names": [name], "action": "SCMP_ACT_ALLOW",
                              "includes": {"caps": [cap]}})
    p["syscalls"] = [s for s in p["syscalls"] if s["names"]]
    json.dump(p, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(*sys.argv[1:])
