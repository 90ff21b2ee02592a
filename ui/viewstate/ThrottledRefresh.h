#pragma once

#include <QObject>
#include <QTimer>

#include <functional>

namespace ws {

// Runs a refresh at most once per interval: the first request runs it at once, requests during
// the interval that follows run it once when the interval ends (so the last state always shows).
// For the texts and gauges that change with every engine update (30 a second) but are read by
// eye: a repaint of a status bar or a progress bar also repaints what lies beneath it.
class ThrottledRefresh : public QObject {
    Q_OBJECT
public:
    ThrottledRefresh(int intervalMs, std::function<void()> refresh, QObject* parent = nullptr);

    void request();
    bool pending() const { return m_pending; }
    int refreshes() const { return m_refreshes; }

private:
    void run();
    void intervalEnded();

    std::function<void()> m_refresh;
    QTimer m_timer;
    bool m_pending = false;
    int m_refreshes = 0;
};

} // namespace ws
