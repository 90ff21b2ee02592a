#!/usr/bin/env bash
# Runs the differential tests (WatchScope's models beside the real components of the same
# version) and writes docs/conformance.md from their results:
#
#   scripts/conformance.sh [--no-run] [RESULTS_DIR]
#
# Needs a configured and built `default` preset and the peers (tests/peers/build.sh). The tests
# append one JSON line per row to RESULTS_DIR (default: a temporary folder) through
# WS_CONFORMANCE_DIR; --no-run writes the page from the results already in RESULTS_DIR. Exits
# non-zero if a test failed (the page is written all the same, with what ran).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$WS_ROOT"

run=1
if [[ "${1:-}" == --no-run ]]; then run=0; shift; fi
results="${1:-}"
if [[ -z "$results" ]]; then
    [[ $run -eq 1 ]] || ws_die "--no-run needs the RESULTS_DIR of an earlier run"
    results="$(mktemp -d -t ws-conformance.XXXXXX)"
fi
mkdir -p "$results"

rc=0
if [[ $run -eq 1 ]]; then
    rm -f "$results"/*.jsonl
    [[ -d build ]] || ws_die "no build/: cmake --preset default && cmake --build --preset default"
    WS_CONFORMANCE_DIR="$results" WS_REQUIRE_PEERS=1 \
        ctest --preset default -R '^real\.tst_real(clientgo|serve)' --output-on-failure || rc=$?
fi
[[ -s "$results/client.jsonl" ]] || ws_die "no results in $results/client.jsonl"

python3 - "$results" docs/conformance.md <<'EOF'
import json, sys, collections
results, out = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(f"{results}/client.jsonl") if l.strip()]
def release_key(r):
    return [int(x) for x in r.split(".")]
releases = sorted({r["release"] for r in rows}, key=release_key)
cases = []
for r in rows:
    c = (r["case"], r["server"])
    if c not in cases:
        cases.append(c)
by = {(r["case"], r["server"], r["release"]): r for r in rows}
lines = [
    "# Conformance: WatchScope's models beside the real components",
    "",
    "Written by `scripts/conformance.sh` from the results of the differential tests; do not edit.",
    "Each row is \"same\" or a named difference with its reason. A case that a release does not",
    "take part in is blank.",
    "",
    "## Client: client-go informers against WatchScope's model of the same release",
    "",
    "`tests/real/tst_realclientgo`: a real client-go informer (`tests/peers/clientgo`) and a",
    "cluster session with `--client-go R` each against a scripted kube-apiserver of its own giving",
    "the same answers (WatchScope's Status bodies of that server version). Compared: the requests",
    "for the collection in order (verb, resourceVersion, resourceVersionMatch, limit, continue,",
    "bookmarks, timeout), identical consecutive requests counted (HTTP retries), the last request",
    "by its shape (a loop goes on for as long as it is watched). The model is",
    "`core/kube/Reflector`, the one state machine the cluster source's informers and the",
    "simulator's drive; `tests/kube/tst_reflector` pins its decisions without a server.",
    "",
    "| case | server | " + " | ".join(f"client-go {r}" for r in releases) + " |",
    "|---|---|" + "---|" * len(releases),
]
for case, server in cases:
    cells = []
    for rel in releases:
        r = by.get((case, server, rel))
        if r is None:
            cells.append("")
        elif r["verdict"] == "same":
            cells.append("same")
        else:
            cells.append("differs: " + (r.get("reason") or "unexplained"))
    lines.append(f"| {case} | {server} | " + " | ".join(cells) + " |")
server_rows = []
try:
    server_rows = [json.loads(l) for l in open(f"{results}/server.jsonl") if l.strip()]
except FileNotFoundError:
    pass
lines += ["", "## Server: `serve` against the real kube-apiserver of the same version", "",
          "`tests/real/tst_realserve`: the same GETs to `serve --server-version V` and to the real",
          "kube-apiserver V (`tests/peers`), requests whose answer does not depend on the objects a",
          "server holds. Compared: status, Content-Type, Retry-After and the Status body (numbers",
          "of three digits or more in messages and details as N: RVs, the current revision); a",
          "watch-list's initial-events-end bookmark byte for byte but its RV; the `/api/v1`",
          "discovery entry of each resource serve serves (its verbs on a row of their own), and",
          "`/api` as kubectl 1.30+ asks for it (aggregated, apidiscovery.k8s.io/v2): its envelope",
          "and each served resource's entry. Not in the script yet: discovery of other groups,",
          "subresources, ETag and Vary, the objects of lists and their paging under each RV rule,",
          "Tables, protobuf.", ""]
versions = sorted({r["version"] for r in server_rows}, key=release_key)
requests = []
for r in server_rows:
    if r["request"] not in requests:
        requests.append(r["request"])
sby = {(r["request"], r["version"]): r for r in server_rows}
if server_rows:
    lines += ["| request | " + " | ".join(f"kube-apiserver {v}" for v in versions) + " |",
              "|---|" + "---|" * len(versions)]
    for req in requests:
        path = next(r["path"] for r in server_rows if r["request"] == req)
        cells = []
        for v in versions:
            r = sby.get((req, v))
            cells.append("" if r is None else "same" if r["verdict"] == "same"
                         else "differs: " + (r.get("reason") or "unexplained"))
        lines.append(f"| {req} (`{path}`) | " + " | ".join(cells) + " |")
    lines.append("")
    for r in server_rows:
        if r["verdict"] != "same":
            lines.append(f"- {r['version']} {r['request']}: kube-apiserver "
                         + "; ".join(f"`{x}`" for x in r["real"]) + "; serve "
                         + "; ".join(f"`{x}`" for x in r["serve"]))
    lines.append("")
else:
    lines += ["No results.", ""]
lines += ["## Cache", "",
          "Not compared yet: the simulated watch cache against the real cacher has no rows here so",
          "far.", ""]
lines += ["### What each client case asks, and what real client-go sent", ""]
for case, server in cases:
    about = next(r["about"] for r in rows if r["case"] == case and r["server"] == server)
    lines += [f"**{case} @ {server}**: {about}.", ""]
    for rel in releases:
        r = by.get((case, server, rel))
        if r is None:
            continue
        lines.append(f"- client-go {rel}: " + "; ".join(f"`{x}`" for x in r["real"]))
        if r["verdict"] != "same":
            lines.append(f"  - WatchScope: " + "; ".join(f"`{x}`" for x in r["model"]))
    lines.append("")
open(out, "w").write("\n".join(lines))
print(f"wrote {out}: {len(rows)} client rows")
EOF
exit "$rc"
