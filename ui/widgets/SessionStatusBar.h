#pragma once

#include <QStatusBar>
#include <QTimer>

#include "engine/EngineUpdate.h"
#include "viewstate/ThrottledRefresh.h"

class QLabel;

namespace ws {

class SessionStatus;

// The window's status bar: the session's state on the left (passing messages are drawn over
// it), and on the right a recording note (while one is written), session time, events, rate and
// the anomaly count, and the memory the program uses. Shows a SessionStatus; holds no state of
// its own. The running figures (time, events, rate) change with every update: they are redrawn
// at most a few times a second, a text nobody can read at 30 Hz is not worth a repaint.
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
    // What the session dropped or held back because a consumer (this window, a file, the
    // engine itself) was slower than its producer: "dropped 1,234 capture frames"; hidden while
    // nothing was, the whole account in the tool tip.
    void setFlow(const FlowStats& flow);
    QString flowText() const;
    QString memoryText() const;
    QString figuresText() const; // time, events and rate as shown now

    static constexpr int kFiguresIntervalMs = 500;
    static constexpr int kMemoryIntervalMs = 2000;

private:
    void showFigures();
    void showMemory();

    QLabel* m_stateLabel;
    QLabel* m_recordLabel;
    QLabel* m_flowLabel;
    QLabel* m_timeLabel;
    QLabel* m_eventsLabel;
    QLabel* m_rateLabel;
    QLabel* m_anomalyCountLabel;
    QLabel* m_memoryLabel;
    QString m_time, m_events, m_rate; // the newest figures, shown at the next tick
    ThrottledRefresh m_figures;
    QTimer m_memoryTimer;
};

} // namespace ws
