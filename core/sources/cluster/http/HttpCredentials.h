#pragma once

#include <QByteArray>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

namespace ws {

// What a credential plugin (an exec plugin, an OIDC auth provider) handed back, as the transport
// uses it: a bearer token and/or a client certificate (PEM). Secrets: never logged, never in a
// frame.
struct HttpCredentials {
    QString bearerToken;
    QByteArray clientCertPem;
    QByteArray clientKeyPem;

    bool operator==(const HttpCredentials&) const = default;
};

// Where the transport gets such a credential. Getting one may take long (a plugin waiting for a
// browser login, a token refresh over the network), so it is never done on the transport's
// thread: fetch() answers through `ready`, at once when a credential is cached, else later from
// another thread. Errors are one line without secrets. Thread-safe.
class CredentialSource {
public:
    using Ready = std::function<void(std::optional<HttpCredentials> credentials, QString error)>;
    virtual ~CredentialSource() = default;
    virtual void fetch(Ready ready) = 0;
    // The server answered 401 to a request sent with `rejected`. client-go's exec authenticator
    // gets a new credential (unless another request already did) and returns the 401: the next
    // fetch() waits for it. True when the requests that follow go with another credential, false
    // when the source keeps the one it has (an OIDC id-token is refreshed on expiry only).
    virtual bool rejected(const HttpCredentials& rejected) = 0;
};

using CredentialProvider = std::shared_ptr<CredentialSource>;

} // namespace ws
