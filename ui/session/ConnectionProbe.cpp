#include "ConnectionProbe.h"

#include <QCoreApplication>
#include <QThread>

namespace ws {

ConnectionProbe::ConnectionProbe(QObject* parent) : QObject(parent) {
    qRegisterMetaType<ws::ClusterProbeResult>();
}

ConnectionProbe::~ConnectionProbe() {
    cancel();
}

void ConnectionProbe::cancel() {
    ++m_generation;
    if (m_cancelled)
        m_cancelled->store(true);
    m_cancelled.reset();
    if (QThread* thread = m_thread.data()) {
        m_thread.clear();
        // A cancelled probe ends within ~10 ms unless an exec plugin is running; do not let a
        // slow one hold the window, and do not leave a running QThread to be destroyed.
        if (!thread->wait(3000))
            thread->setParent(nullptr); // it deletes itself when it ends
    }
}

void ConnectionProbe::start(const SourceSpec& spec) {
    cancel();
    const quint64 generation = ++m_generation;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    m_cancelled = cancelled;
    const QString version = QCoreApplication::applicationVersion();
    QPointer<ConnectionProbe> self(this);
    QThread* thread = QThread::create([self, spec, cancelled, generation, version] {
        ClusterProbeResult result = ClusterProbe::run(spec, *cancelled, version);
        if (cancelled->load())
            return;
        // Queued to the probe's thread; dropped there if it was cancelled or restarted since.
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, generation, result = std::move(result)] {
                if (self && self->m_generation == generation) {
                    self->m_thread.clear();
                    emit self->finished(result);
                }
            },
            Qt::QueuedConnection);
    });
    thread->setObjectName(QStringLiteral("connection-probe"));
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    m_thread = thread;
    thread->start();
}

} // namespace ws
