#!/usr/bin/env bash
# `serve` feeding 1,000 watchers: a fresh serve of SCENARIO, bench/serve/fanout.py against it,
# and serve's own CPU seconds over the measured run (from /proc).
#   bench/serve/fanout.sh [ROUNDS=3] [WATCHERS=1000] [SCENARIO=healthy] [SECONDS=20]
set -u
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}; WATCHERS=${2:-1000}; SCENARIO=${3:-healthy}; SECONDS_=${4:-20}
CLI=${WS_CLI:-build/app/watchscope-cli}
work=$(mktemp -d); trap 'rm -rf "$work"; kill $(jobs -p) 2>/dev/null' EXIT
cpu() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }
for round in $(seq 1 "$ROUNDS"); do
    "$CLI" serve --listen 127.0.0.1:0 --scenario "$SCENARIO" >"$work/serve.out" 2>&1 &
    serve=$!
    for _ in $(seq 50); do grep -q ' on http' "$work/serve.out" && break; sleep 0.1; done
    url=$(grep -o 'http://[0-9.:]*' "$work/serve.out")
    before=$(cpu "$serve")
    result=$(/usr/bin/python3 bench/serve/fanout.py "$url" "$WATCHERS" "$SECONDS_")
    after=$(cpu "$serve")
    echo "round $round: $result serve_cpu_s=$(awk -v a="$after" -v b="$before" 'BEGIN{print a-b}')"
    kill "$serve"; wait "$serve" 2>/dev/null
done
