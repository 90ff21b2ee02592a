#!/usr/bin/env bash
# WatchScope's cluster source against `kubectl get -w -o json` on the same served stream.
# Each round: a fresh `watchscope-cli serve` playing bench/scenarios/firehose.yaml (3,000
# events/s), both clients started together on it for DURATION, then each one's CPU seconds
# (user+sys, /usr/bin/time) and the events it consumed. The order of the two starts alternates.
#   bench/serve/vs-kubectl.sh [ROUNDS=5] [DURATION=70]
set -u
cd "$(dirname "$0")/../.."
ROUNDS=${1:-5}
DURATION=${2:-70}
CLI=${WS_CLI:-build/app/watchscope-cli}
KUBECTL=$(command -v kubectl) || { echo "kubectl not found"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"; kill $(jobs -p) 2>/dev/null' EXIT
printf 'round\tclient\tcpu_s\tevents\tcpu_s_per_100k\n'
for round in $(seq 1 "$ROUNDS"); do
    "$CLI" serve --listen 127.0.0.1:0 --scenario bench/scenarios/firehose.yaml >"$work/serve.out" 2>&1 &
    serve=$!
    for _ in $(seq 50); do grep -q ' on http' "$work/serve.out" && break; sleep 0.1; done
    url=$(grep -o 'http://[0-9.:]*' "$work/serve.out")
    cat >"$work/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: s, cluster: {server: $url}}]
contexts: [{name: s, context: {cluster: s}}]
current-context: s
KC
    start_ws() {
        /usr/bin/time -f '%U %S' -o "$work/ws.time" "$CLI" record --server "$url" \
            --resources configmaps --duration "${DURATION}s" >"$work/ws.out" 2>&1 &
    }
    start_kubectl() {
        # Only kubectl is timed; the counter is a separate process.
        ( /usr/bin/time -f '%U %S' -o "$work/k.time" timeout -s INT "$DURATION" "$KUBECTL" \
              --kubeconfig "$work/kubeconfig" get configmaps -A -w -o json --output-watch-events \
              2>/dev/null | grep -c '^{"type":' >"$work/k.count" ) &
    }
    if (( round % 2 )); then start_ws; start_kubectl; else start_kubectl; start_ws; fi
    wait $(jobs -p | grep -v "^$serve\$") 2>/dev/null
    sleep 0.5
    kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null
    read -r wu ws <"$work/ws.time"
    read -r ku ks < <(tail -1 "$work/k.time")
    wev=$(grep -o ': [0-9]* events' "$work/ws.out" | grep -o '[0-9]*')
    kev=$(cat "$work/k.count")
    awk -v r="$round" -v u="$wu" -v s="$ws" -v e="$wev" \
        'BEGIN { c = u + s; printf "%d\twatchscope\t%.2f\t%d\t%.3f\n", r, c, e, e ? c / e * 1e5 : 0 }'
    awk -v r="$round" -v u="$ku" -v s="$ks" -v e="$kev" \
        'BEGIN { c = u + s; printf "%d\tkubectl\t%.2f\t%d\t%.3f\n", r, c, e, e ? c / e * 1e5 : 0 }'
done
