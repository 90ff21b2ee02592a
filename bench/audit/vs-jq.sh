#!/usr/bin/env bash
# Reading a 1 GB audit log: the audit source's reader and parser (ws-bench-audit), the whole
# source through `watchscope-cli record`, and `jq -c 'select(.verb=="list")'`, side by side,
# interleaved, 3 rounds each, each under /usr/bin/time -v (elapsed, peak RSS).
#
#   bench/audit/vs-jq.sh [BUILD_DIR] [SIZE] [LOG]      (default: build, 1G)
# The generated file is deleted at the end. LOG: a log gen-audit-log.py wrote before (same size
# and seed: the same bytes), used as it is and kept.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build}"
size="${2:-1G}"
if [[ -n "${3:-}" ]]; then
    file="$3"
else
    file="$(mktemp -d)/audit.log"
    trap 'rm -rf "$(dirname "$file")"' EXIT
    python3 "$here/gen-audit-log.py" "$file" --size "$size"
fi
bytes=$(stat -c %s "$file")
cat "$file" > /dev/null # into the page cache: every run reads it from memory

run() { # name, command...
    local name=$1; shift
    local out; out=$(mktemp)
    /usr/bin/time -v "$@" > /dev/null 2> "$out"
    local wall rss cpu
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0;
                        for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$out")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out")
    # CPU time too (user + system): on a shared machine the wall clock says how busy it was.
    cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ {s += $2} END {print s}' "$out")
    rm -f "$out"
    awk -v n="$name" -v w="$wall" -v r="$rss" -v b="$bytes" -v c="$cpu" \
        'BEGIN {printf "%-22s %8.2f s %9.1f MB/s %9.1f MB peak RSS %8.2f s CPU\n", n, w,
                b / 1e6 / w, r / 1024, c}'
}
for round in 1 2 3; do
    echo "round $round ($bytes bytes)"
    run "ws-bench-audit" "$build/bench/ws-bench-audit" "$file"
    run "ws-bench-audit --req" "$build/bench/ws-bench-audit" "$file" --requests
    run "watchscope-cli record" "$build/app/watchscope-cli" record --audit-log "$file"
    run "jq select list" jq -c 'select(.verb=="list")' "$file"
done
