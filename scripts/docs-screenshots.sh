#!/usr/bin/env bash
# Takes the README's screenshots of the main views under Xvfb, from real sessions:
#   docs/screenshots/healthy.png   the simulator's `healthy` scenario at 1x
#   docs/screenshots/incident.png  `cacher-retry-stale-object`: its incidents
#   docs/screenshots/etcd.png      a real etcd (Debian's etcd-server) under `watchscope-cli load`
#   docs/screenshots/cluster.png   two `watchscope-cli serve` apiservers of `ha-stale-read`,
#                                  watched as one cluster (--server twice)
# and, from GUI tests that drive the window into a state on the real pipeline (run under Xvfb
# with WS_SCREENSHOT_DIR; they need the build's test programs):
#   docs/screenshots/accounts.png  tst_guiaccounts: the Revisions tab with a gap (a compaction
#                                  past a cut-off etcd watcher)
#   docs/screenshots/dropped.png   tst_windowchrome: the red "dropped …" note (a window and a
#                                  capture that fell behind, on a synthetic cluster)
#   docs/screenshots/insecure.png  tst_guisecurity: the banner of insecure-skip-tls-verify
#
#   scripts/docs-screenshots.sh [BUILD_DIR]        (default: build)
#
# The window gets its own settings directory (no remembered layout of yours) and fills a
# 1400x900 screen. Look at the images before committing them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
gui="$build/app/watchscope"
cli="$build/app/watchscope-cli"
out="$root/docs/screenshots"
for b in "$gui" "$cli"; do [[ -x "$b" ]] || { echo "docs-screenshots: build $b first" >&2; exit 1; }; done
command -v etcd >/dev/null || { echo "docs-screenshots: etcd not found (apt-get install etcd-server)" >&2; exit 1; }
mkdir -p "$out"
tmp="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
export XDG_CONFIG_HOME="$tmp/config"
size=1400x900
shot() { # NAME SECONDS ARGS...
    local name="$1" secs="$2"; shift 2
    "$root/scripts/screenshot.sh" -s "$size" "$out/$name.png" "$secs" -- \
        "$gui" -qwindowgeometry "$size+0+0" "$@"
    echo "docs-screenshots: $out/$name.png"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { # URL: until it answers 200 (10 s at most)
    python3 - "$1" <<'PY' || { echo "docs-screenshots: $1 did not answer" >&2; exit 1; }
import sys, time, urllib.request
for _ in range(100):
    try:
        if urllib.request.urlopen(sys.argv[1], timeout=1).status == 200:
            sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
}

shot healthy 20 --scenario healthy
shot incident 25 --scenario cacher-retry-stale-object --speed 4

# etcd: a real one on free loopback ports, written to by the load generator.
client=$(free_port); peer=$(free_port)
etcd --data-dir "$tmp/etcd" --listen-client-urls "http://127.0.0.1:$client" \
    --advertise-client-urls "http://127.0.0.1:$client" --listen-peer-urls "http://127.0.0.1:$peer" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "default=http://127.0.0.1:$peer" >"$tmp/etcd.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$client/health"
"$cli" load --etcd "http://127.0.0.1:$client" --rate 200/s --duration 2m --objects 500 \
    --compact-every 10s >"$tmp/load.log" 2>&1 &
pids+=($!)
shot etcd 20 --etcd "http://127.0.0.1:$client"

# A cluster of two apiservers played by serve, as kubectl would reach them.
a=$(free_port); b=$(free_port)
"$cli" serve --listen "127.0.0.1:$a" --scenario ha-stale-read --apiserver 0 --seed 1 >"$tmp/serve0.log" 2>&1 &
pids+=($!)
"$cli" serve --listen "127.0.0.1:$b" --scenario ha-stale-read --apiserver 1 --seed 1 >"$tmp/serve1.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$a/readyz"
wait_http "http://127.0.0.1:$b/readyz"
shot cluster 25 --server "http://127.0.0.1:$a" --server "http://127.0.0.1:$b"

# States a test drives the window into: each test saves its window when WS_SCREENSHOT_DIR is set.
test_shot() { # TEST FUNCTION...
    local test="$build/tests/$1"; shift
    [[ -x "$test" ]] || { echo "docs-screenshots: build $(basename "$test") first" >&2; exit 1; }
    WS_SCREENSHOT_DIR="$out" WS_CLI="$cli" WS_SOURCE_DIR="$root" QT_QPA_PLATFORM=xcb \
        xvfb-run -a -s "-screen 0 ${size}x24" "$test" "$@"
}
test_shot tst_guiaccounts gapShownAsTheCliPrintsIt
test_shot tst_windowchrome statusBarShowsWhatWasDropped
test_shot tst_guisecurity insecureShowsBannerAndLogs
echo "docs-screenshots: $out/accounts.png $out/dropped.png $out/insecure.png"
