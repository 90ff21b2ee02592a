#pragma once

#include "ClusterTarget.h"

#include <QDateTime>
#include <QHash>
#include <QUrl>
#include <mutex>
#include <optional>

namespace ws {

// What an exec credential plugin returned (ExecCredential.status). Secrets.
struct ExecCredential {
    QString token;
    QByteArray clientCertificatePem;
    QByteArray clientKeyPem;
    QDateTime expiry; // invalid: no expiry (reused until invalidate())
};

// Runs a kubeconfig user's exec plugin (client.authentication.k8s.io v1 / v1beta1) as
// client-go does: KUBERNETES_EXEC_INFO in the environment, the ExecCredential on stdout, reused
// until it expires or the server answers 401 (invalidate()). Blocks while the plugin runs:
// called on a transport thread, never the GUI's. Thread-safe.
class ExecCredentialRunner {
public:
    static constexpr int kTimeoutMs = 60000;

    std::optional<ExecCredential> get(const ExecConfig& config, const QUrl& server, QString* error);
    void invalidate();
    int runs() const; // how many times a plugin ran (tests)

private:
    std::optional<ExecCredential> run(const ExecConfig& config, const QUrl& server, QString* error);

    mutable std::mutex m_mutex;
    QHash<QString, ExecCredential> m_cache; // by command + args
    int m_runs = 0;
};

} // namespace ws
