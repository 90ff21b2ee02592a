#!/usr/bin/env bash
# Run a program on a private virtual X screen (Xvfb), wait, and save a PNG of the whole screen.
#
#   scripts/screenshot.sh [-s WIDTHxHEIGHT] OUT.png SECONDS [--] COMMAND [ARGS...]
#
# Examples:
#   scripts/screenshot.sh /tmp/ws.png 5 build/app/watchscope
#   scripts/screenshot.sh -s 1280x800 /tmp/ws.png 8 -- build/app/watchscope --scenario healthy
#
# The program is started in its own process group with DISPLAY set to the new screen (and
# QT_QPA_PLATFORM unset, so Qt uses X), left to run SECONDS seconds, captured, then stopped
# (TERM, then KILL after 3 s) together with its children and the X server.
# Exit status: 0 when the PNG was written and the program was still running when it was taken;
# 2 when the program had already exited (the PNG is still written, it may show nothing);
# 1 on any other error.
#
# Installs what it needs if missing (this script only): xvfb, and imagemagick for `import`.
# Falls back to xwd (x11-apps) + convert if `import` cannot capture.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage() { sed -n '3,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 1; }

size="${WS_SCREEN_SIZE:-1600x1000}"
if [[ "${1:-}" == "-s" ]]; then
    [[ $# -ge 2 ]] || usage
    size="$2"; shift 2
fi
[[ $# -ge 3 ]] || usage
out="$1"; wait_s="$2"; shift 2
[[ "${1:-}" == "--" ]] && shift
[[ $# -ge 1 ]] || usage
[[ "$size" =~ ^[0-9]+x[0-9]+$ ]] || ws_die "bad screen size '$size' (want WIDTHxHEIGHT)"
[[ "$wait_s" =~ ^[0-9]+([.][0-9]+)?$ ]] || ws_die "bad number of seconds '$wait_s'"
command -v "$1" >/dev/null 2>&1 || ws_die "command not found: $1"
case "$out" in *.png|*.PNG) ;; *) ws_die "output file must end in .png: $out" ;; esac
out_dir="$(dirname "$out")"
[[ -d "$out_dir" ]] || ws_die "output directory does not exist: $out_dir"

ws_apt_install xvfb imagemagick

tmp="$(mktemp -d -t ws-screenshot.XXXXXX)"
xvfb_pid=""
app_pid=""
cleanup() {
    if [[ -n "$app_pid" ]] && kill -0 "$app_pid" 2>/dev/null; then
        kill -TERM -- "-$app_pid" 2>/dev/null || true
        for _ in 1 2 3 4 5 6; do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL -- "-$app_pid" 2>/dev/null || true
    fi
    if [[ -n "$xvfb_pid" ]]; then
        kill -TERM "$xvfb_pid" 2>/dev/null || true
        wait "$xvfb_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Let Xvfb choose a free display number and tell us which (-displayfd).
Xvfb -displayfd 5 -screen 0 "${size}x24" -nolisten tcp -noreset 5>"$tmp/display" \
    >"$tmp/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 1 100); do
    [[ -s "$tmp/display" ]] && break
    kill -0 "$xvfb_pid" 2>/dev/null || { cat "$tmp/xvfb.log" >&2; ws_die "Xvfb failed to start"; }
    sleep 0.1
done
[[ -s "$tmp/display" ]] || ws_die "Xvfb did not report a display within 10 s"
display=":$(tr -d '[:space:]' <"$tmp/display")"
ws_log "Xvfb on display $display (${size})"

runtime_dir="${XDG_RUNTIME_DIR:-}"
if [[ -z "$runtime_dir" ]]; then runtime_dir="$tmp/runtime"; mkdir -m 700 "$runtime_dir"; fi
ws_log "starting: $*"
DISPLAY="$display" XDG_RUNTIME_DIR="$runtime_dir" setsid env -u QT_QPA_PLATFORM -u WAYLAND_DISPLAY "$@" \
    </dev/null >"$tmp/app.log" 2>&1 &
app_pid=$!

sleep "$wait_s"
still_running=1
if ! kill -0 "$app_pid" 2>/dev/null; then
    still_running=0
    app_rc=0; wait "$app_pid" || app_rc=$?
    ws_warn "the program exited (status $app_rc) before the screenshot; its output:"
    sed 's/^/    /' "$tmp/app.log" >&2
    app_pid=""
fi

if ! DISPLAY="$display" import -window root "$out" 2>"$tmp/capture.log"; then
    ws_warn "import failed ($(head -c 300 "$tmp/capture.log")); trying xwd + convert"
    ws_apt_install x11-apps
    DISPLAY="$display" xwd -root -silent >"$tmp/screen.xwd" || ws_die "xwd failed"
    convert "xwd:$tmp/screen.xwd" "png:$out" || ws_die "convert failed"
fi
[[ -s "$out" ]] || ws_die "no screenshot written to $out"
ws_log "wrote $out"
if [[ $still_running -eq 1 && -s "$tmp/app.log" ]]; then
    ws_log "program output so far (last 20 lines):"
    tail -n 20 "$tmp/app.log" | sed 's/^/    /' >&2
fi
[[ $still_running -eq 1 ]] || exit 2
