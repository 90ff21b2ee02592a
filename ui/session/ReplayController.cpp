#include "ReplayController.h"

#include "SessionSwitcher.h"
#include "engine/Session.h"
#include "sources/capture/CaptureExtent.h"
#include "widgets/MainWindow.h"
#include "widgets/ReplayBar.h"

#include <QThread>

namespace ws {

ReplayController::ReplayController(MainWindow* window, SessionSwitcher* switcher)
    : QObject(switcher), m_window(window), m_switcher(switcher) {
    ReplayBar* bar = m_window->replayBar();
    connect(bar, &ReplayBar::pauseRequested, this, &ReplayController::setPaused);
    connect(bar, &ReplayBar::speedRequested, this, &ReplayController::setSpeed);
    connect(bar, &ReplayBar::seekRequested, this, &ReplayController::seek);
    connect(m_switcher, &SessionSwitcher::switched, this, [this] { onSwitched(); });
    onSwitched();
}

ReplayController::~ReplayController() {
    stopMeasuring(true);
}

double ReplayController::speed() const {
    return m_control ? m_control->state().speed : 0;
}

void ReplayController::onSwitched() {
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    const SourceSpec spec = m_switcher->currentSpec();
    m_session = m_switcher->session();
    m_position = 0;
    m_finished = false;
    if (!m_keepSeek)
        m_seekTarget = -1;
    if (spec.kind != SourceSpec::Kind::Capture || !spec.replayControl) {
        m_control.reset();
        m_path.clear();
        stopMeasuring();
        m_window->setReplayBarVisible(false);
        return;
    }
    m_control = spec.replayControl;
    const ReplayControl::State state = m_control->state();
    m_paused = state.paused;
    ReplayBar* bar = m_window->replayBar();
    bar->setPaused(m_paused);
    bar->setSpeed(state.speed);
    bar->setPosition(0);
    bar->showSeek(-1, -1, 0);
    if (spec.capture != m_path) {
        m_path = spec.capture;
        m_duration = -1;
        bar->setDuration(-1);
        measure(m_path);
    }
    m_window->setReplayBarVisible(true);
    // Queued as the window's own connection is: the update the window shows is the one seen.
    connect(m_session, &Session::updated, this, &ReplayController::onUpdate, Qt::QueuedConnection);
}

void ReplayController::onUpdate(const EngineUpdate& update) {
    if (sender() != m_session)
        return; // an update the previous session had queued
    m_position = update.now;
    ReplayBar* bar = m_window->replayBar();
    bar->setPosition(update.now);
    if (update.finished) {
        m_finished = true;
        m_paused = true;
        bar->setPaused(true); // Play starts it again from the beginning
    }
    if (m_seekTarget >= 0) {
        if (update.finished || update.now >= m_seekTarget || m_control->runUntilReached())
            endSeek();
        else
            bar->showSeek(m_seekFrom, m_seekTarget, update.now);
    }
}

void ReplayController::endSeek() {
    m_seekTarget = -1;
    m_window->replayBar()->showSeek(-1, -1, 0);
    emit seekFinished(m_position);
}

void ReplayController::setPaused(bool paused) {
    if (!m_control)
        return;
    if (!paused && m_finished) {
        seek(0); // played to the end: from the start again
        m_paused = false;
        m_control->setPaused(false);
        m_window->replayBar()->setPaused(false);
        return;
    }
    m_paused = paused;
    m_control->setPaused(paused);
    m_window->replayBar()->setPaused(paused);
}

void ReplayController::setSpeed(double speed) {
    if (!m_control)
        return;
    m_control->setSpeed(speed);
    m_window->replayBar()->setSpeed(speed);
}

void ReplayController::seek(TimeUs target) {
    if (!m_control)
        return;
    target = std::max<TimeUs>(0, target);
    if (m_duration > 0)
        target = std::min(target, m_duration);
    if (!m_finished && target >= m_position) {
        m_seekFrom = m_position;
        m_seekTarget = target;
        m_control->runUntil(target);
        m_window->replayBar()->showSeek(m_seekFrom, m_seekTarget, m_position);
        return;
    }
    // Back in time: the capture again from its start, as fast as possible up to the target.
    const ReplayControl::State state = m_control->state();
    SourceSpec spec = m_switcher->currentSpec();
    spec.replayControl = std::make_shared<ReplayControl>(state.speed, m_paused && !m_finished);
    spec.replayControl->runUntil(target);
    m_seekFrom = 0;
    m_seekTarget = target;
    m_keepSeek = true;
    const bool ok = m_switcher->switchToSource(spec);
    m_keepSeek = false;
    if (!ok)
        m_seekTarget = -1;
    else
        m_window->replayBar()->showSeek(m_seekFrom, m_seekTarget, 0);
}

void ReplayController::measure(const QString& path) {
    stopMeasuring();
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancelMeasure = cancel;
    const quint64 generation = ++m_measureGeneration;
    auto* thread = QThread::create([this, path, cancel, generation] {
        QString error;
        const auto extent = CaptureExtent::measure(path, &error, cancel.get());
        if (!extent || cancel->load())
            return;
        const TimeUs duration = extent->duration;
        QMetaObject::invokeMethod(
            this,
            [this, generation, duration] {
                if (generation != m_measureGeneration)
                    return;
                m_duration = duration;
                m_window->replayBar()->setDuration(duration);
                emit durationMeasured(duration);
            },
            Qt::QueuedConnection);
    });
    thread->setObjectName(QStringLiteral("watchscope-capture-measure"));
    m_measuring.push_back(thread);
    connect(thread, &QThread::finished, this, [this, thread] {
        m_measuring.removeOne(thread);
        thread->deleteLater();
    });
    thread->start();
}

void ReplayController::stopMeasuring(bool wait) {
    // A measurement of another capture is told to stop, not waited for (the window goes on);
    // only the destructor waits, the reader checking the flag at every record.
    if (m_cancelMeasure)
        m_cancelMeasure->store(true);
    if (!wait)
        return;
    for (QThread* t : std::exchange(m_measuring, {})) {
        t->wait();
        delete t;
    }
}

} // namespace ws
