#!/usr/bin/env bash
# shellcheck disable=SC2015  # `check && pass ... || fail ...`: pass only prints, it cannot fail
# packaging.tst_debpackage: builds the Debian package with CPack from a configured and built
# build tree, then checks it the way a user's machine would see it:
#   * control: Package, Version (the project's), Architecture, and a Depends that names the
#     package of every shared library the two programs link (and qt6-qpa-plugins);
#   * files at the standard paths: /usr/bin/{watchscope,watchscope-cli}, the desktop entry, the
#     AppStream metainfo, the hicolor scalable icon; the programs stripped and with no RPATH;
#   * the programs extracted into a temporary root run from there: watchscope-cli --version and
#     scenarios, watchscope --version (offscreen);
#   * desktop-file-validate and appstreamcli validate pass on the installed files, and the
#     metainfo's newest release is the project version.
# Everything goes to a temporary directory that is removed at the end: no .deb is left in the
# build tree.
#
#   tst_debpackage.sh BUILD_DIR PROJECT_VERSION [CPACK]
#
# Exit 0 pass, 1 fail, 77 skipped (a tool is missing; scripts/setup-test.sh installs them all).
set -uo pipefail

build_dir="${1:?usage: tst_debpackage.sh BUILD_DIR PROJECT_VERSION [CPACK]}"
version="${2:?usage: tst_debpackage.sh BUILD_DIR PROJECT_VERSION [CPACK]}"
cpack="${3:-cpack}"

SKIP=77
failures=0
pass() { printf 'PASS   : %s\n' "$*"; }
fail() { printf 'FAIL!  : %s\n' "$*"; failures=$((failures + 1)); }
die()  { printf 'FAIL!  : %s\n' "$*"; exit 1; }

