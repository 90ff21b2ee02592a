#pragma once

#include "kube/ApiStatus.h"
#include "model/ResourceVersionText.h"

#include <simdjson.h>

#include <QString>
#include <string>
#include <string_view>
#include <utility>

// The simdjson On-Demand readers the watch, list and Status decoders share. Internal to this
// folder: it includes simdjson, which the public headers keep out of their includers.
namespace ws::jsonread {

namespace od = simdjson::ondemand;

// "simdjson: <what went wrong>" for an error code.
QString describe(simdjson::error_code code);

// A string member, or null read as "". False (with *error naming `what`) for any other type.
bool readString(od::value& value, std::string_view what, std::string_view* out, QString* error);

// Where readObjectMeta stores what it finds; null pointers are not read.
struct ObjectMetaTarget {
    std::string* name = nullptr;
    std::string* ns = nullptr;
    std::string* uid = nullptr;
    ResourceVersion* resourceVersion = nullptr;
    bool* initialEventsEnd = nullptr; // annotation k8s.io/initial-events-end == "true"
};

// Reads an ObjectMeta ("metadata" of an object) into `target`; unknown members are skipped.
bool readObjectMeta(od::value& metadata, const ObjectMetaTarget& target, QString* error);

// Reads one member of a metav1.Status (code, reason, message, details) into *status; other
// members (kind, apiVersion, metadata, status) are skipped. The first cause is kept.
bool readStatusMember(std::string_view key, od::value& value, ApiStatus* status, QString* error);

} // namespace ws::jsonread
