#!/usr/bin/python3
"""serve feeding N watchers: events/s delivered and the delay from a write to each watcher.

Opens N concurrent HTTP/1.1 watches of all ConfigMaps on a `watchscope-cli serve`, and while they
stream the scenario's own writes, POSTs a probe ConfigMap every 200 ms; each watcher notes when
the probe's ADDED reaches it. Prints events/s delivered (all watchers), probe delay p50/p99/max
over every (probe, watcher) pair, and this client's own CPU seconds (it must not be the
bottleneck).   fanout.py URL [WATCHERS=1000] [SECONDS=20]
"""
import asyncio, json, os, resource, sys, time, urllib.request

URL = sys.argv[1].rstrip('/')
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
HOST, PORT = URL.split('//')[1].split(':')
PORT = int(PORT)

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

events = 0
sent = {}      # probe name -> send time
arrivals = []  # delays in seconds

async def watcher(rv, ready):
    global events
    reader, writer = await asyncio.open_connection(HOST, PORT)
    writer.write(f"GET /api/v1/configmaps?watch=1&resourceVersion={rv}&allowWatchBookmarks=true "
                 f"HTTP/1.1\r\nHost: {HOST}\r\nAccept: application/json\r\n\r\n".encode())
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")
    ready.append(1)
    tail = b""
    while True:
        chunk = await reader.read(1 << 16)
        if not chunk:
            return
        now = time.monotonic()
        events += chunk.count(b'{"type":')
        if b'bench-probe' in chunk:
            data = tail + chunk
            for name, t0 in list(sent.items()):
                if name.encode() in data:
                    arrivals.append(now - t0)
        tail = chunk[-200:]

def post(name):
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": name, "namespace": "bench-probe"}}).encode()
    req = urllib.request.Request(URL + "/api/v1/namespaces/bench-probe/configmaps", data=body,
                                 headers={"Content-Type": "application/json"}, method="POST")
    urllib.request.urlopen(req).read()

async def main():
    global events
    rv = json.load(urllib.request.urlopen(URL + "/api/v1/configmaps?limit=1"))["metadata"]["resourceVersion"]
    ready = []
    tasks = [asyncio.create_task(watcher(rv, ready)) for _ in range(N)]
    while len(ready) < N:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)
    events = 0
    cpu0 = time.process_time()
    t0 = time.monotonic()
    i = 0
    loop = asyncio.get_running_loop()
    while time.monotonic() - t0 < SECONDS:
        name = f"bench-probe-{i:05d}"
        sent[name] = time.monotonic()
        await loop.run_in_executor(None, post, name)
        i += 1
        await asyncio.sleep(0.2)
    await asyncio.sleep(1.0)
    elapsed = time.monotonic() - t0
    cpu = time.process_time() - cpu0
    d = sorted(arrivals)
    pct = lambda p: d[min(len(d) - 1, int(p * len(d)))] * 1000 if d else float('nan')
    print(json.dumps({"watchers": N, "seconds": round(elapsed, 1),
                      "events_per_s": round(events / elapsed), "probes": i,
                      "probe_deliveries": len(d), "expected_deliveries": i * N,
                      "delay_ms_p50": round(pct(0.50), 1), "delay_ms_p99": round(pct(0.99), 1),
                      "delay_ms_max": round(d[-1] * 1000, 1) if d else None,
                      "client_cpu_s": round(cpu, 1)}))
    for t in tasks:
        t.cancel()
    os._exit(0)

asyncio.run(main())
