#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ws {

// What an audit event's requestURI says of a list or watch: the resource of its path and the
// query parameters of reference §2. The same answers as ApiRequest::parse("GET", uri), without
// a QUrl and its QStrings for the URIs kube-apiserver logs (a plain path, a query of printable
// ASCII with %XX escapes); any other URI (an escaped path, a fragment, bytes beyond ASCII) goes
// through ApiRequest::parse itself. Reused request after request: its strings keep their memory.
struct AuditUri {
    std::string group;    // of the path ("" core)
    std::string resource; // of the path (plural)
    std::string labelSelector;
    std::string fieldSelector;
    std::string resourceVersion; // as sent, decoded ("" when absent)
    bool continued = false;      // a continue token: a later page of a list
    std::int64_t limit = 0;
    std::int64_t timeoutSeconds = 0;
    bool allowWatchBookmarks = false;
    std::optional<bool> sendInitialEvents;

    // False with *error empty when the path is not a resource path, with *error for a bad
    // query value (ApiRequest::parse's words).
    bool parse(std::string_view uri, QString* error);
    // resourceVersion as a number: 0 for "", "0" and what is not a number.
    ResourceVersion requestedRv() const;

private:
    enum class Simple { Done, Failed, TooHard };
    Simple parseSimple(std::string_view uri, QString* error);
    bool parseWithQUrl(std::string_view uri, QString* error);
    void reset();
};

} // namespace ws
