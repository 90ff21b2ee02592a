#!/usr/bin/env bash
# One hour at 5,000 events/s (issue 14, "Soak"): does WatchScope stay flat on a long night?
# Starts the sources — a real etcd (data on /dev/shm) written by `watchscope-cli load`, and
# `watchscope-cli serve` playing bench/soak/soak-5k.yaml — and on each runs the consumers:
# `watchscope-cli record` (anomalies, timeline and a capture to files) and the window
# (ws-bench-soak-gui: the real MainWindow offscreen, its event-loop latency measured inside).
# Every 10 s it reads each process's /proc (VmRSS, threads, open fds, CPU) and each consumer's
# events received; at the end it prints the table (RSS slope after warm-up by least squares,
# thread/fd range, GUI latency) and leaves samples.csv, minutes.txt and summary.txt in --out.
#   bench/soak/soak.sh [--minutes 60] [--rate 5000] [--sources etcd,serve] [--consumers cli,gui]
#                      [--writers 2] [--batch 10] [--out DIR] [--build build] [--work DIR]
#                      [--scenario bench/soak/soak-5k.yaml]   (what serve plays; its rate is --rate)
# --writers/--batch go to `load`: one etcd on this 2-core VM takes ~2,600 single puts a second,
# 5,000 as transactions of 10 from 2 writers. Run from the source tree, after building
# watchscope-cli and ws-bench-soak-gui.
set -u
cd "$(dirname "$0")/../.." || exit 2
MINUTES=60 RATE=5000 SOURCES=etcd,serve CONSUMERS=cli,gui WRITERS=2 BATCH=10 BUILD=build
SCENARIO=bench/soak/soak-5k.yaml
OUT="" WORK=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || {
        echo "soak.sh: $1 needs a value" >&2
        exit 2
    }
    case "$1" in
    --minutes) MINUTES=$2 ;;
    --rate) RATE=$2 ;;
    --sources) SOURCES=$2 ;;
    --consumers) CONSUMERS=$2 ;;
    --writers) WRITERS=$2 ;;
    --batch) BATCH=$2 ;;
    --out) OUT=$2 ;;
    --build) BUILD=$2 ;;
    --work) WORK=$2 ;;
    --scenario) SCENARIO=$2 ;;
    *)
        echo "soak.sh: unknown option '$1' (see the comment at the top of $0)" >&2
        exit 2
        ;;
    esac
    shift 2
done
for n in "$MINUTES" "$RATE" "$WRITERS" "$BATCH"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || {
        echo "soak.sh: '$n' is not a positive integer" >&2
        exit 2
    }
done
CLI=$BUILD/app/watchscope-cli
GUI=$BUILD/bench/soak/ws-bench-soak-gui
for f in "$CLI" "$GUI"; do
    [ -x "$f" ] || {
        echo "soak.sh: $f is not built (cmake --build $BUILD --target watchscope-cli ws-bench-soak-gui)" >&2
        exit 2
    }
done
OUT=${OUT:-bench/soak/results/$(date -u +%Y%m%d-%H%M)}
mkdir -p "$OUT"
# Captures and timelines of an hour are a few GB: on disk, not tmpfs, and deleted at the end.
WORK=${WORK:-$(mktemp -d /tmp/ws-soak.XXXXXX)}
ETCD_DIR=$(mktemp -d /dev/shm/ws-soak-etcd.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$ETCD_DIR" "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 40000))
        (: </dev/tcp/127.0.0.1/$p) 2>/dev/null || {
            echo "$p"
            return
        }
    done
}

# name -> pid, source of each measured process; consumers also have an events reader.
declare -A PID SRC KIND
add() { # add NAME KIND SOURCE PID
    PID[$1]=$4 KIND[$1]=$2 SRC[$1]=$3 PIDS+=("$4")
    NAMES+=("$1")
}
NAMES=()
run_seconds=$((MINUTES * 60))

