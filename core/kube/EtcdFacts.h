#pragma once

#include "ReleaseVersion.h"
#include "Tri.h"

#include <QString>

namespace ws {

// What an etcd version does to watches (reference/etcd-watch.md).
class EtcdFacts {
public:
    EtcdFacts() = default; // version unknown
    explicit EtcdFacts(const QString& version);

    bool known() const { return m_known; }
    QString name() const; // "etcd 3.4.23"; "etcd" when unknown
    // Issue #17529 (a compacted unsynced watcher on a full shared stream skipped ahead silently)
    // fixed by PR #17555 in 3.4.31 and 3.5.13; 3.6 and later have it too.
    Tri hasStarvationFix() const;
    // RequestProgress answers that kube-apiserver trusts for consistent reads from its cache:
    // 3.4.31+ / 3.5.13+ / 3.6 (storage/feature/feature_support_checker.go since v1.31.0, PR
    // #124612; etcd issues #15220 and #17507).
    Tri supportsRequestWatchProgress() const;
    // --experimental-watch-progress-notify-interval: since 3.4.11.
    Tri hasProgressNotifyInterval() const;

private:
    Tri atLeast(int minor, int patch) const;

    bool m_known = false;
    ReleaseVersion m_version;
};

} // namespace ws
