#!/usr/bin/env bash
# Set up a Debian 12 machine to build WatchScope, build it (preset 'default') and start the GUI.
#
#   scripts/setup-run.sh [ARGS...]      install what is missing, build, run build/app/watchscope ARGS...
#   WS_NO_START=1 scripts/setup-run.sh  install + build only
#
# Works as root or as a user with sudo (sudo is used only when not root). Packages already
# installed are left alone; 'apt-get update' runs only if something has to be installed.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$WS_ROOT"

t0=$SECONDS
ws_log "checking build dependencies"
ws_apt_install "${WS_BUILD_PACKAGES[@]}"
t_install=$((SECONDS - t0))

ws_ccache_env
t0=$SECONDS
ws_build_preset default || ws_die "build failed (see the messages above)"
t_build=$((SECONDS - t0))
ws_log "done: install $(ws_fmt_duration "$t_install"), build $(ws_fmt_duration "$t_build")"

if [[ "${WS_NO_START:-0}" == "1" ]]; then
    ws_log "WS_NO_START=1: not starting the GUI"
    exit 0
fi

app="$WS_ROOT/build/app/watchscope"
[[ -x "$app" ]] || ws_die "$app was not built (is app/gui/ there yet?)"
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && -z "${QT_QPA_PLATFORM:-}" ]]; then
    ws_die "no display (DISPLAY/WAYLAND_DISPLAY unset): run it under X, or take a picture with
       scripts/screenshot.sh out.png 5 $app"
fi
ws_log "starting $app $*"
exec "$app" "$@"
