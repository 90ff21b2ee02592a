#pragma once

#include <QString>

namespace ws::series {

// SPEC §3 series names, in one place for every source. Per-apiserver series of the second and
// later apiservers carry the suffix ":apiserver-N"; the first one's are unsuffixed.

inline QString apiserverSuffix(int apiserver) {
    return apiserver == 0 ? QString() : QStringLiteral(":apiserver-%1").arg(apiserver);
}
// What an apiserver URL answered over a later HTTP/2 connection than its first, which may have
// reached another apiserver behind it: its /metrics series start anew under this suffix, after
// the apiserver's ("@connection-3": the transport's third connection).
inline QString connectionSuffix(int connection) {
    return QStringLiteral("@connection-%1").arg(connection);
}
inline QString headRv() {
    return QStringLiteral("head_rv");
}
inline QString cacheRv(const QString& suffix = {}) {
    return QStringLiteral("cache_rv") + suffix;
}
inline QString bufferUsed(const QString& suffix = {}) {
    return QStringLiteral("buffer_used") + suffix;
}
inline QString bufferCapacity(const QString& suffix = {}) {
    return QStringLiteral("buffer_capacity") + suffix;
}
inline QString bufferOldestRv(const QString& suffix = {}) {
    return QStringLiteral("buffer_oldest_rv") + suffix;
}
inline QString watcherRv(const QString& watcher) {
    return QStringLiteral("watcher_rv:") + watcher;
}
inline QString watcherLag(const QString& watcher) {
    return QStringLiteral("watcher_lag:") + watcher;
}
inline QString watcherLagSeconds(const QString& watcher) {
    return QStringLiteral("watcher_lag_seconds:") + watcher;
}

// The apiserver side of lists and watches (SPEC §3; simulated, served, audit logs): per resource,
// cumulative requests and the lists in flight with the bytes they hold; per apiserver its memory;
// per client the RV asked.
inline QString requestsList() {
    return QStringLiteral("requests_list");
}
inline QString requestsWatch() {
    return QStringLiteral("requests_watch");
}
inline QString listInflight() {
    return QStringLiteral("list_inflight");
}
inline QString listBytesInflight() {
    return QStringLiteral("list_bytes_inflight");
}
inline QString apiserverMemoryBytes(const QString& suffix = {}) {
    return QStringLiteral("apiserver_memory_bytes") + suffix;
}
inline QString requestedRv(const QString& client) {
    return QStringLiteral("requested_rv:") + client;
}

} // namespace ws::series
