// libFuzzer target for metav1.Status bodies (parseStatusJson): what a failed list, get or
// discovery request answers with, from an apiserver or from a proxy in front of it.
#include "FuzzExpect.h"
#include "sources/cluster/json/StatusJson.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    QString error;
    const auto status =
        ws::parseStatusJson(std::string_view(reinterpret_cast<const char*>(data), size), &error);
    if (!status) {
        ws::fuzz::expectOneLine(error);
        return 0;
    }
    // What the detectors are handed must be derivable from any Status that parsed.
    ws::fuzz::touch(status->toJson().constData(),
                    static_cast<std::size_t>(status->toJson().size()));
    (void)status->toObserved(1);
    return 0;
}
