#pragma once

#include "HttpCredentials.h"
#include "sources/cluster/kubeconfig/ClusterTarget.h"

#include <QDateTime>
#include <memory>
#include <optional>

namespace ws {

// A kubeconfig user's `auth-provider: oidc` as client-go 0.35's oidc plugin serves it: the
// id-token is the bearer token while its exp claim is more than 10 s away; after that the
// refresh-token is exchanged at the issuer's token endpoint (found through
// idp-issuer-url/.well-known/openid-configuration, trusting idp-certificate-authority when set),
// with the client id and secret as basic auth, then as form fields if that is refused, and the
// new id-token (and a rotated refresh-token) written back to the kubeconfig
// (OidcTokenPersister). The refresh runs on a thread of its own, one at a time. A 401 changes
// nothing: client-go's oidc plugin does not refresh on it.
class OidcCredentialSource : public CredentialSource {
public:
    explicit OidcCredentialSource(OidcConfig config);
    ~OidcCredentialSource() override; // waits for a refresh under way (bounded by its timeouts)

    void fetch(Ready ready) override;
    bool rejected(const HttpCredentials&) override { return false; }

    // The exp claim of a JWT; nullopt and one line when it is not a JWT with one.
    static std::optional<QDateTime> expiryOf(const QString& idToken, QString* error);
    static constexpr int kRequestTimeoutMs = 30000;

    struct State;

private:
    std::shared_ptr<State> m_state;
};

} // namespace ws
