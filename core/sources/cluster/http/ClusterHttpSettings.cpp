#include "ClusterHttpSettings.h"

#include "ClientCertificate.h"

#include <QSslCertificate>
#include <QSysInfo>
#include <algorithm>

namespace ws {

namespace {

// "user admin: " / "cluster kind: ": which kubeconfig entry a message is about.
QString about(const QString& kind, const QString& name) {
    return name.isEmpty() ? QString() : QStringLiteral("%1 %2: ").arg(kind, name);
}

QString endpointOf(const QUrl& url) {
    return url.toString(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery |
                        QUrl::RemoveFragment);
}

// Go's names for the platform, as kubectl's User-Agent has them.
QString goArchitecture() {
    const QString arch = QSysInfo::buildCpuArchitecture();
    if (arch == QLatin1String("x86_64"))
        return QStringLiteral("amd64");
    if (arch == QLatin1String("i386"))
        return QStringLiteral("386");
    if (arch == QLatin1String("power64"))
        return QStringLiteral("ppc64le");
    return arch; // arm64, arm, riscv64, s390x
}

} // namespace

QByteArray ClusterHttpSettings::userAgentFor(const QString& version) {
    return QStringLiteral("watchscope/%1 (%2/%3)")
        .arg(version.isEmpty() ? QStringLiteral("dev") : version, QSysInfo::kernelType(),
             goArchitecture())
        .toUtf8();
}

QStringList ClusterHttpSettings::warningsFor(const ClusterTarget& target) {
    QStringList out;
    const QString endpoint = endpointOf(target.server);
    const bool https = target.server.scheme() == QLatin1String("https");
    if (https && target.insecureSkipTlsVerify)
        out << QStringLiteral("TLS verification is off for %1: insecure-skip-tls-verify is set "
                              "in the kubeconfig")
                   .arg(endpoint);
    const bool credentials = !target.token.isEmpty() || !target.tokenFile.isEmpty() ||
                             !target.username.isEmpty() || !target.password.isEmpty() ||
                             target.exec.has_value();
    if (!https && credentials)
        out << QStringLiteral("credentials are sent unencrypted to %1 (the server URL is not "
                              "https)")
                   .arg(endpoint);
    return out;
}

std::optional<ClusterHttpSettings> ClusterHttpSettings::fromTarget(const ClusterTarget& target,
                                                                   const QString& version,
                                                                   QString* error) {
    const auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    ClusterHttpSettings s;
    const QString scheme = target.server.scheme().toLower();
    if (!target.server.isValid() || target.server.host().isEmpty() ||
        (scheme != QLatin1String("https") && scheme != QLatin1String("http")))
        return fail(QStringLiteral("%1the server %2 is not an http(s) URL")
                        .arg(about(QStringLiteral("cluster"), target.cluster),
                             target.server.toString(QUrl::RemoveUserInfo)));
    s.server = target.server.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery |
                                      QUrl::RemoveFragment | QUrl::StripTrailingSlash);
    s.endpoint = endpointOf(s.server);
    s.https = scheme == QLatin1String("https");
    s.userAgent = userAgentFor(version);
    s.insecure = target.insecureSkipTlsVerify;
    s.peerVerifyName = target.tlsServerName;

    const QString cluster = about(QStringLiteral("cluster"), target.cluster);
    const QString user = about(QStringLiteral("user"), target.user);
    if (!target.certificateAuthorityPem.isEmpty()) {
        // client-go refuses the combination rather than guess which one was meant.
        if (target.insecureSkipTlsVerify)
            return fail(QStringLiteral("%1a certificate authority and insecure-skip-tls-verify "
                                       "are both set: use one of them")
                            .arg(cluster));
        const QList<QSslCertificate> cas =
            QSslCertificate::fromData(target.certificateAuthorityPem, QSsl::Pem);
        const qsizetype blocks =
            target.certificateAuthorityPem.count("-----BEGIN CERTIFICATE-----");
        if (cas.isEmpty() || cas.size() != blocks ||
            std::any_of(cas.begin(), cas.end(), [](const auto& c) { return c.isNull(); }))
            return fail(QStringLiteral("%1the certificate authority is not valid PEM certificate "
                                       "data")
                            .arg(cluster));
        // Like client-go: the given CAs replace the system's roots.
        s.caPem = target.certificateAuthorityPem;
    }

    const bool hasCert = !target.clientCertificatePem.isEmpty();
    const bool hasKey = !target.clientKeyPem.isEmpty();
    if (hasCert != hasKey)
        return fail(
            hasCert ? QStringLiteral("%1a client certificate is set without its key").arg(user)
                    : QStringLiteral("%1a client key is set without its certificate").arg(user));
    if (hasCert) {
        QString why;
        const std::optional<ClientCertificate> client =
            ClientCertificate::fromPem(target.clientCertificatePem, target.clientKeyPem, &why);
        if (!client)
            return fail(user + why);
        s.clientCertPem = target.clientCertificatePem;
        s.clientKeyPem = target.clientKeyPem;
    }

    if (!target.proxyUrl.isEmpty()) {
        const QString proxyScheme = target.proxyUrl.scheme().toLower();
        if (proxyScheme != QLatin1String("http") && proxyScheme != QLatin1String("https") &&
            proxyScheme != QLatin1String("socks5") && proxyScheme != QLatin1String("socks5h"))
            return fail(QStringLiteral("%1the proxy %2 is not an http, https or socks5 URL")
                            .arg(cluster, target.proxyUrl.toString(QUrl::RemoveUserInfo)));
        if (target.proxyUrl.host().isEmpty())
            return fail(QStringLiteral("%1the proxy %2 names no host")
                            .arg(cluster, target.proxyUrl.toString(QUrl::RemoveUserInfo)));
        s.proxy = target.proxyUrl;
    }
    return s;
}

QUrl ClusterHttpSettings::urlFor(const QString& pathAndQuery) const {
    QString tail = pathAndQuery;
    if (!tail.startsWith(QLatin1Char('/')))
        tail.prepend(QLatin1Char('/'));
    // The server's path was stripped of its trailing slash: prefix + "/api/..." joins cleanly.
    return QUrl(server.toString(QUrl::FullyEncoded) + tail, QUrl::TolerantMode);
}

} // namespace ws
