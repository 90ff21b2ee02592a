#pragma once

#include <QStatusBar>

class QLabel;

namespace ws {

class SessionStatus;

// The window's status bar: the session's state on the left (passing messages are drawn over
// it), and on the right a recording note (while one is written), session time, events, rate and
// the anomaly count. Shows a SessionStatus; holds no state of its own.
class SessionStatusBar : public QStatusBar {
    Q_OBJECT
public:
    explicit SessionStatusBar(QWidget* parent = nullptr);

    void showStatus(const SessionStatus& status);
    void setAnomalyCount(const QString& text, const QString& toolTip);
    QString anomalyCountText() const;
    QString stateText() const;
    // "Recording foo.wscap: 1.2 MB"; empty hides it.
    void setRecordingStatus(const QString& text);
    QString recordingStatus() const;

private:
    QLabel* m_stateLabel;
    QLabel* m_recordLabel;
    QLabel* m_timeLabel;
    QLabel* m_eventsLabel;
    QLabel* m_rateLabel;
    QLabel* m_anomalyCountLabel;
};

} // namespace ws
