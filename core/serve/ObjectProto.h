#pragma once

#include "kube/ApiStatus.h"
#include "kube/KeyValue.h"
#include "kube/ResourceCatalog.h"
#include "model/WatchEventType.h"

#include <string>
#include <vector>

namespace ws {

// The protobuf a kube-apiserver writes for watch events (`application/vnd.kubernetes.protobuf;
// stream=watch`), built from the stored JSON values, for the kinds whose every field it can
// write: ConfigMap (ObjectMeta, data, binaryData, immutable). Members a ConfigMap does not have
// (the simulator's spec) are left out, as the apiserver's typed decode of a stored object drops
// them. Layout and field numbers: sources/cluster/proto/ProtoWatchEventDecoder.h, and for what
// only this side writes, apimachinery v1.31 pkg/apis/meta/v1/generated.proto (ObjectMeta
// generateName=2, selfLink=4, generation=7, creationTimestamp=8, deletionTimestamp=9,
// deletionGracePeriodSeconds=10, labels=11, ownerReferences=13, finalizers=14,
// managedFields=17; Time seconds=1 nanos=2) and api/core/v1/generated.proto (ConfigMap
// metadata=1, data=2, binaryData=3, immutable=4).
namespace ObjectProto {

inline constexpr const char* kContentType = "application/vnd.kubernetes.protobuf";
inline constexpr const char* kStreamContentType =
    "application/vnd.kubernetes.protobuf;stream=watch";

// Whether objects of this resource are served as protobuf when asked.
bool encodes(const ResourceInfo& info);

// The stored object as "k8s\0" + runtime.Unknown, metadata.resourceVersion set to rv. False,
// with one line in *error, when the stored JSON is not an object of the kind.
bool appendObject(std::string& out, const ResourceInfo& info, const KeyValue& kv,
                  ResourceVersion rv, std::string* error);
// A list page: "k8s\0" + runtime.Unknown of <Kind>List {metadata=1 ListMeta{resourceVersion=2,
// continue=3, remainingItemCount=4}, items=2}, each item at its own modRev. False, with one line
// in *error naming the item, when an item cannot be encoded.
bool appendList(std::string& out, const ResourceInfo& info, ResourceVersion rv,
                const std::string& continueToken, std::int64_t remaining,
                const std::vector<KeyValuePtr>& items, std::string* error);
// One length-delimited frame (4-byte big-endian length + metav1.WatchEvent) per call.
bool appendEvent(std::string& out, WatchEventType type, const ResourceInfo& info,
                 const KeyValue& kv, ResourceVersion rv, std::string* error);
// A BOOKMARK: an empty object of the watched kind with only its resourceVersion (and the
// k8s.io/initial-events-end annotation that ends a watch-list's initial events).
void appendBookmark(std::string& out, const ResourceInfo& info, ResourceVersion rv,
                    bool initialEventsEnd);
void appendError(std::string& out, const ApiStatus& status);

} // namespace ObjectProto

} // namespace ws
