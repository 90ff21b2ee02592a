#include "WatcherState.h"

namespace ws {

QString watcherStateName(WatcherState state) {
    switch (state) {
    case WatcherState::Listing:
        return QStringLiteral("listing");
    case WatcherState::Syncing:
        return QStringLiteral("syncing");
    case WatcherState::Live:
        return QStringLiteral("live");
    case WatcherState::Lagging:
        return QStringLiteral("lagging");
    case WatcherState::Stuck:
        return QStringLiteral("stuck");
    case WatcherState::Relisting:
        return QStringLiteral("relisting");
    case WatcherState::Backoff:
        return QStringLiteral("backoff");
    case WatcherState::Terminated:
        return QStringLiteral("terminated");
    }
    return {};
}

bool parseWatcherState(const QString& name, WatcherState* state) {
    for (int i = 0; i < kWatcherStateCount; ++i) {
        const auto s = static_cast<WatcherState>(i);
        if (watcherStateName(s) == name) {
            *state = s;
            return true;
        }
    }
    return false;
}

bool watcherStateIsTrouble(WatcherState state) {
    switch (state) {
    case WatcherState::Lagging:
    case WatcherState::Stuck:
    case WatcherState::Relisting:
    case WatcherState::Backoff:
    case WatcherState::Terminated:
        return true;
    case WatcherState::Listing:
    case WatcherState::Syncing:
    case WatcherState::Live:
        break;
    }
    return false;
}

} // namespace ws
