#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions are called indirectly through run_phase
# Set up a Debian 12 machine, build WatchScope in the presets default, asan, tsan and fuzz and
# run the test suite under each (fuzz: each libFuzzer target for a bounded time). This is what CI runs (.ci/run). It never starts the GUI.
#
#   scripts/setup-test.sh
#
# Phases: install (missing packages only), build peers (the real kube-apiserver, etcd and
# client-go programs of tests/peers/, with Go from scripts/lib/go.sh), build default, asan, tsan
# and fuzz, test default, test peers (the tests beside the real peers, label "peers", plain
# build only), test asan, tsan and fuzz. They overlap where one leaves CPU idle (see "The order
# of work" below; WS_OVERLAP=0 runs them one after the other). With asan among the presets, the
# unit suite runs under ASan + UBSan and test default runs only the tests a plain build alone can
# judge (labels plain and packaging). The tsan phases build and run only the threaded tests: the
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
#   WS_OVERLAP=1          0: no background tracks, every phase after the other
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/go.sh"
cd "$WS_ROOT"

CTEST_JOBS="${WS_CTEST_JOBS:-2}"
TEST_TIMEOUT="${WS_TEST_TIMEOUT:-600}"
read -r -a PRESETS <<<"${WS_PRESETS:-default asan tsan fuzz}"
OVERLAP="${WS_OVERLAP:-1}"

# Phase results and test counts go to files, so that phases run in background tracks report too.
STATE="$(mktemp -d -t ws-setup-test.XXXXXX)"
trap 'rm -rf "$STATE"' EXIT
: >"$STATE/phases" # "NAME<TAB>SECONDS<TAB>EXIT" per phase that ran
: >"$STATE/counts" # "PASSED FAILED SKIPPED" per ctest run
RUN_START=$SECONDS

# run_phase NAME CMD... : runs CMD, records its duration and exit status; never fails itself.
run_phase() {
    local name="$1"; shift
    local t0=$SECONDS rc=0
    ws_log "---- phase: $name"
    "$@" || rc=$?
    printf '%s\t%s\t%s\n' "$name" $((SECONDS - t0)) "$rc" >>"$STATE/phases"
    [[ $rc -eq 0 ]] || ws_warn "phase '$name' failed (exit $rc)"
    return 0
}
skip_phase() {
    ws_warn "skipping phase '$1': $2"
    printf '%s\t-1\t0\n' "$1" >>"$STATE/phases"
}
# phase_ok NAME : the phase ran and succeeded.
phase_ok() { awk -F'\t' -v n="$1" '$1 == n && $3 == 0 && $2 >= 0 { found = 1 } END { exit !found }' "$STATE/phases"; }
phase_failed() { awk -F'\t' -v n="$1" '$1 == n && $3 != 0 { found = 1 } END { exit !found }' "$STATE/phases"; }
has_preset() { [[ " ${PRESETS[*]} " == *" $1 "* ]]; }

# background NAME NICE FUNCTION : runs FUNCTION (a track of phases) in the background at CPU
# priority NICE, its output into a log that is printed when the track is joined. The foreground
# keeps the CPU it asks for; a track takes what the foreground leaves (a test waiting on a
# server, the go command fetching modules, a link step on one core).
declare -A TRACK_PID=()
background() {
    local name="$1" nice="$2" fn="$3"
    ws_log "---- track '$name' starts in the background (nice $nice, its log printed when it ends)"
    ( renice -n "$nice" -p "$BASHPID" >/dev/null 2>&1 || true; "$fn" ) >"$STATE/track-$name.log" 2>&1 &
    TRACK_PID[$name]=$!
}
# wait_phase NAME TRACK : waits until phase NAME of background track TRACK has ended (its line is
# in the phases file), or the track has ended without it.
wait_phase() {
    while ! awk -F'\t' -v n="$1" '$1 == n { found = 1 } END { exit !found }' "$STATE/phases"; do
        kill -0 "${TRACK_PID[$2]}" 2>/dev/null || return 0
        sleep 5
    done
}
join_track() {
    local name="$1"
    wait "${TRACK_PID[$name]}" || true
    ws_log "---- track '$name' (background) output:"
    cat "$STATE/track-$name.log"
    ws_log "---- end of track '$name'"
}

# parse_ctest_log FILE : the counts of one ctest output.
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
# its counts to the totals.
run_ctest() {
    local preset="$1" log rc=0 counts
    shift
    log="$(mktemp -t "ctest-$preset.XXXXXX.log")"
    ctest --preset "$preset" -j"$CTEST_JOBS" --output-on-failure --timeout "$TEST_TIMEOUT" "$@" \
        </dev/null 2>&1 | tee "$log" || rc=$?
    if counts="$(parse_ctest_log "$log")"; then
        local p f s
        read -r p f s <<<"$counts"
        echo "$p $f $s" >>"$STATE/counts"
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
# With asan among the presets, the unit suite runs under ASan + UBSan only, and the plain build
# builds the two programs and the tests that only a plain build can judge: labels "plain"
# (wall-clock and speed limits the sanitizers would measure instead), "packaging" and "peers"
# (tests/CMakeLists.txt). WS_PRESETS=default alone builds and runs every test of the plain build.
PLAIN_LABELS='^(plain|packaging|peers)$'
build_one() {
    case "$1" in
        tsan) ws_build_preset tsan --tests ;; # only the test executables the tsan test preset runs
        default)
            if has_preset asan; then
                ws_build_preset default --labels "$PLAIN_LABELS" watchscope watchscope-cli
            else
                ws_build_preset default
            fi ;;
        *) ws_build_preset "$1" ;;
    esac
}
test_default() {
    if has_preset asan; then
        run_ctest default -L '^(plain|packaging)$'
    else
        run_ctest default -LE peers
    fi
}
peers_track() { run_phase "build peers" build_peers; }
sanitizer_builds_track() {
    local preset
    for preset in "${PRESETS[@]}"; do
        [[ "$preset" == default ]] || run_phase "build $preset" build_one "$preset"
    done
}
test_preset() { # PRESET : its tests, or why they are skipped
    if phase_ok "build $1"; then
        run_phase "test $1" run_ctest "$1"
    else
        skip_phase "test $1" "build $1 failed"
    fi
}
fuzz_tests_track() { test_preset fuzz; }

