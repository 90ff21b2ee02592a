// libFuzzer target for a Kubernetes list body as the cluster source reads it (ListStreamDecoder):
// chunks of sizes taken from the input (FuzzChunker), each item handed out with its metadata as
// soon as it is complete, the list's own members read at the end. Errors are sticky and one line.
#include "FuzzChunker.h"
#include "FuzzExpect.h"
#include "sources/cluster/json/ListStreamDecoder.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::uint64_t items = 0;
    // A small item limit lets the fuzzer reach the over-the-limit path too.
    ws::ListStreamDecoder decoder(
        [&](std::string_view item, const ws::ListItemMeta& meta) {
            ws::fuzz::touch(item);
            ws::fuzz::touch(meta.name);
            ++items;
        },
        4096);
    ws::fuzz::FuzzChunker chunks(data, size);
    bool ok = true;
    for (std::string_view chunk = chunks.next(); ok && !chunk.empty(); chunk = chunks.next())
        ok = decoder.feed(chunk);
    if (ok)
        ok = decoder.finish();
    if (!ok) {
        ws::fuzz::expectOneLine(decoder.error());
        if (decoder.feed("{}"))
            __builtin_trap(); // errors are sticky
    } else if (decoder.summary().itemCount != items) {
        __builtin_trap(); // every item counted was handed out
    }
    return 0;
}
