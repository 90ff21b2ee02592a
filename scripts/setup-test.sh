#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions are called indirectly through run_phase
# Set up a Debian 12 machine, build WatchScope in the presets default, asan, tsan and fuzz and
# run the test suite under each (fuzz: each libFuzzer target for a bounded time). This is what CI runs (.ci/run). It never starts the GUI.
#
#   scripts/setup-test.sh
#
# Phases: install (missing packages only) -> build peers (the real kube-apiserver, etcd and
# client-go programs of tests/peers/, with Go from scripts/lib/go.sh) -> build default -> build
# asan -> build tsan -> build fuzz -> test default -> test peers (the tests beside the real
# peers, label "peers", plain build only) -> test asan -> test tsan -> test fuzz. The tsan phases build and run only the threaded tests: the
# tsan test preset's filter (CMakePresets.json) selects them, and the build takes its target list
# from that same filter (`ctest --preset tsan -N`). A failing phase does not stop the later
# independent ones (a failed build skips only its own tests), so one run reports everything.
# Ends with the time of each phase and a line
#   N passed, N failed[, N skipped]
# summed over all ctest runs, and exits non-zero if anything failed.
#
# Environment (all optional):
#   WS_CTEST_JOBS=2       parallel tests per ctest run
#   WS_TEST_TIMEOUT=600   default per-test timeout in seconds (a test's own TIMEOUT wins)
#   WS_PRESETS="default asan tsan fuzz"   which presets to build and test, in this order; e.g.
#                                    WS_PRESETS="default asan" skips the ThreadSanitizer phases
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/go.sh"
cd "$WS_ROOT"

CTEST_JOBS="${WS_CTEST_JOBS:-2}"
TEST_TIMEOUT="${WS_TEST_TIMEOUT:-600}"
read -r -a PRESETS <<<"${WS_PRESETS:-default asan tsan fuzz}"

declare -A PHASE_TIME=()
PHASE_ORDER=()
FAILED_PHASES=()
TOTAL_PASSED=0
TOTAL_FAILED=0
TOTAL_SKIPPED=0

# run_phase NAME CMD... : runs CMD, records its duration and whether it failed.
run_phase() {
    local name="$1"; shift
    local t0=$SECONDS rc=0
    ws_log "---- phase: $name"
    "$@" || rc=$?
    PHASE_TIME["$name"]=$((SECONDS - t0))
    PHASE_ORDER+=("$name")
    if [[ $rc -ne 0 ]]; then
        FAILED_PHASES+=("$name")
        ws_warn "phase '$name' failed (exit $rc)"
    fi
    return 0
}

# parse_ctest_log FILE : adds the counts in one ctest output to the totals.
# ctest's closing line is "NN% tests passed, F tests failed out of T"; T counts skipped tests
# (listed under "The following tests did not run:" as "(Skipped)") as passed, and leaves
# disabled tests out. We report skipped and disabled tests as skipped, not passed.
# Prints "passed failed skipped" for the caller; returns 1 if the file has no closing line.
parse_ctest_log() {
    local file="$1" line failed total skipped disabled
    line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$file" | tail -n 1)" || true
    [[ -n "$line" ]] || return 1
    failed="$(sed -E 's/^.* ([0-9]+) tests? failed out of ([0-9]+).*$/\1/' <<<"$line")"
    total="$(sed -E 's/^.* ([0-9]+) tests? failed out of ([0-9]+).*$/\2/' <<<"$line")"
    skipped="$(grep -cE '^[[:space:]]+[0-9]+ - .* \(Skipped\)[[:space:]]*$' "$file" || true)"
    disabled="$(grep -cE '^[[:space:]]+[0-9]+ - .* \(Disabled\)[[:space:]]*$' "$file" || true)"
    echo "$((total - failed - skipped)) $failed $((skipped + disabled))"
}

# run_ctest PRESET [CTEST ARGS...] : runs ctest for one preset, tees its output to a log, adds
# up the counts.
run_ctest() {
    local preset="$1" log rc=0 counts
    shift
    log="$(mktemp -t "ctest-$preset.XXXXXX.log")"
    ctest --preset "$preset" -j"$CTEST_JOBS" --output-on-failure --timeout "$TEST_TIMEOUT" "$@" \
        </dev/null 2>&1 | tee "$log" || rc=$?
    if counts="$(parse_ctest_log "$log")"; then
        local p f s
        read -r p f s <<<"$counts"
        TOTAL_PASSED=$((TOTAL_PASSED + p))
        TOTAL_FAILED=$((TOTAL_FAILED + f))
        TOTAL_SKIPPED=$((TOTAL_SKIPPED + s))
        ws_log "ctest $preset: $p passed, $f failed, $s skipped"
    elif grep -q 'No tests were found' "$log"; then
        ws_warn "ctest $preset: no tests were found"
    else
        ws_warn "ctest $preset: no summary line in the output (exit $rc)"
        [[ $rc -ne 0 ]] || rc=1
    fi
    rm -f "$log"
    return "$rc"
}

