#pragma once

#include <QByteArray>
#include <QString>
#include <functional>
#include <optional>

namespace ws {

// What an exec credential plugin handed back, as the transport uses it: a bearer token and/or a
// client certificate (PEM). Secrets: never logged, never in a frame.
struct HttpCredentials {
    QString bearerToken;
    QByteArray clientCertPem;
    QByteArray clientKeyPem;
};

// Called on the transport's thread before each request that needs it (it may block, e.g. to run
// the plugin; it should cache until expiry). `refresh` is true after the server answered 401 with
// the previous credential: drop any cached one and get a new one. On failure: nullopt and one
// line without secrets in *error.
using CredentialProvider =
    std::function<std::optional<HttpCredentials>(bool refresh, QString* error)>;

} // namespace ws
