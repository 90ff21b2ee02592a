#include "ClusterTargets.h"

#include "http/OidcCredentialSource.h"
#include "kubeconfig/ExecCredentialRunner.h"
#include "kubeconfig/Kubeconfig.h"

namespace ws {

std::optional<std::vector<ClusterTarget>> resolveClusterTargets(const SourceSpec& spec,
                                                                QString* error) {
    std::optional<ClusterTarget> base;
    // --server with --context alone reads the default kubeconfig, as kubectl does.
    if (spec.kind == SourceSpec::Kind::Kubeconfig || !spec.kubeconfig.isEmpty() ||
        !spec.context.isEmpty()) {
        auto config = Kubeconfig::load(spec.kubeconfig, error);
        if (!config)
            return std::nullopt;
        base = config->target(spec.context, error);
        if (!base)
            return std::nullopt;
    }
    std::vector<ClusterTarget> targets;
    if (spec.kind != SourceSpec::Kind::Server) {
        targets.push_back(*base);
        return targets;
    }
    for (const QString& s : spec.servers) {
        const QUrl url(s.contains(QLatin1String("://")) ? s : QStringLiteral("https://") + s);
        if (!url.isValid() || url.host().isEmpty() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))) {
            // Without its user info: a password in the URL is not to be printed.
            *error = QStringLiteral("--server: '%1' is not an http(s) URL")
                         .arg(url.userInfo().isEmpty() && !s.contains(u'@')
                                  ? s
                                  : url.toString(QUrl::RemoveUserInfo));
            return std::nullopt;
        }
        ClusterTarget t = base.value_or(ClusterTarget{});
        t.server = url;
        targets.push_back(std::move(t));
    }
    if (targets.empty()) {
        *error = QStringLiteral("--server URL is required");
        return std::nullopt;
    }
    return targets;
}

namespace {

// A kubeconfig user's exec plugin as the transport's credential source.
class ExecCredentialSource : public CredentialSource {
public:
    ExecCredentialSource(std::shared_ptr<ExecCredentialRunner> runner, ClusterTarget target)
        : m_runner(std::move(runner)), m_target(std::move(target)) {}

    void fetch(Ready ready) override {
        m_runner->fetch(*m_target.exec, m_target,
                        [ready = std::move(ready)](std::optional<ExecCredential> c, QString error) {
                            if (!c)
                                return ready(std::nullopt, error);
                            ready(
                                HttpCredentials{c->token, c->clientCertificatePem, c->clientKeyPem},
                                QString());
                        });
    }
    bool rejected(const HttpCredentials& rejected) override {
        ExecCredential c;
        c.token = rejected.bearerToken;
        c.clientCertificatePem = rejected.clientCertPem;
        c.clientKeyPem = rejected.clientKeyPem;
        // Replaced now, or already by another request's 401: the next fetch() has a new one.
        m_runner->rejected(*m_target.exec, m_target, c);
        return true;
    }

private:
    std::shared_ptr<ExecCredentialRunner> m_runner;
    ClusterTarget m_target; // the whole cluster (CA, server name, proxy) for provideClusterInfo
};

} // namespace

CredentialProvider credentialProviderFor(const ClusterTarget& target,
                                         std::shared_ptr<ExecCredentialRunner> runner) {
    if (target.oidc)
        return std::make_shared<OidcCredentialSource>(*target.oidc);
    if (!target.execPluginApplies() || !runner)
        return {};
    return std::make_shared<ExecCredentialSource>(std::move(runner), target);
}

} // namespace ws
