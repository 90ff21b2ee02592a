#include "ExecCredentialRunner.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>

namespace ws {

namespace {

// client-go keys its authenticators on the whole exec config (and the cluster, when the plugin
// is given it): two users with the same plugin and arguments share one credential.
QByteArray cacheKey(const ExecConfig& c, const QJsonObject& cluster) {
    QJsonArray env;
    for (const auto& [name, value] : c.env)
        env.append(QJsonArray{name, value});
    const QJsonObject key{{QStringLiteral("apiVersion"), c.apiVersion},
                          {QStringLiteral("command"), c.command},
                          {QStringLiteral("args"), QJsonArray::fromStringList(c.args)},
                          {QStringLiteral("env"), env},
                          {QStringLiteral("installHint"), c.installHint},
                          {QStringLiteral("provideClusterInfo"), c.provideClusterInfo},
                          {QStringLiteral("interactiveMode"), c.interactiveMode},
                          {QStringLiteral("cluster"), cluster}};
    return QJsonDocument(key).toJson(QJsonDocument::Compact);
}

// An install hint is free text from the kubeconfig: keep it to one clean line (client-go strips
// ANSI escapes from it too).
QString hint(const QString& installHint) {
    static const QRegularExpression ansi(QStringLiteral("\x1b\\[[0-9;?]*[ -/]*[@-~]"));
    QString h = installHint;
    h.remove(ansi);
    for (QChar& c : h)
        if (c.category() == QChar::Other_Control)
            c = u' ';
    h = h.simplified();
    return h.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(h.left(300));
}

} // namespace

int ExecCredentialRunner::runs() const {
    std::lock_guard lock(m_mutex);
    return m_runs;
}

void ExecCredentialRunner::setTimeoutMs(int ms) {
    std::lock_guard lock(m_mutex);
    m_timeoutMs = ms;
}

int ExecCredentialRunner::timeoutMs() const {
    std::lock_guard lock(m_mutex);
    return m_timeoutMs;
}

void ExecCredentialRunner::invalidate() {
    std::lock_guard lock(m_mutex);
    m_cache.clear();
}

QJsonObject ExecCredentialRunner::clusterInfo(const ExecConfig& config,
                                              const ClusterTarget& target) {
    // client-go's ConfigToExecCluster, with the field names of ExecCredentialSpec.cluster.
    QJsonObject c{{QStringLiteral("server"), target.server.toString(QUrl::FullyEncoded)}};
    if (!target.tlsServerName.isEmpty())
        c.insert(QStringLiteral("tls-server-name"), target.tlsServerName);
    if (target.insecureSkipTlsVerify)
        c.insert(QStringLiteral("insecure-skip-tls-verify"), true);
    if (!target.certificateAuthorityPem.isEmpty())
        c.insert(QStringLiteral("certificate-authority-data"),
                 QString::fromLatin1(target.certificateAuthorityPem.toBase64()));
    if (!target.proxyUrl.isEmpty())
        c.insert(QStringLiteral("proxy-url"), target.proxyUrl.toString(QUrl::FullyEncoded));
    if (!config.clusterConfig.isEmpty())
        c.insert(QStringLiteral("config"), QJsonDocument::fromJson(config.clusterConfig).object());
    return c;
}

QByteArray ExecCredentialRunner::execInfo(const ExecConfig& config, const QJsonObject& cluster) {
    // Never interactive: WatchScope reads credentials on worker threads with no terminal.
    QJsonObject spec{{QStringLiteral("interactive"), false}};
    if (config.provideClusterInfo && !cluster.isEmpty())
        spec.insert(QStringLiteral("cluster"), cluster);
    const QJsonObject info{{QStringLiteral("kind"), QStringLiteral("ExecCredential")},
                           {QStringLiteral("apiVersion"), config.apiVersion},
                           {QStringLiteral("spec"), spec}};
    return QJsonDocument(info).toJson(QJsonDocument::Compact);
}

std::optional<ExecCredential>
ExecCredentialRunner::get(const ExecConfig& config, const ClusterTarget& target, QString* error) {
    return cached(config, config.provideClusterInfo ? clusterInfo(config, target) : QJsonObject(),
                  error);
}

std::optional<ExecCredential> ExecCredentialRunner::get(const ExecConfig& config,
                                                        const QUrl& server, QString* error) {
    ClusterTarget target;
    target.server = server;
    return get(config, target, error);
}

std::optional<ExecCredential>
ExecCredentialRunner::cached(const ExecConfig& config, const QJsonObject& cluster, QString* error) {
    std::lock_guard lock(m_mutex);
    const QByteArray key = cacheKey(config, cluster);
    const auto it = m_cache.constFind(key);
    // client-go waits for the expiry itself; a few seconds early keeps a request from leaving
    // with a token that lapses on the way.
    if (it != m_cache.constEnd() &&
        (!it->expiry.isValid() || it->expiry > QDateTime::currentDateTimeUtc().addSecs(10)))
        return *it;
    m_cache.remove(key);
    auto credential = run(config, cluster, error);
    if (credential)
        m_cache.insert(key, *credential);
    return credential;
}

std::optional<ExecCredential>
ExecCredentialRunner::run(const ExecConfig& config, const QJsonObject& cluster, QString* error) {
    const QString plugin = QStringLiteral("exec plugin '%1'").arg(config.command);
    auto fail = [&](const QString& message) {
        *error = message;
        return std::nullopt;
    };
    // client-go only runs an "Always" plugin on a terminal; there is none here.
    if (config.interactiveMode == QLatin1String("Always"))
        return fail(QStringLiteral("%1 needs a terminal (interactiveMode: Always), which "
                                   "WatchScope cannot give it")
                        .arg(plugin));
    const bool isPath = config.command.contains(u'/');
    if (config.command.isEmpty() ||
        (isPath ? !QFileInfo::exists(config.command)
                : QStandardPaths::findExecutable(config.command).isEmpty()))
        return fail(QStringLiteral("exec plugin: executable %1 not found%2%3")
                        .arg(config.command, isPath ? QString() : QStringLiteral(" in PATH"),
                             hint(config.installHint)));

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto& [name, value] : config.env)
        env.insert(name, value);
    env.insert(QStringLiteral("KUBERNETES_EXEC_INFO"),
               QString::fromUtf8(execInfo(config, cluster)));
    QProcess p;
    p.setProcessEnvironment(env);
    p.setStandardInputFile(QProcess::nullDevice());
    p.setProgram(config.command);
    p.setArguments(config.args);
    ++m_runs;
    p.start();
    if (!p.waitForStarted(10000))
        return fail(QStringLiteral("%1 could not be started: %2%3")
                        .arg(plugin, p.errorString(), hint(config.installHint)));
    if (!p.waitForFinished(m_timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        return fail(QStringLiteral("%1 did not finish within %2 s")
                        .arg(plugin, QString::number(m_timeoutMs / 1000.0)));
    }
    // stdout carries the token: only stderr may be shown.
    const QString stderrLine = QString::fromUtf8(p.readAllStandardError())
                                   .section(u'\n', 0, 0, QString::SectionSkipEmpty)
                                   .trimmed()
                                   .left(300);
    const QString said = stderrLine.isEmpty() ? QString() : QStringLiteral(": ") + stderrLine;
    if (p.exitStatus() != QProcess::NormalExit)
        return fail(QStringLiteral("%1 crashed%2").arg(plugin, said));
    if (p.exitCode() != 0)
        return fail(QStringLiteral("%1 failed (exit code %2)%3")
                        .arg(plugin, QString::number(p.exitCode()), said));

    return ExecCredential::fromPluginOutput(p.readAllStandardOutput(), config.apiVersion, plugin,
                                            error);
}

} // namespace ws
