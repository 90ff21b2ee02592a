// libFuzzer target for a Kubernetes protobuf list body (`application/vnd.kubernetes.protobuf`:
// the "k8s\0" runtime.Unknown envelope of a <Kind>List) as the cluster source reads it with
// --wire protobuf (ClusterReflector): the bytes arrive in chunks of sizes taken from the input
// (FuzzChunker) and ProtoListDecoder hands out each item as it completes. Items stay under the
// size limit, errors are one line and sticky, and what finish() accepts counts its items.
#include "FuzzChunker.h"
#include "FuzzExpect.h"
#include "sources/cluster/proto/ProtoListDecoder.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::uint64_t items = 0;
    // A small item limit lets the fuzzer reach the over-the-limit path too.
    constexpr std::size_t kMaxItem = 2048;
    ws::ProtoListDecoder decoder(
        [&](std::string_view item, const ws::ListItemMeta& meta) {
            if (item.size() > kMaxItem)
                __builtin_trap();
            ++items;
            ws::fuzz::touch(item);
            ws::fuzz::touch(meta.name);
            ws::fuzz::touch(meta.ns);
            ws::fuzz::touch(meta.uid);
        },
        kMaxItem);
    ws::fuzz::FuzzChunker chunks(data, size);
    bool ok = true;
    for (std::string_view chunk = chunks.next(); ok && !chunk.empty(); chunk = chunks.next())
        ok = decoder.feed(chunk);
    if (ok)
        ok = decoder.finish();
    if (decoder.summary().itemCount != items)
        __builtin_trap();
    if (!ok) {
        ws::fuzz::expectOneLine(decoder.error());
        if (decoder.feed(std::string_view("k8s\0", 4)) || decoder.finish())
            __builtin_trap(); // errors are sticky
    } else {
        ws::fuzz::touch(decoder.summary().kind);
        ws::fuzz::touch(decoder.summary().continueToken);
    }
    return 0;
}
