// libFuzzer target for a Kubernetes protobuf watch body (`application/vnd.kubernetes.protobuf;
// stream=watch`) as the cluster source reads it with --wire protobuf (ClusterReflector): the
// bytes arrive in chunks of sizes taken from the input (FuzzChunker), LengthDelimitedSplitter
// cuts them into frames whatever the chunking, and each frame goes to ProtoWatchEventDecoder,
// which reads the WatchEvent, the "k8s\0" runtime.Unknown envelope inside it and the object's
// ObjectMeta or Status. The same bytes whole also go to decodeStatus (a protobuf error body). A
// framing error is sticky and one line; so is a bad event.
#include "FuzzChunker.h"
#include "FuzzExpect.h"
#include "sources/cluster/proto/LengthDelimitedSplitter.h"
#include "sources/cluster/proto/ProtoWatchEventDecoder.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static ws::ProtoWatchEventDecoder decoder;
    // A small frame limit lets the fuzzer reach the over-the-limit path too.
    ws::LengthDelimitedSplitter splitter(4096);
    ws::fuzz::FuzzChunker chunks(data, size);
    ws::WatchEventJson event;
    std::uint64_t frames = 0;
    const auto onFrame = [&](std::string_view frame) {
        ++frames;
        if (frame.size() > 4096)
            __builtin_trap(); // the limit holds
        QString error;
        if (decoder.decode(frame, &event, &error)) {
            // The object view lies inside the frame: ASan sees it if it does not.
            ws::fuzz::touch(event.object);
            if (event.object.empty() || event.object.data() < frame.data() ||
                event.object.data() + event.object.size() > frame.data() + frame.size())
                __builtin_trap();
        } else {
            ws::fuzz::expectOneLine(error);
        }
    };
    bool ok = true;
    for (std::string_view chunk = chunks.next(); ok && !chunk.empty(); chunk = chunks.next())
        ok = splitter.feed(chunk, onFrame);
    if (ok)
        ok = splitter.finish();
    if (splitter.frameCount() != frames)
        __builtin_trap();
    if (!ok) {
        ws::fuzz::expectOneLine(splitter.error());
        if (splitter.feed(std::string_view("\0\0\0\0", 4), onFrame))
            __builtin_trap(); // errors are sticky
    }
    QString error;
    if (!ws::ProtoWatchEventDecoder::decodeStatus(chunks.body(), &error))
        ws::fuzz::expectOneLine(error);
    return 0;
}