if [[ ",$SOURCES," == *,etcd,* ]]; then
    cport=$(free_port) pport=$(free_port)
    ETCD_URL=http://127.0.0.1:$cport
    /usr/bin/etcd --name soak --data-dir "$ETCD_DIR/data" \
        --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
        --listen-peer-urls "http://127.0.0.1:$pport" \
        --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
        --initial-cluster "soak=http://127.0.0.1:$pport" \
        --quota-backend-bytes=8589934592 >"$WORK/etcd.log" 2>&1 &
    add etcd source etcd $!
    for _ in $(seq 100); do
        ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URL" endpoint health >/dev/null 2>&1 && break
        sleep 0.2
    done
    ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URL" endpoint health >/dev/null 2>&1 || {
        echo "soak.sh: etcd did not start: $(tail -3 "$WORK/etcd.log")" >&2
        exit 1
    }
    # Compaction every minute, as kube-apiserver's compactor does (every 5 min by default): etcd's
    # own memory and database stay bounded over the hour.
    "$CLI" load --etcd "$ETCD_URL" --rate "$RATE/s" --duration "$((run_seconds + 300))s" \
        --objects 5000 --compact-every 1m --writers "$WRITERS" --batch "$BATCH" \
        >"$WORK/load.out" 2>&1 &
    add load source etcd $!
fi
if [[ ",$SOURCES," == *,serve,* ]]; then
    [ -r "$SCENARIO" ] || {
        echo "soak.sh: cannot read the scenario '$SCENARIO'" >&2
        exit 2
    }
    sed "s/^\( *writesPerSecond:\).*/\1 $RATE/" "$SCENARIO" >"$WORK/soak.yaml"
    "$CLI" serve --listen 127.0.0.1:0 --scenario "$WORK/soak.yaml" >"$WORK/serve.out" 2>&1 &
    add serve source serve $!
    for _ in $(seq 100); do
        grep -q 'http://' "$WORK/serve.out" && break
        sleep 0.1
    done
    SERVE_URL=$(grep -o 'http://[0-9.:]*' "$WORK/serve.out" | head -1)
    [ -n "$SERVE_URL" ] || {
        echo "soak.sh: serve did not start: $(cat "$WORK/serve.out")" >&2
        exit 1
    }
fi

source_args() {
    if [ "$1" = etcd ]; then echo "--etcd $ETCD_URL"; else echo "--server $SERVE_URL"; fi
}
for src in etcd serve; do
    [[ ",$SOURCES," == *,$src,* ]] || continue
    if [[ ",$CONSUMERS," == *,cli,* ]]; then
        # Under a pseudo-terminal record prints its progress (events so far) every second: the
        # events received, without a hook in the product.
        script -qfec "exec $CLI record $(source_args $src) --duration $((run_seconds + 300))s \
            --anomalies $WORK/cli-$src.anomalies.jsonl --timeline $WORK/cli-$src.timeline.csv \
            --out $WORK/cli-$src.wscap" /dev/null >"$WORK/cli-$src.progress" 2>&1 &
        scriptpid=$!
        PIDS+=("$scriptpid")
        for _ in $(seq 50); do
            child=$(pgrep -P "$scriptpid" | head -1)
            [ -n "$child" ] && break
            sleep 0.1
        done
        add "cli-$src" cli "$src" "$child"
    fi
    if [[ ",$CONSUMERS," == *,gui,* ]]; then
        # Half a minute longer than the sampling, which starts after it.
        # shellcheck disable=SC2046
        QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} "$GUI" --minutes "$MINUTES.5" \
            $(source_args $src) >"$WORK/gui-$src.log" 2>"$WORK/gui-$src.err" &
        add "gui-$src" gui "$src" $!
    fi
done

