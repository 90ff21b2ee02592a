#pragma once

#include "ApiStatus.h"

#include <QString>
#include <optional>

namespace ws {

struct ServerProfile;

// The list options of a watch (watch=1&...) or list request as sent on the wire.
struct WatchQuery {
    QString resourceVersion;               // "" when absent
    QString resourceVersionMatch;          // "" when absent
    std::optional<bool> sendInitialEvents; // absent, true or false (the server sees a *bool)
    bool hasContinue = false;

    // What client-go's watch-list sends (reflector.watchList, 0.27+): sendInitialEvents=true,
    // resourceVersionMatch=NotOlderThan, resourceVersion "" before the first sync.
    static WatchQuery watchList(const QString& resourceVersion);
};

// The 422 Invalid a kube-apiserver of this version answers a watch request with (handlers'
// ValidateListOptions -> errors.NewInvalid(ListOptions.meta.k8s.io)), or nullopt when it accepts
// the request:
// - 1.16-1.18 know neither resourceVersionMatch nor sendInitialEvents: both are ignored, the
//   request is served as a plain watch.
// - 1.19-1.26 know resourceVersionMatch (not sendInitialEvents): any resourceVersionMatch on a
//   watch is forbidden ("resourceVersionMatch is forbidden for watch", plus "... unless
//   resourceVersion is provided" when it is empty).
// - 1.27+: sendInitialEvents (set at all, even false) is forbidden unless the WatchList gate is
//   on, and needs resourceVersionMatch=NotOlderThan; resourceVersionMatch needs
//   sendInitialEvents.
std::optional<ApiStatus> invalidWatchOptions(const ServerProfile& profile, const WatchQuery& query);

// The 422 Invalid a kube-apiserver of this version answers a LIST with (ValidateListOptions, not
// a watch), or nullopt: from 1.19 a resourceVersionMatch needs a resourceVersion, no continue, a
// known value, and Exact not at "0"; from 1.27 a list may not set sendInitialEvents.
std::optional<ApiStatus> invalidListOptions(const ServerProfile& profile, const WatchQuery& query);

// The handlers' defaulting before that validation (meta/internalversion SetListOptionsDefaults,
// PR #115402, 1.27+): with the WatchList gate on, a watch at resourceVersion "" or "0" that names
// neither sendInitialEvents nor resourceVersionMatch is served as a watch-list
// (sendInitialEvents=true, resourceVersionMatch=NotOlderThan). With the gate off, unchanged.
WatchQuery defaultWatchQuery(const ServerProfile& profile, WatchQuery query);

} // namespace ws
