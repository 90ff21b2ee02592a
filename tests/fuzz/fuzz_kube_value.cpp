// libFuzzer target for what etcd stores under /registry/ as KubernetesKeyDecoder reads it
// (reference/etcd-watch.md §4): the value as the `k8s\0` protobuf envelope (runtime.Unknown with
// ObjectMeta), JSON (custom resources) or `k8s:enc:`, and the same bytes as a key. One decoder is
// reused across inputs, as EtcdEventProcessor reuses its own; an undecodable value says why.
#include "FuzzExpect.h"
#include "kube/KubernetesKeyDecoder.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static ws::KubernetesKeyDecoder decoder;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    ws::DecodedValue value;
    if (!decoder.decodeValue(bytes, &value))
        ws::fuzz::expectOneLine(QString::fromStdString(value.error));
    const ws::DecodedKey key = decoder.decodeKey(bytes);
    if (key.kubernetes && key.resource.empty())
        __builtin_trap(); // an object key always names its resource
    ws::fuzz::touch(ws::KubernetesKeyDecoder::hexPrefix(bytes));
    return 0;
}
