#include "SessionRecording.h"

#include "RecentCaptures.h"
#include "SessionSwitcher.h"
#include "engine/Session.h"
#include "widgets/MainWindow.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QTimer>

namespace ws {

namespace {
QString size(qint64 bytes) {
    return QLocale::system().formattedDataSize(std::max<qint64>(0, bytes), 1,
                                               QLocale::DataSizeSIFormat);
}
} // namespace

SessionRecording::SessionRecording(MainWindow* window, SessionSwitcher* switcher)
    : QObject(switcher), m_window(window), m_switcher(switcher), m_timer(new QTimer(this)) {
    m_timer->setInterval(250);
    connect(m_timer, &QTimer::timeout, this, &SessionRecording::showSize);
    QAction* record = m_window->recordAction();
    record->setEnabled(true);
    // triggered, not toggled: only a click (or the shortcut) asks; setChecked() says what is.
    connect(record, &QAction::triggered, this, [this](bool checked) {
        if (checked)
            chooseFile();
        else
            stop();
    });
}

void SessionRecording::setChecked(bool checked) {
    QAction* record = m_window->recordAction();
    record->setChecked(checked);
    record->setText(checked ? tr("Stop &Recording") : tr("&Record…"));
}

void SessionRecording::chooseFile() {
    // A session that cannot be captured says so at once, before a file is asked for.
    if (Session* s = m_switcher->session(); s && !s->midwayCaptureRefusal().isEmpty()) {
        start(QString());
        return;
    }
    auto* dialog = new QFileDialog(m_window, tr("Record to capture file"), QDir::currentPath(),
                                   tr("WatchScope captures (*.wscap)"));
    dialog->setObjectName(QStringLiteral("recordFileDialog"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("wscap"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &SessionRecording::start);
    connect(dialog, &QFileDialog::rejected, this, [this] {
        if (!recording() && m_pending.isEmpty())
            setChecked(false);
    });
    dialog->open();
}

void SessionRecording::start(const QString& path) {
    Session* session = m_switcher->session();
    const auto fail = [this](const QString& message) {
        setChecked(recording());
        m_window->showError(tr("Not recording"), message);
        emit failed(message);
    };
    if (recording() || !m_pending.isEmpty())
        return fail(tr("already recording to %1").arg(m_path.isEmpty() ? m_pending : m_path));
    if (!session)
        return fail(tr("there is no session to record"));
    if (const QString refusal = session->midwayCaptureRefusal(); !refusal.isEmpty())
        return fail(refusal);
    m_session = session;
    m_pending = path;
    setChecked(true);
    connect(session, &Session::captureStarted, this, [this](const QString& p) {
        m_path = std::exchange(m_pending, QString());
        Q_ASSERT(m_path == p);
        showSize();
        m_timer->start();
        emit started(p);
    });
    connect(session, &Session::captureFailed, this, [this, session](const QString& message) {
        disconnect(session, nullptr, this, nullptr);
        m_pending.clear();
        m_session.clear();
        setChecked(false);
        m_window->showError(tr("Not recording"), message);
        emit failed(message);
    });
    connect(session, &Session::captureStopped, this,
            [this, session](const QString& p, qint64 bytes, const QString& error) {
                disconnect(session, nullptr, this, nullptr);
                m_timer->stop();
                m_path.clear();
                m_pending.clear();
                m_session.clear();
                setChecked(false);
                m_window->setRecordingStatus(QString());
                RecentCaptures().remember(p);
                m_switcher->refreshRecentCaptures();
                if (!error.isEmpty())
                    m_window->showError(tr("Recording incomplete"), error);
                else
                    m_window->showStatusMessage(
                        tr("Recorded %1: %2").arg(QFileInfo(p).fileName(), size(bytes)), 15000);
                emit stopped(p, bytes);
            });
    session->startCapture(path);
}

void SessionRecording::stop() {
    if (m_session)
        m_session->stopCapture();
    else
        setChecked(false);
}

void SessionRecording::showSize() {
    if (!m_session || m_path.isEmpty())
        return;
    const qint64 bytes = m_session->captureBytes();
    m_window->setRecordingStatus(
        tr("Recording %1: %2").arg(QFileInfo(m_path).fileName(), size(std::max<qint64>(0, bytes))));
}

} // namespace ws