# ---------------------------------------------------------------------------------------------
# The order of work. With WS_OVERLAP=1 (the default) three tracks share the two cores:
#   foreground:  build default -> test default -> test peers -> test asan -> test tsan
#   background:  build peers (nice 10: before the sanitizer builds, needed by test peers)
#   background:  build asan -> build tsan -> build fuzz (nice 19), then test fuzz (nice 19)
# so the peers and the sanitizer builds use the CPU that the plain build's link steps and the
# plain tests leave idle, and the plain tests run at full speed; test asan starts when build asan
# ends (beside build tsan and fuzz). With asan among the presets the plain build holds only the
# programs and the tests labelled plain, packaging and peers (see build_one). WS_OVERLAP=0 runs
# every phase one after the other.
run_phase install install_all
if phase_failed install; then
    ws_die "package installation failed; nothing else can run"
fi

ws_ccache_env
if command -v ccache >/dev/null 2>&1; then ccache -z >/dev/null 2>&1 || true; fi

SANITIZERS=0
for preset in "${PRESETS[@]}"; do [[ "$preset" == default ]] || SANITIZERS=1; done

if [[ $OVERLAP == 1 ]]; then
    if has_preset default; then background peers 10 peers_track; fi
    if [[ $SANITIZERS == 1 ]]; then background sanitizer-builds 19 sanitizer_builds_track; fi
elif has_preset default; then
    peers_track
fi

if has_preset default; then
    run_phase "build default" build_one default
    if phase_ok "build default"; then
        run_phase "test default" test_default
    else
        skip_phase "test default" "build default failed"
    fi
    if [[ $OVERLAP == 1 ]]; then join_track peers; fi
    if ! phase_ok "build default"; then
        skip_phase "test peers" "build default failed"
    elif ! phase_ok "build peers"; then
        skip_phase "test peers" "build peers failed"
    else
        WS_REQUIRE_PEERS=1 run_phase "test peers" run_ctest default -L peers
    fi
fi
if [[ $SANITIZERS == 1 ]]; then
    if [[ $OVERLAP == 1 ]]; then
        # The ASan tests start as soon as their build ends, beside the later sanitizer builds.
        if has_preset asan; then
            wait_phase "build asan" sanitizer-builds
            test_preset asan
        fi
        join_track sanitizer-builds
        if has_preset fuzz; then
            background fuzz-tests 19 fuzz_tests_track # CPU-bound fuzzing takes what the others leave
        fi
    else
        sanitizer_builds_track
    fi
    for preset in "${PRESETS[@]}"; do
        case "$preset" in
            default) ;;
            asan | fuzz) [[ $OVERLAP == 1 ]] || test_preset "$preset" ;;
            *) test_preset "$preset" ;;
        esac
    done
    if has_preset fuzz && [[ $OVERLAP == 1 ]]; then join_track fuzz-tests; fi
fi

# ---------------------------------------------------------------------------------------------
echo
echo "================ WatchScope setup-test summary ================"
TOTAL_PASSED=0 TOTAL_FAILED=0 TOTAL_SKIPPED=0
while read -r p f s; do
    TOTAL_PASSED=$((TOTAL_PASSED + p)) TOTAL_FAILED=$((TOTAL_FAILED + f)) TOTAL_SKIPPED=$((TOTAL_SKIPPED + s))
done <"$STATE/counts"
FAILED_PHASES=()
for name in install "build peers" "build default" "build asan" "build tsan" "build fuzz" \
    "test default" "test peers" "test asan" "test tsan" "test fuzz"; do
    line="$(awk -F'\t' -v n="$name" '$1 == n { l = $0 } END { print l }' "$STATE/phases")"
    [[ -n "$line" ]] || continue
    IFS=$'\t' read -r _ t rc <<<"$line"
    if [[ "$t" -lt 0 ]]; then
        state="SKIPPED"; t="-"
    elif [[ "$rc" -ne 0 ]]; then
        state="FAILED"; t="$(ws_fmt_duration "$t")"; FAILED_PHASES+=("$name")
    else
        state="ok"; t="$(ws_fmt_duration "$t")"
    fi
    printf '  %-14s %-8s %s\n' "$name" "$t" "$state"
done
if [[ $OVERLAP == 1 ]]; then
    echo "  (overlapped: build peers at nice 10 beside build default and test default; the sanitizer"
    echo "   builds at nice 19 beside them, test asan beside build tsan and fuzz; test fuzz at nice 19"
    echo "   beside test asan and test tsan)"
fi
printf '  %-14s %s\n' "wall time" "$(ws_fmt_duration $((SECONDS - RUN_START)))"
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