skip_phase() {
    ws_warn "skipping phase '$1': $2"
    PHASE_ORDER+=("$1")
    PHASE_TIME["$1"]=-1
}

install_all() {
    local pkgs=()
    mapfile -t pkgs < <(printf '%s\n' "${WS_BUILD_PACKAGES[@]}"; ws_test_packages)
    ws_apt_install "${pkgs[@]}"
}

# The real kube-apiserver, etcd and client-go programs (tests/peers/build.sh) with a go command
# of the right version (scripts/lib/go.sh fetches one through the Go module proxy if needed).
# The go command's build and module caches stay between runs, so a second run takes seconds.
build_peers() {
    local go
    go="$(ws_go)" || return 1
    WS_GO="$go" bash tests/peers/build.sh
}

# ---------------------------------------------------------------------------------------------
run_phase install install_all
if [[ " ${FAILED_PHASES[*]-} " == *" install "* ]]; then
    ws_die "package installation failed; nothing else can run"
fi

ws_ccache_env
if command -v ccache >/dev/null 2>&1; then ccache -z >/dev/null 2>&1 || true; fi

# The real-peer tests (label "peers") run in the plain build only, as a phase of their own.
HAVE_DEFAULT=0
[[ " ${PRESETS[*]} " == *" default "* ]] && HAVE_DEFAULT=1
if [[ $HAVE_DEFAULT == 1 ]]; then
    run_phase "build peers" build_peers
fi

declare -A BUILD_OK=()
for preset in "${PRESETS[@]}"; do
    if [[ "$preset" == tsan ]]; then
        # Only the test executables the tsan test preset runs.
        run_phase "build $preset" ws_build_preset "$preset" --tests
    else
        run_phase "build $preset" ws_build_preset "$preset"
    fi
    if [[ " ${FAILED_PHASES[*]-} " == *" build $preset "* ]]; then BUILD_OK[$preset]=0; else BUILD_OK[$preset]=1; fi
done
for preset in "${PRESETS[@]}"; do
    if [[ "${BUILD_OK[$preset]}" == 1 && "$preset" == default ]]; then
        run_phase "test default" run_ctest default -LE peers
        if [[ " ${FAILED_PHASES[*]-} " == *" build peers "* ]]; then
            skip_phase "test peers" "build peers failed"
        else
            WS_REQUIRE_PEERS=1 run_phase "test peers" run_ctest default -L peers
        fi
    elif [[ "${BUILD_OK[$preset]}" == 1 ]]; then
        run_phase "test $preset" run_ctest "$preset"
    else
        skip_phase "test $preset" "build $preset failed"
    fi
done

# ---------------------------------------------------------------------------------------------
echo
echo "================ WatchScope setup-test summary ================"
for name in "${PHASE_ORDER[@]}"; do
    t="${PHASE_TIME[$name]}"
    if [[ "$t" -lt 0 ]]; then
        state="SKIPPED"; t="-"
    else
        state="ok"; t="$(ws_fmt_duration "$t")"
    fi
    [[ " ${FAILED_PHASES[*]-} " == *" $name "* && "$state" == ok ]] && state="FAILED"
    printf '  %-14s %-8s %s\n' "$name" "$t" "$state"
done
if command -v ccache >/dev/null 2>&1; then
    ccache -s 2>/dev/null | grep -iE '^ *(hits|misses|cacheable)|Hits:|Misses:' | sed 's/^/  ccache: /' || true
fi
if [[ ${#FAILED_PHASES[@]} -gt 0 ]]; then
    failed_list="$(printf '%s, ' "${FAILED_PHASES[@]}")"
    echo "  failed phases: ${failed_list%, }"
fi
if [[ $TOTAL_SKIPPED -gt 0 ]]; then
    echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed, $TOTAL_SKIPPED skipped"
else
    echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed"
fi

if [[ ${#FAILED_PHASES[@]} -gt 0 || $TOTAL_FAILED -gt 0 ]]; then
    exit 1
fi
exit 0
