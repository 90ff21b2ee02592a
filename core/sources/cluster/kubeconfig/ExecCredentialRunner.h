#pragma once

#include "ClusterTarget.h"
#include "ExecCredential.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QUrl>
#include <mutex>
#include <optional>

namespace ws {

// Runs a kubeconfig user's exec plugin (client.authentication.k8s.io v1 / v1beta1) as
// client-go does: the process environment plus the plugin's env plus KUBERNETES_EXEC_INFO, the
// ExecCredential read from stdout, reused until it expires or the server answers 401
// (invalidate()). Never interactive: stdin is /dev/null. Blocks while the plugin runs (at most
// timeoutMs()): call it on a transport thread, never the GUI's. Thread-safe; one plugin runs at
// a time. Errors are one line and never carry the plugin's stdout (it holds the token).
class ExecCredentialRunner {
public:
    static constexpr int kTimeoutMs = 60000;

    // provideClusterInfo hands the plugin the target's server, tls-server-name,
    // insecure-skip-tls-verify, CA, proxy-url and the cluster's exec extension.
    std::optional<ExecCredential> get(const ExecConfig& config, const ClusterTarget& target,
                                      QString* error);
    // The same with only the server known (spec.cluster carries just the server).
    std::optional<ExecCredential> get(const ExecConfig& config, const QUrl& server, QString* error);
    void invalidate(); // forget every cached credential: the next get() runs the plugin
    void setTimeoutMs(int ms);
    int timeoutMs() const;
    int runs() const; // how many times a plugin was started (tests)

    // The KUBERNETES_EXEC_INFO a plugin gets (compact JSON); `cluster` empty unless
    // provideClusterInfo.
    static QByteArray execInfo(const ExecConfig& config, const QJsonObject& cluster);
    static QJsonObject clusterInfo(const ExecConfig& config, const ClusterTarget& target);

private:
    std::optional<ExecCredential> cached(const ExecConfig& config, const QJsonObject& cluster,
                                         QString* error);
    std::optional<ExecCredential> run(const ExecConfig& config, const QJsonObject& cluster,
                                      QString* error);

    mutable std::mutex m_mutex;
    QHash<QByteArray, ExecCredential> m_cache; // by the whole exec config (+ cluster info)
    int m_timeoutMs = kTimeoutMs;
    int m_runs = 0;
};

} // namespace ws
