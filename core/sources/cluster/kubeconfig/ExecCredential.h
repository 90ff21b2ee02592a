#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <optional>

namespace ws {

// What an exec credential plugin returned (ExecCredential.status). Secrets.
struct ExecCredential {
    QString token;
    QByteArray clientCertificatePem;
    QByteArray clientKeyPem;
    QDateTime expiry; // invalid: no expiry (reused until invalidate())

    // A plugin's stdout read as client-go reads it (client-go
    // plugin/pkg/client/auth/exec/exec.go, refreshCredsLocked): an ExecCredential of the
    // kubeconfig's apiVersion with a token or a certificate and key, expirationTimestamp in RFC
    // 3339. Nothing, with one line in *error naming `plugin` and never the output (it holds the
    // token), for anything else.
    static std::optional<ExecCredential> fromPluginOutput(const QByteArray& output,
                                                          const QString& apiVersion,
                                                          const QString& plugin, QString* error);
};

} // namespace ws