# What one consumer has received so far.
events_of() {
    local name=$1
    if [ "${KIND[$name]}" = cli ]; then
        tail -c 400 "$WORK/$name.progress" | tr '\r' '\n' | grep -o '[0-9]\+ events ' | tail -1 |
            cut -d' ' -f1
    else
        grep '^sample ' "$WORK/$name.log" | tail -1 | cut -d' ' -f3
    fi
}
declare -A CPU0 EV0
HZ=$(getconf CLK_TCK)
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
CSV=$OUT/samples.csv
echo "seconds,process,source,rss_mib,threads,fds,cpu_pct,events,events_per_s,lat_p50_ms,lat_p99_ms,lat_max_ms" >"$CSV"
for n in "${NAMES[@]}"; do CPU0[$n]=$(cpu_ticks "${PID[$n]}"); EV0[$n]=0; done
echo "soak: ${NAMES[*]} for $MINUTES min at $RATE events/s; samples in $CSV" >&2
t0=${EPOCHREALTIME/./}
for k in $(seq 1 $((run_seconds / 10))); do
    now=${EPOCHREALTIME/./}
    wait_us=$((t0 + k * 10000000 - now))
    [ "$wait_us" -gt 0 ] && sleep "$((wait_us / 1000000)).$(printf %06d $((wait_us % 1000000)))"
    for n in "${NAMES[@]}"; do
        p=${PID[$n]}
        if [ ! -d "/proc/$p" ]; then
            echo "soak.sh: $n (pid $p) ended at ${k}0 s" >&2
            exit 1
        fi
        rss=$(awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$p/status")
        threads=$(awk '/^Threads/ {print $2}' "/proc/$p/status")
        fds=$(find "/proc/$p/fd" -mindepth 1 -maxdepth 1 | wc -l)
        c=$(cpu_ticks "$p")
        cpu=$(awk -v a="$c" -v b="${CPU0[$n]}" -v hz="$HZ" 'BEGIN{printf "%.1f", (a-b)/hz*10}')
        CPU0[$n]=$c
        ev="" rate="" p50="" p99="" mx=""
        if [ "${KIND[$n]}" != source ]; then
            ev=$(events_of "$n")
            ev=${ev:-0}
            rate=$(((ev - EV0[$n]) / 10))
            EV0[$n]=$ev
        fi
        if [ "${KIND[$n]}" = gui ]; then
            # The harness's own last 10 s: events and latency from inside the window's process.
            read -r _ _ ev2 _ p50 p99 mx < <(grep '^sample ' "$WORK/$n.log" | tail -1)
            read -r _ _ ev1 _ < <(grep '^sample ' "$WORK/$n.log" | tail -2 | head -1)
            [ -n "${ev1:-}" ] && [ -n "${ev2:-}" ] && rate=$(((ev2 - ev1) / 10))
        fi
        echo "$((k * 10)),${KIND[$n]/source/$n},${SRC[$n]},$rss,$threads,$fds,$cpu,$ev,$rate,$p50,$p99,$mx" >>"$CSV"
    done
    if [ $((k % 6)) -eq 0 ]; then
        echo "soak: minute $((k / 6)): $(grep "^$((k * 10))," "$CSV" |
            awk -F, '$8!="" {printf "%s-%s %.0f MiB %s ev/s  ", $2, $3, $4, $9}')" >&2
    fi
done
# The harnesses end on their own after --minutes and print their whole-run latency.
for n in "${NAMES[@]}"; do
    [ "${KIND[$n]}" = gui ] || continue
    for _ in $(seq 300); do
        grep -q '^total ' "$WORK/$n.log" && break
        sleep 0.1
    done
    cp "$WORK/$n.log" "$OUT/$n.log"
done
for n in "${NAMES[@]}"; do
    [ "${KIND[$n]}" = cli ] && tail -c 400 "$WORK/$n.progress" | tr '\r' '\n' | tail -1 >"$OUT/$n.last"
