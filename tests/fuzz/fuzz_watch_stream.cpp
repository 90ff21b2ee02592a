// libFuzzer target for a Kubernetes HTTP watch body as the cluster source reads it
// (ClusterReflector): the bytes arrive in chunks of sizes taken from the input (FuzzChunker),
// JsonObjectSplitter cuts them into event objects whatever the chunking, and each object goes to
// WatchEventDecoder. A framing error is sticky and one line; so is a bad event.
#include "FuzzChunker.h"
#include "FuzzExpect.h"
#include "sources/cluster/json/JsonObjectSplitter.h"
#include "sources/cluster/json/WatchEventDecoder.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static ws::WatchEventDecoder decoder;
    // A small object limit lets the fuzzer reach the over-the-limit path too.
    ws::JsonObjectSplitter splitter(4096);
    ws::fuzz::FuzzChunker chunks(data, size);
    ws::WatchEventJson event;
    const auto onObject = [&](std::string_view object) {
        // Balanced brackets, from '{' on: the scanner does not match their kinds ("{]" ends an
        // object, JsonValueScanner.h), the decoder rejects what it lets through.
        if (object.empty() || object.front() != '{' ||
            (object.back() != '}' && object.back() != ']'))
            __builtin_trap();
        QString error;
        if (decoder.decode(object, &event, &error))
            ws::fuzz::touch(event.object);
        else
            ws::fuzz::expectOneLine(error);
    };
    bool ok = true;
    for (std::string_view chunk = chunks.next(); ok && !chunk.empty(); chunk = chunks.next())
        ok = splitter.feed(chunk, onObject);
    if (ok)
        ok = splitter.finish();
    if (!ok) {
        ws::fuzz::expectOneLine(splitter.error());
        if (splitter.feed("{}", onObject))
            __builtin_trap(); // errors are sticky
    }
    return 0;
}
