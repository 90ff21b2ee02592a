// libFuzzer target for etcdserverpb.RangeResponse (one page of an etcd list, WireRangeResponse):
// any bytes parse or are refused with one line; the key and value views of a parsed page must
// stay valid after the page is moved, as EtcdWatchStream moves it into its frame.
#include "FuzzExpect.h"
#include "sources/etcd/EtcdWireRangeResponse.h"

#include <string>
#include <utility>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ws::WireRangeResponse page;
    if (!page.parse(std::string(reinterpret_cast<const char*>(data), size))) {
        ws::fuzz::expectOneLine(QString::fromStdString(page.error()));
        return 0;
    }
    const ws::WireRangeResponse moved = std::move(page);
    for (const ws::WireKeyValue& kv : moved.kvs) {
        ws::fuzz::touch(kv.key);
        ws::fuzz::touch(kv.value);
    }
    return 0;
}
