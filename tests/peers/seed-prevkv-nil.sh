#!/usr/bin/env bash
# The seed incident "PrevKV=nil event loss" on real components: kube-apiserver 1.28.0 (it serves
# watches with resourceVersion="" from etcd on its cacher's gRPC stream, as 1.27.0-1.28.8 do, PR
# #115096) over Debian's etcd 3.4.23 (issue #17529, fixed in 3.4.31 / 3.5.13).
#
#   tests/peers/seed-prevkv-nil.sh [SECONDS]        (default 60 s of writes; about 2 minutes)
#
# Apiserver A reaches etcd through a TCP proxy that stops reading from etcd from 10 s to 30 s (a
# congested connection); apiserver B, straight on etcd, takes the writes and compacts every 10 s.
# 20 RV="" watches on A share the configmaps cacher's stream. When the stream drains, etcd sends
# events whose previous revision was compacted without prev_kv, A's cacher retries from its last
# RV (PR #111387), etcd 3.4.23 moves the compacted watcher on silently, and A's watch cache keeps
# objects etcd deleted. Prints the comparison (tests/peers/seed/load.py); exits 0 when the loss is
# reproduced, 1 when the cacher relisted and is consistent, 3 when its cache never caught up
# (etcd's compacted watcher races its stream's buffer: each run is one draw). kube-apiserver 1.27.0
# itself cannot be built from the module proxy here (it refuses k8s.io/cluster-bootstrap v0.27.0),
# hence 1.28.0, the same code path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source-path=SCRIPTDIR/../../scripts/lib
source "$root/scripts/lib/common.sh"
# shellcheck source-path=SCRIPTDIR/../../scripts/lib
source "$root/scripts/lib/go.sh"
seconds="${1:-60}"
WS_GO="$(ws_go)" bash "$here/build.sh" kube-apiserver-1.28
apiserver="${WS_PEERS_BIN:-$root/build/peers/bin}/kube-apiserver-1.28"
command -v etcd >/dev/null || { echo "seed-prevkv-nil: no etcd on PATH (apt install etcd-server)" >&2; exit 2; }
work="$(mktemp -d -t ws-seed.XXXXXX)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
etcd_port=$(free_port); peer_port=$(free_port); proxy_port=$(free_port); a_port=$(free_port); b_port=$(free_port)
openssl genrsa -out "$work/sa.key" 2048 2>/dev/null
token="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
echo "$token,admin,admin-uid,\"system:masters\"" >"$work/tokens.csv"
etcd --data-dir "$work/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
    --advertise-client-urls "http://127.0.0.1:$etcd_port" --listen-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "default=http://127.0.0.1:$peer_port" >"$work/etcd.log" 2>&1 &
pids+=($!)
python3 "$here/seed/stall_proxy.py" "$proxy_port" "$etcd_port" "$work/STALL" >"$work/proxy.log" 2>&1 &
pids+=($!)
common=(--bind-address=127.0.0.1 --advertise-address=127.0.0.1 --token-auth-file="$work/tokens.csv"
    --authorization-mode=RBAC --service-account-issuer=https://127.0.0.1
    --service-account-key-file="$work/sa.key" --service-account-signing-key-file="$work/sa.key"
    --service-cluster-ip-range=10.0.0.0/24 --disable-admission-plugins=ServiceAccount
    --endpoint-reconciler-type=none --profiling=false)
"$apiserver" "${common[@]}" --etcd-servers="http://127.0.0.1:$proxy_port" --secure-port="$a_port" \
    --cert-dir="$work/a" --etcd-compaction-interval=0 >"$work/a.log" 2>&1 &
pids+=($!)
"$apiserver" "${common[@]}" --etcd-servers="http://127.0.0.1:$etcd_port" --secure-port="$b_port" \
    --cert-dir="$work/b" --etcd-compaction-interval=10s >"$work/b.log" 2>&1 &
pids+=($!)
for port in "$a_port" "$b_port"; do
    ready=""
    for _ in $(seq 1 120); do
        if curl -sk -H "Authorization: Bearer $token" "https://127.0.0.1:$port/readyz" | grep -qx ok; then ready=1; break; fi
        sleep 1
    done
    [[ -n "$ready" ]] || { echo "seed-prevkv-nil: kube-apiserver on $port not ready; log:" >&2; tail -5 "$work/a.log" "$work/b.log" >&2; exit 2; }
done
rc=0
python3 "$here/seed/load.py" "https://127.0.0.1:$a_port" "https://127.0.0.1:$b_port" "$token" "$work/STALL" "$seconds" || rc=$?
echo "PrevKv=nil errors in apiserver A's log: $(grep -c 'PrevKv=nil' "$work/a.log" || true); its cacher's last words:"
grep -E 'storage/cacher.go:/configmaps|cacher \(configmaps\)' "$work/a.log" | tail -n 4 | cut -c1-240 || true
exit $rc
