#!/usr/bin/env bash
# Builds the real peers the tests run beside WatchScope, with the go command from their modules
# (nothing is downloaded but Go modules; nothing built is committed):
#
#   tests/peers/build.sh [PEER...]      PEER: kube-apiserver-1.33, kube-apiserver-1.35, etcd-3.6,
#                                      clientgo-0.35 (informer and writer), clientgo-0.18.5,
#                                      clientgo-0.18.6, clientgo-0.18.9, clientgo-0.20,
#                                      clientgo-0.22, clientgo-0.27, clientgo-0.28, clientgo-0.29,
#                                      clientgo-0.36 (informer) (default: all of them);
#                                      kube-apiserver-1.28 on demand (seed-prevkv-nil.sh)
#
# Programs go to $WS_PEERS_BIN (default build/peers/bin): kube-apiserver-1.35, etcd-3.6,
# informer-0.35, writer-0.35, informer-0.18.5, ... The informers of every client-go release build
# from one source (clientgo/informer) against clientgo/go.mod (0.35) or clientgo/releases/R.mod. The go command's build cache makes a second run take seconds; a
# program is rebuilt only when its module's files are newer than it. Set WS_GO to the go command
# to use (default: `go` on PATH; scripts/lib/go.sh finds or fetches one >= 1.25).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${WS_PEERS_BIN:-$root/build/peers/bin}"
go="${WS_GO:-go}"
mkdir -p "$bin"
all=(kube-apiserver-1.33 kube-apiserver-1.35 etcd-3.6 clientgo-0.35 clientgo-0.18.5 clientgo-0.18.6
     clientgo-0.18.9 clientgo-0.20 clientgo-0.22 clientgo-0.27 clientgo-0.28 clientgo-0.29
     clientgo-0.36)
peers=("$@"); [[ ${#peers[@]} -gt 0 ]] || peers=("${all[@]}")

# up_to_date OUT DIR : OUT exists and is newer than every file of module DIR.
up_to_date() {
    [[ -x "$1" ]] || return 1
    [[ -z "$(find "$2" -type f -newer "$1" -print -quit)" ]]
}

build_apiserver() {
    local minor="$1" dir="$here/kube-apiserver/$1" out="$bin/kube-apiserver-$1" version
    [[ -f "$dir/go.mod" ]] || { echo "build.sh: no module for kube-apiserver $minor (tests/peers/new-apiserver-module.sh 1.${minor#1.}.PATCH makes one)" >&2; return 2; }
    up_to_date "$out" "$dir" && { echo "kube-apiserver $minor: up to date"; return 0; }
    version="$(awk '$1 == "k8s.io/kubernetes" { print $2; exit } $1 == "require" && $2 == "k8s.io/kubernetes" { print $3; exit }' "$dir/go.mod")"
    [[ -n "$version" ]] || { echo "build.sh: $dir/go.mod names no k8s.io/kubernetes version" >&2; return 2; }
    local major="${version#v}"; major="${major%%.*}"
    local minornum="${version#v*.}"; minornum="${minornum%%.*}"
    # /version reports what the release's own build stamps (hack/lib/version.sh); WatchScope
    # picks its behaviour from it, so an unstamped v0.0.0 would not do.
    local ldflags=""
    for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minornum"
        ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
    done
    echo "kube-apiserver $minor ($version): building"
    (cd "$dir" && "$go" build -trimpath -ldflags "-s -w$ldflags" -o "$out.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
    mv "$out.tmp" "$out"
}

build_module() {  # NAME DIR PKG OUT [GO BUILD FLAGS...]
    local name="$1" dir="$2" pkg="$3" out="$4"
    shift 4
    up_to_date "$out" "$dir" && { echo "$name: up to date"; return 0; }
    echo "$name: building"
    (cd "$dir" && "$go" build "$@" -trimpath -ldflags "-s -w" -o "$out.tmp" "$pkg")
    mv "$out.tmp" "$out"
}
# The informer of client-go release R (0.18.5, 0.22, ...) from clientgo/releases/R.mod; before
# 0.26 its event handler registration and factory shutdown differ (build tag clientgo_pre026).
build_informer_release() {
    local release="$1" dir="$here/clientgo" minor
    [[ -f "$dir/releases/$release.mod" ]] || { echo "build.sh: no clientgo/releases/$release.mod" >&2; return 2; }
    minor="${release#0.}"; minor="${minor%%.*}"
    local flags=(-modfile="releases/$release.mod")
    [[ "$minor" -ge 26 ]] || flags+=(-tags clientgo_pre026)
    build_module "informer-$release" "$dir" ./informer "$bin/informer-$release" "${flags[@]}"
}

for p in "${peers[@]}"; do
    t0=$SECONDS
    case "$p" in
        kube-apiserver-*) build_apiserver "${p#kube-apiserver-}" ;;
        etcd-*) build_module "$p" "$here/etcd/${p#etcd-}" . "$bin/$p" ;;
        clientgo-0.35)
            build_module informer-0.35 "$here/clientgo" ./informer "$bin/informer-0.35"
            build_module writer-0.35 "$here/clientgo" ./writer "$bin/writer-0.35" ;;
        clientgo-*) build_informer_release "${p#clientgo-}" ;;
        *) echo "build.sh: unknown peer: $p (known: ${all[*]})" >&2; exit 2 ;;
    esac
    echo "$p: $((SECONDS - t0)) s"
done
