#!/usr/bin/env python3
"""Writes a kube-apiserver audit log (audit.k8s.io/v1, Metadata level, one JSON event a line) of
about SIZE bytes with the mix a busy cluster's log has: kubelets' and controllers' get/update/
patch of leases, pods and events (most lines), informers' lists and watches (RequestReceived,
ResponseStarted and ResponseComplete stages), kubectl lists, and a few errors (404s, 409s, 410s,
504s). Deterministic for a seed. Used by vs-jq.sh (bench/audit).

  gen-audit-log.py OUT.log [--size 1G] [--seed 1]
"""
import argparse
import heapq
import json
import random
import sys
from datetime import datetime, timedelta, timezone

BASE = datetime(2026, 11, 26, 10, 0, tzinfo=timezone.utc)


DAYS = {}


def ts(seconds):
    # Seconds after BASE as Go's MicroTime marshals it, without datetime per call (it is hot).
    us = int(seconds * 1e6) + (BASE.hour * 3600 + BASE.minute * 60) * 1000000
    s, us = divmod(us, 1000000)
    d, s = divmod(s, 86400)
    if d not in DAYS:
        DAYS[d] = (BASE + timedelta(days=d)).strftime("%Y-%m-%d")
    return "%sT%02d:%02d:%02d.%06dZ" % (DAYS[d], s // 3600, s // 60 % 60, s % 60, us)


def dumps(value):
    # Go's encoding/json escapes &, < and > (HTML-safe), as kube-apiserver's log shows them.
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


FRAGMENTS = {}


def fragment(key, make):
    if key not in FRAGMENTS:
        FRAGMENTS[key] = make()
    return FRAGMENTS[key]


def size_arg(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * mult[text[-1]]) if text[-1] in mult else int(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", type=size_arg, default=1 << 30)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    nodes = [f"node-{i:04d}" for i in range(500)]
    controllers = ["replicaset-controller", "deployment-controller", "endpointslice-controller",
                   "daemon-set-controller", "job-controller", "namespace-controller"]
    resources = [("pods", ""), ("configmaps", ""), ("secrets", ""), ("services", ""),
                 ("endpointslices", "discovery.k8s.io"), ("deployments", "apps"),
                 ("replicasets", "apps"), ("leases", "coordination.k8s.io"), ("events", "")]
    rv = 1_000_000
    t = 0.0
    written = 0
    pending = []  # (stage time, seq, line): a line is written when its stage happens
    seq = 0
    with open(a.out, "w", buffering=1 << 20) as f:
        while written < a.size:
            t += rnd.expovariate(2000)  # ~2000 events/s
            while pending and pending[0][0] <= t:
                line = heapq.heappop(pending)[2]
                f.write(line)
                written += len(line)
            rv += rnd.randint(0, 3)
            r = rnd.random()
            if r < 0.45:
                node = rnd.choice(nodes)
                user, agent = f"system:node:{node}", "kubelet/v1.30.2 (linux/amd64) kubernetes/3968350"
                groups = ["system:nodes", "system:authenticated"]
            else:
                c = rnd.choice(controllers)
                user = f"system:serviceaccount:kube-system:{c}"
                agent = f"kube-controller-manager/v1.30.2 (linux/amd64) kubernetes/3968350/{c}"
                groups = ["system:serviceaccounts", "system:serviceaccounts:kube-system",
                          "system:authenticated"]
            res, group = rnd.choice(resources)
            prefix = f"/apis/{group}/v1" if group else "/api/v1"
            ns = rnd.choice(["default", "kube-system", "prod", "monitoring"])
            name = f"{res[:-1]}-{rnd.randint(0, 9999):04d}"
            code, status = 200, {"metadata": {}, "code": 200}
            kind = rnd.random()
            stages = ["ResponseComplete"]
            took = rnd.uniform(0.0005, 0.02)
            if kind < 0.60:
                verb = rnd.choice(["get", "update", "patch"])
                uri = f"{prefix}/namespaces/{ns}/{res}/{name}"
                if verb == "get" and rnd.random() < 0.05:
                    code = 404
                    status = {"metadata": {}, "status": "Failure",
                              "message": f'{res} "{name}" not found', "reason": "NotFound",
                              "details": {"name": name, "kind": res}, "code": 404}
                elif verb == "update" and rnd.random() < 0.03:
                    code = 409
                    status = {"metadata": {}, "status": "Failure",
                              "message": f'Operation cannot be fulfilled on {res} "{name}": the '
                                         'object has been modified; please apply your changes '
                                         'to the latest version and try again',
                              "reason": "Conflict", "details": {"name": name, "kind": res},
                              "code": 409}
            elif kind < 0.75:
                verb = rnd.choice(["create", "delete"])
                uri = f"{prefix}/namespaces/{ns}/{res}" + (f"/{name}" if verb == "delete" else "")
                code = 201 if verb == "create" else 200
                status = {"metadata": {}, "code": code}
            elif kind < 0.90:
                verb = "watch"
                uri = (f"{prefix}/{res}?allowWatchBookmarks=true&resourceVersion={rv}"
                       f"&timeout=7m{rnd.randint(0, 59)}s&timeoutSeconds={rnd.randint(300, 599)}"
                       "&watch=true")
                stages = ["RequestReceived", "ResponseStarted", "ResponseComplete"]
                took = rnd.uniform(1, 600)
            else:
                verb = "list"
                q = rnd.choice(["limit=500&resourceVersion=0", f"resourceVersion={rv}",
                                "limit=500", f"labelSelector=app%3Dweb&limit=500"])
                uri = f"{prefix}/{res}?{q}"
                took = rnd.uniform(0.01, 2)
                if rnd.random() < 0.02:
                    code = 410
                    status = {"metadata": {}, "status": "Failure",
                              "message": "The provided continue parameter is too old to display "
                                         "a consistent list result. You can start a new list "
                                         "without the continue parameter.",
                              "reason": "Expired", "code": 410}
                elif rnd.random() < 0.01:
                    code = 504
                    status = {"metadata": {}, "status": "Failure",
                              "message": f"Timeout: Too large resource version: {rv + 50}, "
                                         f"current: {rv}", "reason": "Timeout",
                              "details": {"causes": [{"reason": "ResourceVersionTooLarge",
                                                      "message": "Too large resource version"}],
                                          "retryAfterSeconds": 1}, "code": 504}
            audit_id = "%08x-%04x-%04x-%04x-%012x" % (
                rnd.getrandbits(32), rnd.getrandbits(16), rnd.getrandbits(16),
                rnd.getrandbits(16), rnd.getrandbits(48))
            obj = {"resource": res, "namespace": ns, "apiVersion": "v1"}
            if group:
                obj["apiGroup"] = group
            if verb not in ("list", "watch", "create"):
                obj["name"] = name
            # The parts that repeat are encoded once (json.dumps per line is the slow part).
            who = fragment(("who", user), lambda: (
                '"user":' + dumps({"username": user, "groups": groups}) + ',"sourceIPs":["10.0.'
                + str(rnd.randint(0, 255)) + '.' + str(rnd.randint(1, 254)) + '"],"userAgent":'
                + dumps(agent)))
            tail = fragment(("tail", user), lambda: (
                '"annotations":' + dumps({
                    "authorization.k8s.io/decision": "allow",
                    "authorization.k8s.io/reason": f'RBAC: allowed by ClusterRoleBinding '
                                                   f'"system:{user}" of ClusterRole "system:'
                                                   f'{user}" to User "{user}"'}) + "}\n"))
            head = ('{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata",'
                    '"auditID":"' + audit_id + '","stage":"')
            body = ('","requestURI":' + dumps(uri) + ',"verb":"' + verb + '",' + who +
                    ',"objectRef":' + dumps(obj))
            for stage in stages:
                at = {"RequestReceived": t, "ResponseStarted": t + 0.001}.get(stage, t + took)
                status_part = (',"responseStatus":' + dumps(status)
                               if stage == "ResponseComplete" else "")
                line = (head + stage + body + status_part + ',"requestReceivedTimestamp":"' +
                        ts(t) + '","stageTimestamp":"' + ts(at) + '",' + tail)
                seq += 1
                heapq.heappush(pending, (at, seq, line))
        # The watches still open when the log ends: their last stage is not written.
    print(f"{a.out}: {written} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
