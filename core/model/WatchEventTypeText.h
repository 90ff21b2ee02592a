#pragma once

#include "WatchEventType.h"

namespace ws {

// The wire's spelling of metav1.WatchEvent's type, for the writers of JSON and protobuf frames
// (no QString per event).
constexpr const char* watchEventTypeText(WatchEventType t) {
    switch (t) {
    case WatchEventType::Added:
        return "ADDED";
    case WatchEventType::Modified:
        return "MODIFIED";
    case WatchEventType::Deleted:
        return "DELETED";
    case WatchEventType::Bookmark:
        return "BOOKMARK";
    case WatchEventType::Error:
        return "ERROR";
    }
    return "MODIFIED";
}

} // namespace ws
