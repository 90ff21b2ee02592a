#pragma once

#include "sources/cluster/kubeconfig/ClusterTarget.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <optional>

namespace ws {

// What ClusterHttpTransport derives from a ClusterTarget once, before it sends anything: where
// requests go, how the server is trusted, the static client certificate, the proxy, the
// User-Agent. fromTarget() is where bad TLS material becomes one line, synchronously.
struct ClusterHttpSettings {
    QUrl server;      // the target's server: no user info, query, fragment or trailing slash
    QString endpoint; // "https://127.0.0.1:6443": what messages name
    bool https = false;
    QByteArray caPem;         // checked PEM certificates replacing the system roots; empty: those
    QByteArray clientCertPem; // the static client certificate (checked against its key), or empty
    QByteArray clientKeyPem;
    QString peerVerifyName;    // tls-server-name: SNI and the name the certificate must carry
    bool insecure = false;     // insecure-skip-tls-verify
    std::optional<QUrl> proxy; // the kubeconfig's proxy-url; nullopt: the environment's
    QByteArray userAgent;      // "watchscope/<version> (linux/amd64)"

    static std::optional<ClusterHttpSettings> fromTarget(const ClusterTarget& target,
                                                         const QString& version, QString* error);
    // What the user should know about how this target is reached (no secrets).
    static QStringList warningsFor(const ClusterTarget& target);
    static QByteArray userAgentFor(const QString& version);

    // `pathAndQuery` (already percent-encoded) below the server URL, whose own path (a prefix
    // such as Rancher's /k8s/clusters/c-1) is kept.
    QUrl urlFor(const QString& pathAndQuery) const;
};

} // namespace ws
