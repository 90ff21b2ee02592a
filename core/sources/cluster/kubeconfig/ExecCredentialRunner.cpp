#include "ExecCredentialRunner.h"

#include "ExecPluginConsole.h"
#include "LoginShellPath.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

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

QString duration(int ms) {
    if (ms >= 60000 && ms % 60000 == 0)
        return QStringLiteral("%1 min").arg(ms / 60000);
    return QStringLiteral("%1 s").arg(QString::number(ms / 1000.0));
}

bool sameCredential(const ExecCredential& a, const ExecCredential& b) {
    return a.token == b.token && a.clientCertificatePem == b.clientCertificatePem &&
           a.clientKeyPem == b.clientKeyPem;
}

// client-go waits for the expiry itself; a few seconds early keeps a request from leaving
// with a token that lapses on the way.
bool stillValid(const ExecCredential& c) {
    return !c.expiry.isValid() || c.expiry > QDateTime::currentDateTimeUtc().addSecs(10);
}

} // namespace

struct ExecCredentialRunner::State {
    struct Entry {
        std::optional<ExecCredential> credential;
        bool running = false;
        std::vector<Ready> waiting;
    };

    mutable std::mutex mutex; // everything below but `closing` and `runMutex`
    // By the whole exec config (+ cluster info). A std::map builds an entry in place: QHash's
    // operator[] moves a default one in, where GCC 12 under -fsanitize=thread sees the empty
    // optional's string read uninitialised (-Wmaybe-uninitialized).
    std::map<QByteArray, Entry> entries;
    struct Run {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    std::vector<Run> threads;
    int timeoutMs = kTimeoutMs;
    int interactiveTimeoutMs = kInteractiveTimeoutMs;
    int runs = 0;
    int running = 0;
    LoginShellPath* lookup = nullptr;
    std::atomic<bool> closing{false};
    // client-go runs one plugin at a time (it may be interactive): so do we, across users.
    std::mutex runMutex;