done
gui_lat() { # whole-run p50/p99/max and the worst minute's p99 from a harness log
    awk '/^total/ {t = $3 " / " $4 " / " $5} /^minute/ && $5 > w {w = $5}
        END {printf "%s ms (worst minute p99 %d ms)", t, w}' "$OUT/$1.log"
}
{
    echo "Soak: $MINUTES min at $RATE events/s, $(date -u +%Y-%m-%dT%H:%MZ) end, $(nproc) cores," \
        "load average $(cut -d' ' -f1-3 /proc/loadavg)"
    warm=$((run_seconds / 6))
    echo "record's outputs at the end (MB): $(cd "$WORK" && for f in cli-*.wscap cli-*.csv cli-*.jsonl; do
        [ -e "$f" ] && printf '%s %.1f  ' "$f" "$(($(stat -c %s "$f") / 100000))e-1"
    done)"
    echo "RSS slope: least squares over ${warm}s..${run_seconds}s; threads/fds over the same span;" \
        "events/s and CPU from minute 1 on"
    printf '| %-11s | %9s | %9s | %9s | %9s | %9s | %9s | %9s | %9s | %s |\n' process "events/s" \
        "min ev/s" "RSS@warm" "RSS@end" "MiB/h" threads fds "CPU %" "latency p50/p99/max"
    for n in "${NAMES[@]}"; do
        row=$(awk -F, -v p="${KIND[$n]/source/$n}" -v s="${SRC[$n]}" -v warm="$warm" \
            -v end="$run_seconds" '
            $2 == p && $3 == s {
                t = $1
                if (t >= 60) { cpu += $7; ncpu++ }
                if ($8 != "") ev[t] = $8
                if (t == warm) rw = $4
                re = $4
                if (t >= warm) {
                    n++; sx += t; sy += $4; sxx += t * t; sxy += t * $4
                    if (tmin == "" || $5 < tmin) tmin = $5; if ($5 > tmax) tmax = $5
                    if (fmin == "" || $6 < fmin) fmin = $6; if ($6 > fmax) fmax = $6
                }
            }
            END {
                slope = (n * sxx - sx * sx) ? (n * sxy - sx * sy) / (n * sxx - sx * sx) * 3600 : 0
                rate = "-"; low = "-"
                if ((60 in ev) && (end in ev) && end > 60) {
                    rate = sprintf("%.0f", (ev[end] - ev[60]) / (end - 60))
                    for (m = 60; m + 60 <= end; m += 60) {
                        r = (ev[m + 60] - ev[m]) / 60
                        if (low == "-" || r < low) low = r
                    }
                    if (low != "-") low = sprintf("%.0f", low)
                }
                printf "%s|%s|%s|%s|%+.1f|%s-%s|%s-%s|%.1f", rate, low, rw, re, slope, tmin, tmax,
                    fmin, fmax, ncpu ? cpu / ncpu : 0
            }' "$CSV")
        IFS='|' read -r rate low rw re slope th fd cpu <<<"$row"
        lat=""
        [ "${KIND[$n]}" = gui ] && lat=$(gui_lat "$n")
        printf '| %-11s | %9s | %9s | %9s | %9s | %9s | %9s | %9s | %9s | %s |\n' "$n" "$rate" \
            "$low" "$rw" "$re" "$slope" "$th" "$fd" "$cpu" "$lat"
    done
} | tee "$OUT/summary.txt"
# Per minute: each process's RSS and each consumer's events/s, each window's latency.
awk -F, 'NR > 1 && $1 % 60 == 0 {
        m = $1 / 60; key = $2 "-" $3
        if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
        rss[m, key] = $4; rate[m, key] = $9; lat[m, key] = $10 "/" $11 "/" $12; last = m
    }
    END {
        printf "minute"; for (i = 1; i <= nk; i++) printf "  %s", keys[i]; print ""
        for (m = 1; m <= last; m++) {
            printf "%d", m
            for (i = 1; i <= nk; i++) {
                k = keys[i]; printf "  %.0fMiB", rss[m, k]
                if (rate[m, k] != "") printf " %sev/s", rate[m, k]
                if (lat[m, k] != "//") printf " %sms", lat[m, k]
            }
            print ""
        }
    }' "$CSV" >"$OUT/minutes.txt"
echo "per minute: $OUT/minutes.txt (the latency there is the minute's last 10 s; the harness logs" \
    "have each whole minute)"
