#pragma once

#include <QObject>
#include <QPointer>

class QTimer;

namespace ws {

class MainWindow;
class Session;
class SessionSwitcher;

// The window's Record button: writes the session shown to a .wscap capture from the moment it
// is pressed until it is pressed again (or the session ends or is switched away), while the
// view goes on. The session thread writes (Session::startCapture); the status bar shows the
// file's size as it grows ("Recording foo.wscap: 1.2 MB"). Whether a session can be captured is
// the engine's answer (Session::captureRefusal), shown in one line as `record --out` says it.
class SessionRecording : public QObject {
    Q_OBJECT
public:
    SessionRecording(MainWindow* window, SessionSwitcher* switcher);

    bool recording() const { return !m_path.isEmpty(); }
    QString path() const { return m_path; }

public slots:
    // Starts writing to `path` (what the file dialog does once a file is chosen).
    void start(const QString& path);
    void stop();

signals:
    void started(const QString& path);
    void failed(const QString& message);
    void stopped(const QString& path, qint64 bytes);

private:
    void chooseFile();
    void showSize();
    void setChecked(bool checked);

    MainWindow* m_window;
    SessionSwitcher* m_switcher;
    QPointer<Session> m_session; // the one being recorded (it may have been switched away)
    QString m_path;              // being written; empty: not recording
    QString m_pending;           // asked for, not confirmed yet
    QTimer* m_timer;
};

} // namespace ws
