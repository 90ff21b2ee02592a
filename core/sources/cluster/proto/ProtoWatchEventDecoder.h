#pragma once

#include "sources/cluster/json/WatchEventJson.h"

#include <QString>
#include <optional>
#include <string_view>

namespace ws {

// Decodes one frame of a protobuf watch body (as LengthDelimitedSplitter cuts them) into the
// WatchEventJson the JSON decoder fills, so that the reflector does not care which it got.
//
// The layout, from apimachinery v1.31 (pkg/apis/meta/v1/generated.proto,
// pkg/runtime/generated.proto, pkg/runtime/serializer/protobuf/protobuf.go, and the
// apiserver's endpoints/handlers/watch.go, which encodes the event with the stream serializer
// and the object with the full one):
//   frame   = metav1.WatchEvent, no prefix (RawSerializer): type=1 string, object=2 RawExtension
//   object  = RawExtension{raw=1 bytes}; raw = "k8s\0" + runtime.Unknown
//   Unknown = typeMeta=1 {apiVersion=1, kind=2}, raw=2 (the typed object), contentEncoding=3,
//             contentType=4
//   typed   = field 1 ObjectMeta {name=1, namespace=3, uid=5, resourceVersion=6 (string),
//             annotations=12 (map entries key=1 value=2)} for every built-in kind but Status:
//   Status  = metadata=1 ListMeta{continue=3}, status=2, message=3, reason=4,
//             details=5 {name=1, group=2, kind=3, causes=4 {reason=1, message=2, field=3},
//             retryAfterSeconds=5, uid=6}, code=6 (varint)
// A BOOKMARK is an object of the watched kind with only resourceVersion (and the
// k8s.io/initial-events-end annotation ending a watch-list's initial events); an ERROR a Status.
// Unknown fields are skipped at every level, as protobuf readers do.
//
// Never throws, never crashes: malformed input is a false return with one line in *error.
class ProtoWatchEventDecoder {
public:
    // Fills *out (cleared first). out->object is the embedded object as received ("k8s\0" +
    // runtime.Unknown, what the Events tab shows of an etcd value too), pointing into `frame`:
    // valid as long as the frame's bytes are.
    bool decode(std::string_view frame, WatchEventJson* out, QString* error);

    // A whole response body that is a metav1.Status in the envelope ("k8s\0" + runtime.Unknown
    // of kind Status): what an apiserver answers a protobuf request's error with.
    static std::optional<ApiStatus> decodeStatus(std::string_view body, QString* error);
};

} // namespace ws
