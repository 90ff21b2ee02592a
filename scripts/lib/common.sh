# shellcheck shell=bash
# Shared helpers for scripts/setup-run.sh, scripts/setup-test.sh and scripts/screenshot.sh.
# Source it; it defines functions and arrays only (plus WS_ROOT), and runs nothing by itself.
#
# Target system: Debian 12 (bookworm), possibly minimal (no compiler, no cmake), as root or as a
# user with sudo. Everything is non-interactive so it also works in CI (CI=true, no stdin).

# ---------------------------------------------------------------------------------------------
# Package sets (real Debian 12 package names, checked with apt-cache).
#
# Notes on names:
#  * qt6-charts-dev is the Qt Charts dev package (libqt6charts6-dev is only a virtual name it
#    provides; it cannot be installed by itself).
#  * Qt6Charts' CMake config requires Qt6OpenGL, whose CMake files live in libqt6opengl6-dev.
#    qt6-base-dev only *Recommends* that package, so on a system with recommends off it is
#    missing and find_package(Qt6 ... Charts) fails: list it explicitly.
#  * OpenGL/Vulkan headers (libgl-dev, libglx-dev, libopengl-dev, libvulkan-dev) are hard
#    dependencies of qt6-base-dev, so find_package(Qt6 Widgets) works without naming them;
#    libgl-dev is named anyway because Qt6Gui's WrapOpenGL lookup is REQUIRED.
#  * qt6-svg-dev: Qt SVG (QSvgGenerator), for exporting a chart as SVG from the window.
#  * lld: LLVM's linker, which the top-level CMakeLists.txt uses when present: it links the
#    ~130 test executables of a build with a fifth of GNU ld's CPU.
#  * libcurl4-openssl-dev: libcurl (OpenSSL flavour, HTTP/2 through nghttp2), the cluster
#    source's HTTP transport.
#  * zlib1g-dev: zlib, for the audit-log source's rotated `.gz` files (kube-apiserver's
#    lumberjack compresses backups with gzip). Usually present already (libssl-dev and
#    libgrpc++-dev pull it in), named because the audit source links it directly.
# ---------------------------------------------------------------------------------------------
# shellcheck disable=SC2034  # used by the scripts that source this file
WS_BUILD_PACKAGES=(
    build-essential cmake ninja-build ccache pkg-config git
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
    libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
    libsimdjson-dev libyaml-cpp-dev libzstd-dev zlib1g-dev libbenchmark-dev libboost-dev libssl-dev
    libcurl4-openssl-dev clang-format lld
)

# Extra packages for running the test suite (see ws_test_packages for the conditional ones):
# openssl makes the test CA and certificates of the TLS tests; python3-kubernetes is the official
# Python client the serve tests drive. clang and its runtime (libFuzzer, named explicitly: clang
# only recommends it) build the `fuzz` preset. packaging.tst_debpackage validates the installed
# desktop entry (desktop-file-validate, from desktop-file-utils) and AppStream metainfo
# (appstreamcli, from appstream), and CPack's Depends come from dpkg-shlibdeps (dpkg-dev; named
# although build-essential depends on it, since the test calls it); CPack's DEB generator refuses
# to run shlibdeps without `file` (a fresh minimal Debian has none). The secrets test
# (tst_nosecretleaks) searches the captures it wrote decompressed, with the `zstd` program.
WS_TEST_PACKAGES=(xvfb xauth openssl python3 python3-kubernetes clang libclang-rt-14-dev
                  appstream desktop-file-utils dpkg-dev file zstd)

# ---------------------------------------------------------------------------------------------
# Logging
# ---------------------------------------------------------------------------------------------
ws_log()  { printf '==> %s\n' "$*" >&2; }
ws_warn() { printf 'WARNING: %s\n' "$*" >&2; }
ws_die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Repository root = parent of scripts/. Works wherever the script is called from.
WS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# ---------------------------------------------------------------------------------------------
# Privileges: run a command as root, through sudo only when we are not root already.
# ---------------------------------------------------------------------------------------------
ws_as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        if [[ -t 0 ]]; then
            sudo "$@"
        else
            # No terminal (CI): never hang on a password prompt.
            sudo -n true 2>/dev/null \
                || ws_die "sudo needs a password but there is no terminal: run as root or allow passwordless sudo"
            sudo -n "$@"
        fi
    else
        ws_die "not root and sudo is not installed: run this script as root (or install sudo) to install: $*"
    fi
}

# ---------------------------------------------------------------------------------------------
# Packages
# ---------------------------------------------------------------------------------------------

# ws_pkg_installed PKG -> 0 if dpkg says PKG is fully installed ("ii").
ws_pkg_installed() {
    local status
    status="$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" || return 1
    [[ "$status" == ii* ]]
}

# ws_missing_packages PKG... -> prints the packages that are not installed, one a line.
ws_missing_packages() {
    local p
    for p in "$@"; do
        ws_pkg_installed "$p" || printf '%s\n' "$p"
    done
}

# The test-only packages, with the conditional ones: a kubectl/etcd already on PATH (for
# example a newer kubectl from another source) is used as is and the Debian package skipped.
ws_test_packages() {
    printf '%s\n' "${WS_TEST_PACKAGES[@]}"
    if command -v etcd >/dev/null 2>&1; then
        ws_log "etcd already on PATH ($(command -v etcd)): not installing etcd-server"
    else
        echo etcd-server
    fi
    if command -v etcdctl >/dev/null 2>&1; then
        ws_log "etcdctl already on PATH ($(command -v etcdctl)): not installing etcd-client"
    else
        echo etcd-client
    fi
    if command -v kubectl >/dev/null 2>&1; then
        ws_log "kubectl already on PATH ($(command -v kubectl)): not installing kubernetes-client"
    else
        echo kubernetes-client
    fi
}

