#!/usr/bin/env bash
# What recording costs (issue 10): `watchscope-cli record --out` of a 50,000 events/s watch
# stream for DURATION seconds, against the peer people use today to keep a stream,
# `kubectl get -w -o json > file`, on the same served firehose (bench/scenarios/firehose-50k.yaml).
# The two run in alternate rounds, never together (one 50k/s stream already loads serve), so the
# VM's drift hits both alike. Per run: events received, bytes received (WatchScope counts them;
# for kubectl the file is the stream), bytes on disk and their ratio, watches the server closed
# (a client that does not keep up has its watch closed by the apiserver's dispatch budget), the
# client's CPU seconds and peak RSS, serve's CPU seconds. For WatchScope, `export` of the
# capture must find exactly the events the live run counted: nothing was dropped on the way to
# disk.
#   bench/capture/record-50k.sh [ROUNDS=3] [DURATION=60]
set -u
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
DURATION=${2:-60}
CLI=${WS_CLI:-build/app/watchscope-cli}
KUBECTL=$(command -v kubectl) || KUBECTL=""
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
printf 'round\tclient\tevents\tevents_per_s\tbytes_received\tbytes_on_disk\tratio\twatch_closed\tcpu_s\trss_mb\tserve_cpu_s\tcheck\n'

start_serve() {
    "$CLI" serve --listen 127.0.0.1:0 --scenario bench/scenarios/firehose-50k.yaml \
        >"$work/serve.out" 2>&1 &
    serve=$!
    for _ in $(seq 100); do grep -q ' on http' "$work/serve.out" && break; sleep 0.1; done
    url=$(grep -o 'http://[0-9.:]*' "$work/serve.out")
}
stop_serve() {
    # utime + stime (fields 14, 15) in clock ticks, read before it goes away.
    serve_cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' \
        "/proc/$serve/stat")
    kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null
}

run_watchscope() {
    rm -f "$work/c.wscap"
    /usr/bin/time -f '%U %S %M' -o "$work/ws.time" "$CLI" record --server "$url" \
        --resources configmaps --duration "${DURATION}s" --out "$work/c.wscap" \
        --anomalies "$work/a.jsonl" >"$work/ws.out" 2>&1
    local events received disk closed exported check
    events=$(grep -o ': [0-9]* events' "$work/ws.out" | head -1 | grep -o '[0-9]*')
    received=$(grep -o 'of the [0-9]* bytes received' "$work/ws.out" | grep -o '[0-9]*')
    disk=$(stat -c %s "$work/c.wscap")
    closed=$(grep -c '"watcher-terminated"' "$work/a.jsonl")
    "$CLI" export "$work/c.wscap" --anomalies "$work/e.jsonl" >"$work/export.out" 2>&1
    exported=$(grep -o ': [0-9]* events' "$work/export.out" | head -1 | grep -o '[0-9]*')
    if [ "$exported" = "$events" ] && cmp -s "$work/a.jsonl" "$work/e.jsonl"; then
        check="export-identical"
    else
        check="export-DIFFERS(${exported})"
    fi
    read -r u s m <"$work/ws.time"
    awk -v r="$round" -v e="$events" -v d="$DURATION" -v b="$received" -v f="$disk" \
        -v c="$closed" -v u="$u" -v s="$s" -v m="$m" -v sc="$serve_cpu" -v k="$check" \
        'BEGIN { printf "%d\twatchscope\t%d\t%.0f\t%d\t%d\t%.3f\t%d\t%.1f\t%.0f\t%s\t%s\n",
                 r, e, e / d, b, f, f / b, c, u + s, m / 1024, sc, k }'
}

run_kubectl() {
    cat >"$work/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: s, cluster: {server: $url}}]
contexts: [{name: s, context: {cluster: s}}]
current-context: s
KC
    /usr/bin/time -f '%U %S %M' -o "$work/k.time" timeout -s INT "$DURATION" "$KUBECTL" \
        --kubeconfig "$work/kubeconfig" get configmaps -A -w -o json --output-watch-events \
        >"$work/k.json" 2>"$work/k.err"
    local events disk ended
    # One event a line; the initial state comes first, as one List object.
    events=$(grep -c '^{"type":"' "$work/k.json")
    disk=$(stat -c %s "$work/k.json")
    # kubectl ends by itself when the server closes its watch; `timeout` ending it is normal.
    ended=$(grep -c . "$work/k.err")
    read -r u s m < <(tail -1 "$work/k.time")
    awk -v r="$round" -v e="$events" -v d="$DURATION" -v f="$disk" -v c="$ended" -v u="$u" \
        -v s="$s" -v m="$m" -v sc="$serve_cpu" \
        'BEGIN { printf "%d\tkubectl\t%d\t%.0f\t%d\t%d\t%.3f\t%d\t%.1f\t%.0f\t%s\t-\n",
                 r, e, e / d, f, f, 1.0, c, u + s, m / 1024, sc }'
}

for round in $(seq 1 "$ROUNDS"); do
    order="watchscope kubectl"
    (( round % 2 )) || order="kubectl watchscope"
    for client in $order; do
        [ "$client" = kubectl ] && [ -z "$KUBECTL" ] && continue
        start_serve
        serve_cpu="?"
        if [ "$client" = watchscope ]; then
            run_watchscope_out=$(mktemp -p "$work")
            run_watchscope >"$run_watchscope_out"
            stop_serve
            sed "s/\t?\t/\t$serve_cpu\t/" "$run_watchscope_out"
        else
            run_k_out=$(mktemp -p "$work")
            run_kubectl >"$run_k_out"
            stop_serve
            sed "s/\t?\t/\t$serve_cpu\t/" "$run_k_out"
        fi
    done
done
