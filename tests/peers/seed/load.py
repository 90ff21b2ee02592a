"""The load of the seed reproduction (tests/peers/seed-prevkv-nil.sh): 20 watches with
resourceVersion="" on apiserver A (kube-apiserver 1.28.0 serves them from etcd, on its configmaps
cacher's gRPC stream), configmaps written, updated and deleted through apiserver B as fast as it
takes them, A's etcd connection stalled from 10 s to 30 s (the file STALL), then A's watch cache
(RV=0 list) compared with etcd (B's RV="" list) after a probe write has reached A's cache.
Prints one JSON object; exit 0 when A's cache, caught up, holds objects etcd deleted (1: it
relisted and is consistent; 3: it never caught up with the probe)."""
import json, os, random, sys, threading, time

import requests
import urllib3

urllib3.disable_warnings()
A, B, TOKEN, STALL = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
SECONDS = float(sys.argv[5]) if len(sys.argv) > 5 else 60
NS, N = "seed", 200


def session():
    s = requests.Session()
    s.trust_env = False  # the apiservers' certificates are self-signed: no CA bundle from the env
    s.verify = False
    s.headers.update({"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    return s


def configmap(i, v):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"},
            "data": {"v": str(v) * 300}}


s = session()
s.post(B + "/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
exists = {}
for i in range(N):
    exists[i] = s.post(f"{B}/api/v1/namespaces/{NS}/configmaps", json=configmap(i, 0)).status_code == 201
stop = False
errors = []


def watch():
    ws = session()
    while not stop:
        try:
            with ws.get(f"{A}/api/v1/namespaces/{NS}/configmaps?watch=1", stream=True, timeout=(5, 120)) as r:
                for line in r.iter_lines():
                    if stop:
                        break
                    if line and json.loads(line)["type"] == "ERROR":
                        errors.append(json.loads(line)["object"].get("message", "")[:160])
                        break
        except requests.RequestException as e:
            errors.append(repr(e)[:100])


for _ in range(20):
    threading.Thread(target=watch, daemon=True).start()
time.sleep(2)
t0, ops, deletes = time.time(), 0, 0
while time.time() - t0 < SECONDS:
    elapsed = time.time() - t0
    stalled = 10 <= elapsed < 30
    if stalled and not os.path.exists(STALL):
        open(STALL, "w").close()
    elif not stalled and os.path.exists(STALL):
        os.remove(STALL)
    i = random.randrange(N)
    url = f"{B}/api/v1/namespaces/{NS}/configmaps"
    if exists[i] and random.random() < 0.1:
        exists[i] = s.delete(f"{url}/cm-{i}").status_code != 200
        deletes += 1
    elif exists[i]:
        s.put(f"{url}/cm-{i}", json=configmap(i, ops))
    else:
        exists[i] = s.post(url, json=configmap(i, ops)).status_code == 201
    ops += 1
if os.path.exists(STALL):
    os.remove(STALL)
rate = ops / (time.time() - t0)
# A's cache has caught up once a write made after the load is in it.
probe = s.post(f"{B}/api/v1/namespaces/{NS}/configmaps",
               json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "probe"}}).json()
probe_rv = int(probe["metadata"]["resourceVersion"])
deadline = time.time() + 60
while time.time() < deadline:
    cache = s.get(f"{A}/api/v1/namespaces/{NS}/configmaps?resourceVersion=0").json()
    if int(cache["metadata"]["resourceVersion"]) >= probe_rv:
        break
    time.sleep(1)
stop = True
etcd = s.get(f"{B}/api/v1/namespaces/{NS}/configmaps").json()
c = {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in cache["items"]}
e = {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in etcd["items"]}
result = {
    "writes": ops, "deletes": deletes, "writesPerSecond": round(rate),
    "cacheRv": int(cache["metadata"]["resourceVersion"]), "probeRv": probe_rv,
    "probeInCache": "probe" in c,
    "deletedButCached": sorted(set(c) - set(e)),
    "missingFromCache": sorted(set(e) - set(c)),
    "olderInCache": sum(1 for k in c if k in e and c[k] != e[k]),
    "watchErrors": sorted(set(errors))[:5],
}
# lost: caught up with etcd and still holding deleted objects (the #17529 skip); stuck: the
# cache never reached the probe (its watch starved or waiting: stale for everyone reading it);
# consistent: the cacher relisted.
lost = result["probeInCache"] and (result["deletedButCached"] or result["olderInCache"])
result["outcome"] = "lost" if lost else "stuck" if not result["probeInCache"] else "consistent"
print(json.dumps(result, indent=1))
sys.exit({"lost": 0, "consistent": 1, "stuck": 3}[result["outcome"]])