WS_APT_UPDATED=0

# ws_apt_install PKG... : installs whichever of PKG are missing. Runs 'apt-get update' at most
# once per script run, and only when something is missing. Never removes or reinstalls anything.
ws_apt_install() {
    local missing=()
    mapfile -t missing < <(ws_missing_packages "$@")
    if [[ ${#missing[@]} -eq 0 ]]; then
        ws_log "all ${#} required packages already installed"
        return 0
    fi
    command -v apt-get >/dev/null 2>&1 || ws_die "apt-get not found: this script supports Debian 12 only; install by hand: ${missing[*]}"
    ws_log "installing ${#missing[@]} missing package(s): ${missing[*]}"

    local apt_opts=(-y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold
                    -o DPkg::Lock::Timeout=600 -o Dpkg::Use-Pty=0)
    if [[ "$WS_APT_UPDATED" -eq 0 ]]; then
        ws_as_root env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update </dev/null \
            || ws_die "apt-get update failed"
        WS_APT_UPDATED=1
    fi
    # --no-install-recommends keeps a fresh machine's install small and fast; everything the
    # build needs is listed explicitly above.
    ws_as_root env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install \
        --no-install-recommends "${missing[@]}" </dev/null \
        || ws_die "apt-get install failed for: ${missing[*]}"

    # Double-check (e.g. a name that only exists as a virtual package would "succeed" oddly).
    local still=()
    mapfile -t still < <(ws_missing_packages "${missing[@]}")
    [[ ${#still[@]} -eq 0 ]] || ws_die "still not installed after apt-get install: ${still[*]}"
}

# ---------------------------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------------------------

# ccache settings shared by all builds. The top-level CMakeLists.txt already uses ccache as the
# compiler launcher when it finds it. BASEDIR + NOHASHDIR let a fresh clone in another directory
# (as CI makes) reuse the cache. Every value can be overridden from the environment.
ws_ccache_env() {
    export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
    export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$WS_ROOT}"
    export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
    if ! command -v ccache >/dev/null 2>&1; then
        ws_warn "ccache not found: building without a compiler cache"
    fi
}

ws_jobs() { nproc 2>/dev/null || echo 2; }

# ws_test_targets PRESET [CTEST ARGS...] : prints the test executables that test preset PRESET
# selects (its filter, narrowed by CTEST ARGS such as -L LABEL), one a line, sorted. Needs the
# configure preset of the same name configured, nothing built (`ctest -N` only lists). A test is
# named AREA.EXECUTABLE[:VARIANT] (tests/CMakeLists.txt; tests/real runs one executable per
# control plane, e.g. real.tst_realcluster:apiserver-1.33:etcd-3.4), so the target is the part
# between the first dot and the first colon. Fails if ctest fails.
ws_test_targets() {
    local preset="$1" listing
    shift
    listing="$(cd "$WS_ROOT" && ctest --preset "$preset" -N "$@" 2>&1)" \
        || { printf '%s\n' "$listing" >&2; return 1; }
    sed -nE 's/^[[:space:]]*Test[[:space:]]+#[0-9]+: [^.[:space:]]+\.([^:[:space:]]+)(:[^[:space:]]*)?[[:space:]]*$/\1/p' \
        <<<"$listing" | sort -u
}

# ws_build_preset NAME [--tests | --labels REGEX] [TARGET...] : configure + build one CMake preset
# from the repository root. With TARGETs, only those; with --tests, only the test executables that
# the test preset NAME selects (see ws_test_targets), so the list follows the preset's filter and
# the test files; with --labels REGEX, only those of its tests whose label matches REGEX (ctest
# -L), beside the TARGETs. A selection that finds no test is an error (building nothing would pass
# silently). WS_CONFIGURE_ARGS (an array, optional) is added to the configure command.
ws_build_preset() {
    local preset="$1"; shift
    local only_tests=0 select=() targets=()
    if [[ "${1:-}" == --tests ]]; then
        only_tests=1; shift
    elif [[ "${1:-}" == --labels ]]; then
        only_tests=1 select=(-L "$2"); shift 2
    fi
    [[ $# -gt 0 ]] && targets=("$@")
    ( cd "$WS_ROOT" || exit 1
      ws_log "configuring preset '$preset'${WS_CONFIGURE_ARGS:+ with ${WS_CONFIGURE_ARGS[*]}}"
      cmake --preset "$preset" "${WS_CONFIGURE_ARGS[@]}" || { ws_warn "configure of preset '$preset' failed"; exit 1; }
      if [[ $only_tests -eq 1 ]]; then
          local list
          list="$(ws_test_targets "$preset" "${select[@]}")" \
              || { ws_warn "ctest --preset $preset -N ${select[*]} failed"; exit 1; }
          [[ -n "$list" ]] || { ws_warn "test preset '$preset'${select[*]:+ ${select[*]}} selects no test: nothing to build"; exit 1; }
          local names=()
          mapfile -t names <<<"$list"
          targets+=("${names[@]}")
      fi
      [[ ${#targets[@]} -gt 0 ]] && targets=(--target "${targets[@]}")
      ws_log "building preset '$preset' with -j$(ws_jobs)${targets[*]:+ ${targets[*]}}"
      cmake --build --preset "$preset" -j"$(ws_jobs)" "${targets[@]}" || { ws_warn "build of preset '$preset' failed"; exit 1; }
    )
}

# Prints a number of seconds as e.g. "3m07s".
ws_fmt_duration() {
    local s="$1"
    printf '%dm%02ds' $((s / 60)) $((s % 60))
}