# ---- tools ------------------------------------------------------------------------------------
# tool:package pairs, for the message.
missing=()
for pair in dpkg-deb:dpkg dpkg-query:dpkg dpkg-shlibdeps:dpkg-dev readelf:binutils \
            desktop-file-validate:desktop-file-utils appstreamcli:appstream file:file; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair%%:*} (package ${pair#*:})")
done
command -v "$cpack" >/dev/null 2>&1 || missing+=("$cpack (package cmake)")
if [[ ${#missing[@]} -gt 0 ]]; then
    printf 'SKIP   : tst_debpackage needs %s; scripts/setup-test.sh installs them\n' \
        "$(printf '%s, ' "${missing[@]}" | sed 's/, $//')"
    exit "$SKIP"
fi
[[ -f "$build_dir/CPackConfig.cmake" ]] || die "$build_dir/CPackConfig.cmake not found: configure the build first"
for prog in watchscope watchscope-cli; do
    [[ -x "$build_dir/app/$prog" ]] || die "$build_dir/app/$prog not built (cmake --build --target tst_debpackage builds both)"
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/ws-debpackage.XXXXXX")" || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS

# ---- build the package --------------------------------------------------------------------------
if ! "$cpack" -G DEB --config "$build_dir/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1; then
    cat "$tmp/cpack.log"
    die "cpack -G DEB failed"
fi
arch="$(dpkg --print-architecture)"
debs=("$tmp"/out/*.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || { ls -l "$tmp/out"; die "cpack did not make exactly one .deb"; }
deb="${debs[0]}"
if [[ "$(basename "$deb")" == "watchscope_${version}_${arch}.deb" ]]; then
    pass "cpack made $(basename "$deb") ($(stat -c %s "$deb") bytes) in $((SECONDS - t0)) s"
else
    fail "cpack made $(basename "$deb"), not watchscope_${version}_${arch}.deb"
fi

# ---- control fields ------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
[[ "$(field Package)" == watchscope ]] && pass "Package: watchscope" || fail "Package is '$(field Package)', not watchscope"
[[ "$(field Version)" == "$version" ]] && pass "Version: $version" || fail "Version is '$(field Version)', not $version"
[[ "$(field Architecture)" == "$arch" ]] && pass "Architecture: $arch" || fail "Architecture is '$(field Architecture)', not $arch"
depends="$(field Depends)"
printf 'Depends: %s\n' "$depends"
# The package names in Depends, one a line (alternatives split too, version constraints dropped).
mapfile -t dep_names < <(sed -E 's/[,|]/\n/g' <<<"$depends" | sed -E 's/\([^)]*\)//; s/:any//; s/[[:space:]]//g' | grep -v '^$' | sort -u)
depends_on() {
    local d
    for d in "${dep_names[@]}"; do [[ "$d" == "$1" ]] && return 0; done
    return 1
}
for p in libqt6core6 libgrpc++1.51 qt6-qpa-plugins; do
    depends_on "$p" && pass "Depends names $p" || fail "Depends does not name $p"
done

# ---- install into a temporary root ----------------------------------------------------------------
root="$tmp/root"
dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x failed"
expected=(
    usr/bin/watchscope
    usr/bin/watchscope-cli
    usr/share/applications/watchscope.desktop
    usr/share/metainfo/io.watchscope.WatchScope.metainfo.xml
    usr/share/icons/hicolor/scalable/apps/io.watchscope.WatchScope.svg
)
for f in "${expected[@]}"; do
    [[ -f "$root/$f" && -s "$root/$f" ]] && pass "installs /$f" || fail "/$f is not in the package"
done
for prog in watchscope watchscope-cli; do
    [[ -x "$root/usr/bin/$prog" ]] || fail "/usr/bin/$prog is not executable"
done
# Nothing outside /usr, nothing the list above does not expect under bin/.
unexpected="$(cd "$root" && find . -mindepth 1 -maxdepth 1 ! -name usr)"
[[ -z "$unexpected" ]] && pass "everything under /usr" || fail "the package installs outside /usr: $unexpected"
desktop="$root/usr/share/applications/watchscope.desktop"
metainfo="$root/usr/share/metainfo/io.watchscope.WatchScope.metainfo.xml"

# ---- the programs: no way back into the build tree, every linked library declared --------------
for prog in watchscope watchscope-cli; do
    bin="$root/usr/bin/$prog"
    [[ -f "$bin" ]] || continue
    paths="$(readelf -d "$bin" | grep -E '\((RPATH|RUNPATH)\)')"
    [[ -z "$paths" ]] && pass "$prog has no RPATH/RUNPATH" || fail "$prog has $paths"
    if readelf -S "$bin" | grep -q '\.debug_info'; then
        fail "$prog is not stripped (CPACK_STRIP_FILES)"
    else
        pass "$prog is stripped"
    fi
    if grep -qaF "$build_dir/" "$bin"; then
        fail "$prog contains the build directory's path $build_dir/"
    fi
    # Each NEEDED library -> the file the loader picks (ldd of the installed program; a library
    # that only the build tree has shows as "not found") -> its Debian package -> in Depends?
    mapfile -t needed < <(readelf -d "$bin" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p')
    ldd_out="$(env -u LD_LIBRARY_PATH ldd "$bin" 2>&1)"
    uncovered=()
    for so in "${needed[@]}"; do
        # "libx.so.1 => /path (addr)", or "/lib64/ld-linux-x86-64.so.2 (addr)" for the loader.
        file="$(awk -v so="$so" '$1 == so && $2 == "=>" { print $3; exit }
                                 $2 != "=>" && substr($1, length($1) - length(so)) == "/" so { print $1; exit }' <<<"$ldd_out")"
        if [[ -z "$file" || "$file" == not ]]; then
            fail "$prog: $so not found by the loader outside the build tree"
            continue
        fi
        pkg=""
        # dpkg knows a file by the path its package ships it at: /lib/... or /usr/lib/... (usrmerge).
        for candidate in "$file" "$(readlink -f "$file")" "${file#/usr}" "/usr${file}" \
                         "$(readlink -f "$file" | sed 's|^/usr||')"; do
            pkg="$(dpkg-query -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1)" && [[ -n "$pkg" ]] && break
        done
        if [[ -z "$pkg" ]]; then
            fail "$prog: no Debian package owns $file ($so)"
        elif ! depends_on "$pkg"; then
            uncovered+=("$so ($pkg)")
        fi
    done
    if [[ ${#uncovered[@]} -eq 0 ]]; then
        pass "$prog: Depends covers all ${#needed[@]} linked libraries"
    else
        fail "$prog: Depends misses $(printf '%s, ' "${uncovered[@]}" | sed 's/, $//')"
    fi
done

# ---- run the installed programs --------------------------------------------------------------------
# From the temporary root only: another directory, no library path, an empty home and runtime dir.
mkdir -p "$tmp/home" "$tmp/run" && chmod 700 "$tmp/run"
run_installed() {
    (cd "$tmp" && env -u LD_LIBRARY_PATH HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/run" \
        XDG_CONFIG_HOME="$tmp/home/.config" QT_QPA_PLATFORM=offscreen timeout 60 "$@")
}
out="$(run_installed "$root/usr/bin/watchscope-cli" --version 2>&1)"; rc=$?
[[ $rc -eq 0 && "$out" == "watchscope-cli $version" ]] \
    && pass "watchscope-cli --version: $out" \
    || fail "watchscope-cli --version gave exit $rc and '$out', expected 'watchscope-cli $version'"
out="$(run_installed "$root/usr/bin/watchscope-cli" scenarios 2>&1)"; rc=$?
count="$(grep -c . <<<"$out")"
if [[ $rc -eq 0 ]] && grep -qE '^healthy[[:space:]]' <<<"$out"; then
    pass "watchscope-cli scenarios lists $count scenarios"
else
    fail "watchscope-cli scenarios gave exit $rc and: $out"
fi
out="$(run_installed "$root/usr/bin/watchscope" --version 2>/dev/null)"; rc=$?
[[ $rc -eq 0 && "$out" == "WatchScope $version" ]] \
    && pass "watchscope --version (offscreen): $out" \
    || fail "watchscope --version gave exit $rc and '$out', expected 'WatchScope $version'"

# ---- desktop entry, metainfo, icon ---------------------------------------------------------------
if [[ -f "$desktop" ]]; then
    if out="$(desktop-file-validate "$desktop" 2>&1)" && [[ -z "$out" ]]; then
        pass "desktop-file-validate: no findings"
    else
        fail "desktop-file-validate: $out"
    fi
    exec_bin="$(sed -nE 's/^Exec=([^ ]+).*/\1/p' "$desktop")"
    [[ -x "$root/usr/bin/$exec_bin" ]] && pass "Exec=$exec_bin is installed" || fail "Exec=$exec_bin is not in /usr/bin"
    icon="$(sed -nE 's/^Icon=(.*)/\1/p' "$desktop")"
    [[ -f "$root/usr/share/icons/hicolor/scalable/apps/$icon.svg" ]] \
        && pass "Icon=$icon is installed" || fail "Icon=$icon has no hicolor icon"
fi
if [[ -f "$metainfo" ]]; then
    if out="$(appstreamcli validate --no-net "$metainfo" 2>&1)"; then
        pass "appstreamcli validate: $(tail -n 1 <<<"$out")"
    else
        fail "appstreamcli validate: $out"
    fi
    newest="$(grep -oE '<release [^>]*version="[^"]+"' "$metainfo" | head -n 1 | sed -E 's/.*version="([^"]+)".*/\1/')"
    [[ "$newest" == "$version" ]] && pass "metainfo's newest release is $version" \
        || fail "metainfo's newest release is '$newest', not the project version $version"
    launchable="$(sed -nE 's/.*<launchable type="desktop-id">([^<]+)<.*/\1/p' "$metainfo")"
    [[ "$launchable" == "$(basename "$desktop")" ]] && pass "launchable is $launchable" \
        || fail "metainfo's launchable '$launchable' is not $(basename "$desktop")"
    while read -r b; do
        [[ -x "$root/usr/bin/$b" ]] || fail "metainfo provides binary $b, which is not in /usr/bin"
    done < <(sed -nE 's/.*<binary>([^<]+)<.*/\1/p' "$metainfo")
fi
svg="$root/usr/share/icons/hicolor/scalable/apps/io.watchscope.WatchScope.svg"
if [[ -f "$svg" ]]; then
    grep -q '<svg' "$svg" && pass "the icon is an SVG" || fail "the icon is not an SVG"
fi

printf 'Result: %s in %d s\n' "$([[ $failures -eq 0 ]] && echo "all checks passed" || echo "$failures failed")" \
    $((SECONDS - t0))
[[ $failures -eq 0 ]]
