#pragma once

#include "ServerProfile.h"
#include "Tri.h"

#include <QMap>
#include <QString>

namespace ws {

// What a kube-apiserver version does on the watch paths (reference/kubernetes-watch.md), with
// the feature gates set in the session applied: ServerProfile's answers, and Unknown where a
// behaviour changed within a minor and the patch number is not given ("1.28"), or where the
// version is not known at all.
class ServerFacts {
public:
    ServerFacts() = default; // version unknown
    ServerFacts(const QString& version, const QMap<QString, bool>& gates);

    // The 504 "Too large resource version" body (reference §1): no causes (1.16), a cause with
    // only the message (1.17.0-1.18.5), a cause with reason ResourceVersionTooLarge (1.18.6+).
    enum class TooLargeBody { NoCauses, MessageCause, ReasonCause, Unknown };

    bool known() const { return m_known; }
    QString name() const; // "kube-apiserver 1.27.0"; "kube-apiserver" when unknown
    // Why a version that was given is not used ("1.14 is outside 1.16-1.36"); empty otherwise.
    QString note() const { return m_note; }
    int minor() const { return m_known ? m_profile.minor : -1; }
    bool patchKnown() const { return m_patchKnown; }
    const ServerProfile& profile() const { return m_profile; }
    // A gate the session sets explicitly (else the version's default applies).
    bool gateSet(const QString& gate) const { return m_gates.contains(gate); }

    Tri atLeast(int minor, int patch = 0) const;
    // The cacher re-watches from its last RV after an InternalError instead of relisting (1.25+).
    Tri retriesInternalErrors() const { return atLeast(25); }
    // Watches with resourceVersion="" served by etcd on the cacher's gRPC stream (1.27.0-1.27.12,
    // 1.28.0-1.28.8, 1.29.0-1.29.3; later behind WatchFromStorageWithoutResourceVersion).
    Tri rvEmptyWatchFromEtcd() const;
    Tri separateCacheWatchRpc() const;
    Tri watchList() const;
    Tri consistentListFromCache() const;
    // Gate ResilientWatchCacheInitialization (on from 1.31): 429 at once while a cache is not
    // ready, instead of blocking.
    Tri resilientWatchCacheInitialization() const;
    TooLargeBody tooLargeBody() const;
    QString tooOldReason() const { return m_known ? m_profile.tooOldReason() : QString(); }

private:
    Tri gate(const QString& name, bool versionDefault) const;

    bool m_known = false;
    bool m_patchKnown = false;
    QString m_note;
    ServerProfile m_profile;
    QMap<QString, bool> m_gates;
};

} // namespace ws
