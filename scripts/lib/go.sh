# shellcheck shell=bash
# Finds or fetches the go command the real peers (tests/peers/) are built with. Source after
# common.sh; defines functions only.
#
# The peers' modules need Go >= 1.26 (etcd 3.6's server module says so). A machine whose `go`
# is older, or that has none (a fresh Debian 12: its golang-go is 1.19), gets Debian's golang-go
# and, through it, the golang.org/toolchain module of WS_GO_VERSION from the Go module proxy —
# the same archive the go command's own toolchain switch uses — unpacked once under
# ${XDG_CACHE_HOME:-$HOME/.cache}/watchscope/. Go 1.19 cannot switch toolchains by itself, so the
# module is downloaded with `go mod download` and its programs made executable here.

WS_GO_VERSION="${WS_GO_VERSION:-1.26.8}"
WS_GO_MIN_MINOR=26

# ws_go_usable GO : GO runs and is Go 1.WS_GO_MIN_MINOR or newer.
ws_go_usable() {
    local v
    v="$(GOTOOLCHAIN=local "$1" env GOVERSION 2>/dev/null)" || return 1
    [[ "$v" =~ ^go1\.([0-9]+) ]] || return 1
    [[ "${BASH_REMATCH[1]}" -ge "$WS_GO_MIN_MINOR" ]]
}

# ws_go : prints the path of a usable go command, fetching one when needed. Fails with a line
# on stderr when it cannot.
ws_go() {
    local candidate
    for candidate in "${WS_GO:-}" "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go; do
        if [[ -n "$candidate" ]] && ws_go_usable "$candidate"; then
            printf '%s\n' "$candidate"
            return 0
        fi
    done
    local home="${XDG_CACHE_HOME:-$HOME/.cache}/watchscope/go$WS_GO_VERSION"
    if ws_go_usable "$home/bin/go"; then
        printf '%s\n' "$home/bin/go"
        return 0
    fi
    ws_apt_install golang-go >&2 || return 1
    local boot=/usr/lib/go/bin/go
    [[ -x "$boot" ]] || boot="$(command -v go)"
    ws_log "fetching Go $WS_GO_VERSION (golang.org/toolchain from the Go module proxy) with $("$boot" version)"
    local arch
    case "$(uname -m)" in
        x86_64) arch=amd64 ;;
        aarch64) arch=arm64 ;;
        *) ws_warn "no Go toolchain module for $(uname -m)"; return 1 ;;
    esac
    local module="golang.org/toolchain@v0.0.1-go$WS_GO_VERSION.linux-$arch" json dir
    json="$(cd /tmp && GOFLAGS=-mod=mod GOTOOLCHAIN=local "$boot" mod download -json "$module")"
    dir="$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' <<<"$json")"
    if [[ -z "$dir" || ! -d "$dir/bin" ]]; then
        ws_warn "could not download $module: $(sed -n 's/^\t"Error": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")"
        return 1
    fi
    rm -rf "$home.part" && mkdir -p "$home.part"
    cp -r "$dir/." "$home.part/"
    chmod -R u+w "$home.part"
    # Module zips keep no file modes; these are the programs of a Go distribution.
    chmod +x "$home.part"/bin/* "$home.part"/pkg/tool/*/*
    rm -rf "$home" && mv "$home.part" "$home"
    ws_go_usable "$home/bin/go" || { ws_warn "the fetched Go does not run: $home/bin/go"; return 1; }
    printf '%s\n' "$home/bin/go"
}
