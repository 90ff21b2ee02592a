#pragma once

#include "kube/ApiStatus.h"
#include "kube/KeyValue.h"
#include "kube/ResourceCatalog.h"
#include "model/WatchEventType.h"

#include <string>

namespace ws {

// The JSON a kube-apiserver writes for objects, lists and watch events, built from the stored
// values (etcd's bytes, resourceVersion empty) without parsing them: the RV is spliced in.
namespace ObjectJson {

// The stored object with metadata.resourceVersion set to rv.
void appendObject(std::string& out, const KeyValue& kv, ResourceVersion rv);
// {"type":"ADDED","object":{...}}\n
void appendEvent(std::string& out, WatchEventType type, const KeyValue& kv, ResourceVersion rv);
// A BOOKMARK: an empty object of the watched kind with only its resourceVersion (and the
// k8s.io/initial-events-end annotation that ends a watch-list's initial events), and
// "creationTimestamp":null up to 1.33 (ServerProfile::writesZeroCreationTimestamp).
void appendBookmark(std::string& out, const ResourceInfo& info, ResourceVersion rv,
                    bool initialEventsEnd, bool zeroCreationTimestamp);
void appendError(std::string& out, const ApiStatus& status);
// {"kind":"ConfigMapList","apiVersion":"v1","metadata":{...},"items":[ — items follow, then
// closeList().
void openList(std::string& out, const ResourceInfo& info, ResourceVersion rv,
              const std::string& continueToken, std::int64_t remaining);
void closeList(std::string& out);
// The Status a successful DELETE returns for resources without graceful deletion.
std::string deleteSuccess(const ResourceInfo& info, const QString& name, const QString& uid);

} // namespace ObjectJson

} // namespace ws
