#!/usr/bin/env bash
# What `record --audit-log` writes must not change with a faster source: runs two builds of
# watchscope-cli on the same log and compares their anomalies (JSON Lines), timelines (CSV, every
# sample) and summary lines byte for byte. Exit 0 when they are the same.
#
#   bench/audit/same-output.sh BEFORE_CLI AFTER_CLI LOG
#   e.g. python3 bench/audit/gen-audit-log.py /tmp/a.log --size 200M
#        bench/audit/same-output.sh /tmp/old/watchscope-cli build/app/watchscope-cli /tmp/a.log
set -euo pipefail
before=$1 after=$2 log=$3
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
for side in before after; do
    "${!side}" record --audit-log "$log" --anomalies "$dir/$side.anomalies.jsonl" \
        --timeline "$dir/$side.timeline.csv" > "$dir/$side.out" 2> "$dir/$side.err"
    grep -v '^\r\?$' "$dir/$side.err" | grep -v 'MB/s' > "$dir/$side.warnings" || true
done
same=0
for f in anomalies.jsonl timeline.csv out warnings; do
    if cmp -s "$dir/before.$f" "$dir/after.$f"; then
        echo "same      $f ($(wc -l < "$dir/after.$f") lines)"
    else
        echo "DIFFERENT $f:"
        diff "$dir/before.$f" "$dir/after.$f" | head -5
        same=1
    fi
done
exit $same
