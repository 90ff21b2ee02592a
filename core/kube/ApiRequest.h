#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <optional>

namespace ws {

// A kube-apiserver request as its URL says it (k8s.io/apiserver RequestInfo): which resource,
// namespace and name, which verb, and the list/watch query parameters of reference §2.
struct ApiRequest {
    enum class Verb { Get, List, Watch, Create, Update, Delete, DeleteCollection, Patch };
    Verb verb = Verb::Get;
    QString group; // "" core
    QString version;
    QString resource; // plural
    QString subresource;
    QString ns;
    QString name;

    // Query.
    QString resourceVersion; // as sent ("" when absent)
    bool hasResourceVersion = false;
    QString resourceVersionMatch; // NotOlderThan, Exact
    std::int64_t limit = 0;
    QString continueToken;
    QString labelSelector;
    QString fieldSelector;
    std::int64_t timeoutSeconds = 0;
    bool allowWatchBookmarks = false;
    std::optional<bool> sendInitialEvents;

    // A /api/... or /apis/g/v/... resource URL; nullopt (and *error empty) when the path is not
    // a resource path at all, nullopt with *error for a bad query value.
    static std::optional<ApiRequest> parse(const QString& method, const QString& target,
                                           QString* error);
};

} // namespace ws
