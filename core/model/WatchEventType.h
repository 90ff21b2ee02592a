#pragma once

#include <QString>
#include <cstdint>

namespace ws {

// Event types as a Kubernetes client sees them. etcd events map onto them: a PUT whose
// create_revision equals its mod_revision is Added, other PUTs are Modified, DELETE is Deleted,
// and a progress notification is a Bookmark.
enum class WatchEventType : std::uint8_t { Added, Modified, Deleted, Bookmark, Error };

inline QString watchEventTypeName(WatchEventType t) {
    switch (t) {
    case WatchEventType::Added:
        return QStringLiteral("ADDED");
    case WatchEventType::Modified:
        return QStringLiteral("MODIFIED");
    case WatchEventType::Deleted:
        return QStringLiteral("DELETED");
    case WatchEventType::Bookmark:
        return QStringLiteral("BOOKMARK");
    case WatchEventType::Error:
        return QStringLiteral("ERROR");
    }
    return {};
}

} // namespace ws
