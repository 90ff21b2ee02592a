#include "WhatIfRun.h"

#include "scenario/ScenarioLoader.h"
#include "sources/capture/CaptureReplay.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QThread>

namespace ws {

namespace {
constexpr qint64 kProgressEveryMs = 100;
} // namespace

WhatIfRun::WhatIfRun(QObject* parent) : QObject(parent) {}

WhatIfRun::~WhatIfRun() {
    stop(true);
}

void WhatIfRun::cancel() {
    stop(false);
}

void WhatIfRun::stop(bool wait) {
    ++m_generation;
    if (m_cancelled)
        m_cancelled->store(true);
    m_cancelled.reset();
    QThread* thread = m_thread.data();
    if (!thread)
        return;
    m_thread.clear();
    // A cancelled run stops at its next update (milliseconds); preparing a large capture is not
    // interrupted. Cancel does not wait for that (the thread deletes itself when done); going
    // away does, a while, so no comparison outlives the window that asked for it.
    if (wait && thread->wait(10000)) {
        delete thread;
        return;
    }
    thread->setParent(nullptr);
}

void WhatIfRun::start(const SourceSpec& spec) {
    cancel();
    m_result.reset();
    const quint64 generation = ++m_generation;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    m_cancelled = cancelled;
    QPointer<WhatIfRun> self(this);
    // Everything the worker reads is its own copy; it reports through queued calls that check,
    // on this object's thread, that they are still wanted.
    const auto post = [self, generation](auto&& f) {
        QCoreApplication* app = QCoreApplication::instance();
        if (!app)
            return; // a run left behind at exit
        QMetaObject::invokeMethod(
            app,
            [self, generation, f = std::move(f)] {
                if (self && self->m_generation == generation)
                    f(self.data());
            },
            Qt::QueuedConnection);
    };
    QThread* thread = QThread::create([spec, cancelled, post] {
        QElapsedTimer sinceProgress;
        sinceProgress.start();
        int lastRun = -1;
        QString error;
        auto result = WhatIfComparison::run(
            spec, {},
            [&](int run, TimeUs now) {
                if (run == lastRun && sinceProgress.elapsed() < kProgressEveryMs)
                    return;
                lastRun = run;
                sinceProgress.restart();
                post([run, now](WhatIfRun* r) { emit r->progress(run, now); });
            },
            cancelled.get(), &error);
        if (cancelled->load())
            return;
        if (!result) {
            post([error](WhatIfRun* r) {
                r->m_thread.clear();
                emit r->failed(error);
            });
            return;
        }
        auto shared = std::make_shared<WhatIfResult>(std::move(*result));
        post([shared](WhatIfRun* r) {
            r->m_thread.clear();
            r->m_result = std::move(*shared);
            emit r->finished();
        });
    });
    thread->setObjectName(QStringLiteral("watchscope-whatif"));
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->setParent(this); // waited for if this goes first (see the destructor)
    m_thread = thread;
    thread->start();
}

std::optional<ScenarioOverrides> WhatIfRun::recordedVersions(const QString& capturePath) {
    QString error;
    const auto header = CaptureReplay::header(capturePath, &error);
    if (!header || header->sourceKind != QLatin1String("simulator"))
        return std::nullopt;
    const auto scenario = ScenarioLoader::parse(
        header->replay.value(QLatin1String("scenarioYaml")).toString().toUtf8(), capturePath,
        &error);
    if (!scenario)
        return std::nullopt;
    ScenarioOverrides recorded;
    recorded.serverVersion = scenario->server.version;
    QStringList clients;
    for (const ClientSpec& c : scenario->clients)
        if (!clients.contains(c.clientGo))
            clients << c.clientGo;
    recorded.clientGo = clients.join(QLatin1Char('/'));
    const QMap<QString, bool>& gates = scenario->server.featureGates;
    for (auto it = gates.constBegin(); it != gates.constEnd(); ++it)
        recorded.featureGates << QStringLiteral("%1=%2").arg(
            it.key(), it.value() ? QLatin1String("true") : QLatin1String("false"));
    return recorded;
}

} // namespace ws
