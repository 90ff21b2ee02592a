// libFuzzer target for etcdserverpb.WatchResponse as received from etcd (WireWatchResponse,
// reference/etcd-watch.md §1): the input is cut into pieces (FuzzChunker), each parsed as one
// response and the good ones merged as EtcdFrameDecoder merges fragments; every key and value
// view of the merged events must still point at live bytes, and a refusal must say why.
#include "FuzzChunker.h"
#include "FuzzExpect.h"
#include "sources/etcd/EtcdWireWatchResponse.h"

#include <string>
#include <utility>

namespace {

void touchKv(const ws::WireKeyValue& kv) {
    ws::fuzz::touch(kv.key);
    ws::fuzz::touch(kv.value);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ws::fuzz::FuzzChunker chunks(data, size);
    ws::WireWatchResponse merged;
    for (std::string_view piece = chunks.next(); !piece.empty(); piece = chunks.next()) {
        ws::WireWatchResponse response;
        if (!response.parse(std::string(piece))) {
            ws::fuzz::expectOneLine(QString::fromStdString(response.error()));
            continue;
        }
        if (response.bytes() != piece)
            __builtin_trap(); // bytes() is what was received
        merged.append(std::move(response));
    }
    ws::WireWatchResponse moved = std::move(merged);
    for (const ws::WireEvent& ev : moved.events) {
        touchKv(ev.kv);
        if (ev.hasPrevKv)
            touchKv(ev.prevKv);
    }
    return 0;
}
