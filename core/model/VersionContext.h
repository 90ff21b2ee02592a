#pragma once

#include <QMap>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QStringView>

namespace ws {

// The versions behind a session, as far as its sources know them: the kube-apiserver, the
// client-go its clients behave like, etcd, and the feature gates set on the apiserver. What an
// anomaly's explanation (kube/AnomalyExplainer) depends on. Any field may be unknown (empty):
// a live etcd has no apiserver, a cluster learns its version from discovery.
struct VersionContext {
    QString kubeApiserver; // "1.27.0", "v1.31.2" (as discovered)
    QString clientGo;      // the one client-go profile of every client: "0.18.3", "current"
    // Where the clients differ: client name -> client-go. A watcher belongs to a client when its
    // id is the name, or the name followed by "-<n>" (instance n).
    QMap<QString, QString> clientGoByClient;
    QString etcd; // "3.4.23"
    // Gates set explicitly on the kube-apiserver ("SeparateCacheWatchRPC" -> true); a gate not
    // here has its version's default.
    QMap<QString, bool> featureGates;

    bool isEmpty() const {
        return kubeApiserver.isEmpty() && clientGo.isEmpty() && clientGoByClient.isEmpty() &&
               etcd.isEmpty() && featureGates.isEmpty();
    }
    // The client-go of `watcher` (a watcher id): its client's, else the session's one.
    QString clientGoFor(const QString& watcher) const;
    // Takes from `other` what is unknown here (a session of several sources).
    void fillFrom(const VersionContext& other);
    // "kube-apiserver 1.27.0, client-go current, etcd 3.4.23, SeparateCacheWatchRPC=true".
    QString describe() const;
    // A connection's versions as sources name them (ConnectionInfo::versions): "etcd 3.4.23",
    // "kube-apiserver v1.31.2, client-go 0.27"; parts it does not know are ignored.
    static VersionContext fromConnectionVersions(QStringView versions);

    friend bool operator==(const VersionContext&, const VersionContext&) = default;
};

} // namespace ws

Q_DECLARE_METATYPE(ws::VersionContext)
