#include "ExecCredentialRunner.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>

namespace ws {

namespace {
QString cacheKey(const ExecConfig& c) {
    return c.command + QChar(0) + c.args.join(QChar(0));
}
} // namespace

int ExecCredentialRunner::runs() const {
    std::lock_guard lock(m_mutex);
    return m_runs;
}

void ExecCredentialRunner::invalidate() {
    std::lock_guard lock(m_mutex);
    m_cache.clear();
}

std::optional<ExecCredential> ExecCredentialRunner::get(const ExecConfig& config,
                                                        const QUrl& server, QString* error) {
    std::lock_guard lock(m_mutex);
    const QString key = cacheKey(config);
    const auto it = m_cache.constFind(key);
    // client-go refreshes a little before the expiry, not after a failed request.
    if (it != m_cache.constEnd() &&
        (!it->expiry.isValid() || it->expiry > QDateTime::currentDateTimeUtc().addSecs(10)))
        return *it;
    auto credential = run(config, server, error);
    if (credential)
        m_cache.insert(key, *credential);
    return credential;
}

std::optional<ExecCredential> ExecCredentialRunner::run(const ExecConfig& config,
                                                        const QUrl& server, QString* error) {
    ++m_runs;
    QJsonObject spec{{QStringLiteral("interactive"), false}};
    if (config.provideClusterInfo)
        spec.insert(QStringLiteral("cluster"),
                    QJsonObject{{QStringLiteral("server"), server.toString()}});
    const QJsonObject info{{QStringLiteral("kind"), QStringLiteral("ExecCredential")},
                           {QStringLiteral("apiVersion"), config.apiVersion},
                           {QStringLiteral("spec"), spec}};
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto& [name, value] : config.env)
        env.insert(name, value);
    env.insert(QStringLiteral("KUBERNETES_EXEC_INFO"),
               QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProgram(config.command);
    p.setArguments(config.args);
    p.start();
    if (!p.waitForStarted(10000)) {
        *error = QStringLiteral("exec plugin '%1' could not be started: %2%3")
                     .arg(config.command, p.errorString(),
                          config.installHint.isEmpty()
                              ? QString()
                              : QStringLiteral(" (%1)").arg(config.installHint.simplified()));
        return std::nullopt;
    }
    if (!p.waitForFinished(kTimeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        *error = QStringLiteral("exec plugin '%1' did not finish within %2 s")
                     .arg(config.command)
                     .arg(kTimeoutMs / 1000);
        return std::nullopt;
    }
    // stdout carries the token: only stderr may be shown.
    const QString stderrLine = QString::fromUtf8(p.readAllStandardError())
                                   .section(u'\n', 0, 0, QString::SectionSkipEmpty)
                                   .trimmed();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QStringLiteral("exec plugin '%1' failed (exit code %2)%3")
                     .arg(config.command)
                     .arg(p.exitCode())
                     .arg(stderrLine.isEmpty() ? QString()
                                               : QStringLiteral(": ") + stderrLine.left(300));
        return std::nullopt;
    }
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(p.readAllStandardOutput(), &perr);
    const QJsonObject o = doc.object();
    if (!doc.isObject() ||
        o.value(QLatin1String("kind")).toString() != QLatin1String("ExecCredential")) {
        *error =
            QStringLiteral("exec plugin '%1' did not print an ExecCredential").arg(config.command);
        return std::nullopt;
    }
    if (o.value(QLatin1String("apiVersion")).toString() != config.apiVersion) {
        *error = QStringLiteral("exec plugin '%1' answered %2, the kubeconfig asks for %3")
                     .arg(config.command, o.value(QLatin1String("apiVersion")).toString(),
                          config.apiVersion);
        return std::nullopt;
    }
    const QJsonObject status = o.value(QLatin1String("status")).toObject();
    ExecCredential c;
    c.token = status.value(QLatin1String("token")).toString();
    c.clientCertificatePem =
        status.value(QLatin1String("clientCertificateData")).toString().toUtf8();
    c.clientKeyPem = status.value(QLatin1String("clientKeyData")).toString().toUtf8();
    const QString expiry = status.value(QLatin1String("expirationTimestamp")).toString();
    if (!expiry.isEmpty()) {
        c.expiry = QDateTime::fromString(expiry, Qt::ISODate);
        if (!c.expiry.isValid()) {
            *error =
                QStringLiteral("exec plugin '%1': invalid expirationTimestamp").arg(config.command);
            return std::nullopt;
        }
    }
    if (c.token.isEmpty() && (c.clientCertificatePem.isEmpty() || c.clientKeyPem.isEmpty())) {
        *error = QStringLiteral("exec plugin '%1' returned neither a token nor a client "
                                "certificate and key")
                     .arg(config.command);
        return std::nullopt;
    }
    return c;
}

} // namespace ws