    // Runs the plugin; the caller holds runMutex.
    std::optional<ExecCredential> run(const ExecConfig& config, const QJsonObject& cluster,
                                      QString* error);
};

ExecCredentialRunner::ExecCredentialRunner() : m_state(std::make_shared<State>()) {}

ExecCredentialRunner::~ExecCredentialRunner() {
    m_state->closing = true;
    std::vector<State::Run> threads;
    {
        std::lock_guard lock(m_state->mutex);
        threads.swap(m_state->threads);
    }
    for (State::Run& r : threads)
        r.thread.join(); // a running plugin is killed within a fraction of a second
}

int ExecCredentialRunner::runs() const {
    std::lock_guard lock(m_state->mutex);
    return m_state->runs;
}

bool ExecCredentialRunner::busy() const {
    std::lock_guard lock(m_state->mutex);
    return m_state->running > 0;
}

void ExecCredentialRunner::setTimeoutMs(int ms) {
    std::lock_guard lock(m_state->mutex);
    m_state->timeoutMs = ms;
}

int ExecCredentialRunner::timeoutMs() const {
    std::lock_guard lock(m_state->mutex);
    return m_state->timeoutMs;
}

void ExecCredentialRunner::setInteractiveTimeoutMs(int ms) {
    std::lock_guard lock(m_state->mutex);
    m_state->interactiveTimeoutMs = ms;
}

void ExecCredentialRunner::setLoginShellPath(LoginShellPath* lookup) {
    std::lock_guard lock(m_state->mutex);
    m_state->lookup = lookup;
}

void ExecCredentialRunner::invalidate() {
    std::lock_guard lock(m_state->mutex);
    for (auto& [key, e] : m_state->entries)
        e.credential.reset();
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

QByteArray ExecCredentialRunner::execInfo(const ExecConfig& config, const QJsonObject& cluster,
                                          bool interactive) {
    QJsonObject spec{{QStringLiteral("interactive"), interactive}};
    if (config.provideClusterInfo && !cluster.isEmpty())
        spec.insert(QStringLiteral("cluster"), cluster);
    const QJsonObject info{{QStringLiteral("kind"), QStringLiteral("ExecCredential")},
                           {QStringLiteral("apiVersion"), config.apiVersion},
                           {QStringLiteral("spec"), spec}};
    return QJsonDocument(info).toJson(QJsonDocument::Compact);
}

namespace {

QJsonObject clusterFor(const ExecConfig& config, const ClusterTarget& target) {
    return config.provideClusterInfo ? ExecCredentialRunner::clusterInfo(config, target)
                                     : QJsonObject();
}

} // namespace

std::optional<ExecCredential>
ExecCredentialRunner::get(const ExecConfig& config, const ClusterTarget& target, QString* error) {
    const QJsonObject cluster = clusterFor(config, target);
    const QByteArray key = cacheKey(config, cluster);
    {
        std::lock_guard lock(m_state->mutex);
        const State::Entry& e = m_state->entries[key];
        if (e.credential && stillValid(*e.credential))
            return e.credential;
    }
    std::lock_guard serial(m_state->runMutex);
    {
        // Another caller may have run it while this one waited for its turn.
        std::lock_guard lock(m_state->mutex);
        const State::Entry& e = m_state->entries[key];
        if (e.credential && stillValid(*e.credential))
            return e.credential;
    }
    auto credential = m_state->run(config, cluster, error);
    std::lock_guard lock(m_state->mutex);
    m_state->entries[key].credential = credential;
    return credential;
}

std::optional<ExecCredential> ExecCredentialRunner::get(const ExecConfig& config,
                                                        const QUrl& server, QString* error) {
    ClusterTarget target;
    target.server = server;
    return get(config, target, error);
}

void ExecCredentialRunner::fetch(const ExecConfig& config, const ClusterTarget& target,
                                 Ready ready) {
    const QJsonObject cluster = clusterFor(config, target);
    const QByteArray key = cacheKey(config, cluster);
    std::unique_lock lock(m_state->mutex);
    State::Entry& e = m_state->entries[key];
    if (!e.running && e.credential && stillValid(*e.credential)) {
        const ExecCredential c = *e.credential;
        lock.unlock();
        ready(c, QString());
        return;
    }
    e.waiting.push_back(std::move(ready));
    if (e.running)
        return;
    e.running = true;
    ++m_state->running;
    // Finished threads are joined here, so they do not pile up over a long session.
    for (auto it = m_state->threads.begin(); it != m_state->threads.end();) {
        if (it->done->load()) {
            it->thread.join();
            it = m_state->threads.erase(it);
        } else {
            ++it;
        }
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread thread([state = m_state, config, cluster, key, done] {
        QString error;
        std::optional<ExecCredential> c;
        {
            std::lock_guard serial(state->runMutex);
            c = state->run(config, cluster, &error);
        }
        std::vector<Ready> waiting;
        {
            std::lock_guard lock(state->mutex);
            State::Entry& done = state->entries[key];
            done.running = false;
            done.credential = c;
            waiting.swap(done.waiting);
            --state->running;
        }
        for (Ready& r : waiting)
            r(c, error);
        done->store(true);
    });
    m_state->threads.push_back({std::move(thread), std::move(done)});
}

void ExecCredentialRunner::rejected(const ExecConfig& config, const ClusterTarget& target,
                                    const ExecCredential& rejected) {
    const QByteArray key = cacheKey(config, clusterFor(config, target));
    {
        std::lock_guard lock(m_state->mutex);
        State::Entry& e = m_state->entries[key];
        if (e.running || !e.credential || !sameCredential(*e.credential, rejected))
            return; // rotated already, or being rotated
        e.credential.reset();
    }
    // The refresh runs now, as client-go's does before it returns the 401; nobody waits for it
    // but the requests that come next.
    fetch(config, target, [](std::optional<ExecCredential>, QString) {});
}

std::optional<ExecCredential> ExecCredentialRunner::State::run(const ExecConfig& config,
                                                               const QJsonObject& cluster,
                                                               QString* error) {
    const QString plugin = QStringLiteral("exec plugin '%1'").arg(config.command);
    auto fail = [&](const QString& message) {
        *error = message;
        return std::nullopt;
    };
    const ExecPluginConsole console = ExecPluginConsole::current();
    int limitMs = 0;
    LoginShellPath* shellPath = nullptr;
    {
        std::lock_guard lock(mutex);
        const bool mayAsk = config.interactiveMode != QLatin1String("Never");
        limitMs = mayAsk ? interactiveTimeoutMs : timeoutMs;
        shellPath = lookup ? lookup : &LoginShellPath::shared();
    }
    // client-go's isInteractive: IfAvailable gets stdin when it is a terminal, Always needs one.
    const bool interactive = config.interactiveMode != QLatin1String("Never") && console.terminal;
    if (config.interactiveMode == QLatin1String("Always") && !console.terminal)
        return fail(QStringLiteral("%1 cannot support interactive mode: standard input is not a "
                                   "terminal (interactiveMode: Always; run watchscope-cli from a "
                                   "terminal)")
                        .arg(plugin));

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QString program = config.command;
    const bool isPath = config.command.contains(u'/');
    if (config.command.isEmpty() || (isPath && !QFileInfo::exists(config.command)))
        return fail(QStringLiteral("exec plugin: executable %1 not found%2")
                        .arg(config.command, hint(config.installHint)));
    if (!isPath) {
        const auto found = shellPath->find(config.command, env.value(QStringLiteral("PATH")));
        if (!found)
            return fail(QStringLiteral("exec plugin: executable %1 not found in PATH (nor in the "
                                       "login shell's)%2")
                            .arg(config.command, hint(config.installHint)));
        program = found->program;
        // Found where the login shell looks: the plugin's own helpers (gcloud, aws) live there.
        if (!found->loginShellDirs.isEmpty()) {
            QStringList path = env.value(QStringLiteral("PATH")).split(u':', Qt::SkipEmptyParts);
            path << found->loginShellDirs;
            env.insert(QStringLiteral("PATH"), path.join(u':'));
        }
    }
    for (const auto& [name, value] : config.env)
        env.insert(name, value);
    env.insert(QStringLiteral("KUBERNETES_EXEC_INFO"),
               QString::fromUtf8(execInfo(config, cluster, interactive)));
    QProcess p;
    p.setProcessEnvironment(env);
    if (interactive)
        p.setInputChannelMode(QProcess::ForwardedInputChannel);
    else
        p.setStandardInputFile(QProcess::nullDevice());
    p.setProgram(program);
    p.setArguments(config.args);
    {
        std::lock_guard lock(mutex);
        ++runs;
    }
    p.start();
    if (!p.waitForStarted(10000))
        return fail(QStringLiteral("%1 could not be started: %2%3")
                        .arg(plugin, p.errorString(), hint(config.installHint)));

    // stderr goes to the user as it comes (a device code must be read while the plugin waits);
    // its start is kept for the error line. stdout carries the token and is only parsed.
    QByteArray stderrStart;
    auto relay = [&](const QByteArray& text) {
        if (text.isEmpty())
            return;
        if (stderrStart.size() < 4096)
            stderrStart += text.left(4096 - stderrStart.size());
        if (console.stderrText)
            console.stderrText(config.command, text);
    };
    p.setReadChannel(QProcess::StandardError);
    QElapsedTimer clock;
    clock.start();
    while (p.state() != QProcess::NotRunning) {
        p.waitForReadyRead(100);
        relay(p.readAllStandardError());
        if (closing) {
            p.kill();
            p.waitForFinished(2000);
            return fail(QStringLiteral("%1 was stopped: the connection closed").arg(plugin));
        }
        if (clock.elapsed() > limitMs && p.state() != QProcess::NotRunning) {
            p.kill();
            p.waitForFinished(2000);
            return fail(
                QStringLiteral("%1 did not finish within %2%3")
                    .arg(plugin, duration(limitMs),
                         config.interactiveMode == QLatin1String("Never")
                             ? QString()
                             : QStringLiteral(", the time allowed for an interactive login")));
        }
    }
    relay(p.readAllStandardError());
    const QString stderrLine = QString::fromUtf8(stderrStart)
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
