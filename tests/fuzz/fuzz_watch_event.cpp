// libFuzzer target for one Kubernetes watch event object as JSON ({"type":...,"object":{...}},
// WatchEventDecoder): the object JSON of every ADDED/MODIFIED/DELETED/BOOKMARK and the Status of
// an ERROR. One decoder is reused across inputs, as a reflector reuses its own.
#include "FuzzExpect.h"
#include "sources/cluster/json/WatchEventDecoder.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static ws::WatchEventDecoder decoder;
    ws::WatchEventJson event;
    QString error;
    if (!decoder.decode(std::string_view(reinterpret_cast<const char*>(data), size), &event,
                        &error)) {
        ws::fuzz::expectOneLine(error);
        return 0;
    }
    ws::fuzz::touch(event.object);
    return 0;
}
