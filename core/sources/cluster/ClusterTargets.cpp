#include "ClusterTargets.h"

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

CredentialProvider credentialProviderFor(const ClusterTarget& target,
                                         std::shared_ptr<ExecCredentialRunner> runner) {
    if (!target.exec || !runner)
        return {};
    return [runner = std::move(runner), config = *target.exec,
            target](bool refresh, QString* why) -> std::optional<HttpCredentials> {
        if (refresh)
            runner->invalidate();
        // The whole cluster (CA, server name, proxy) for provideClusterInfo plugins.
        auto c = runner->get(config, target, why);
        if (!c)
            return std::nullopt;
        return HttpCredentials{c->token, c->clientCertificatePem, c->clientKeyPem};
    };
}

} // namespace ws
