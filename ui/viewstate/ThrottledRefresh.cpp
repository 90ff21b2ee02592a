#include "ThrottledRefresh.h"

#include <utility>

namespace ws {

ThrottledRefresh::ThrottledRefresh(int intervalMs, std::function<void()> refresh, QObject* parent)
    : QObject(parent), m_refresh(std::move(refresh)) {
    m_timer.setSingleShot(true);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ThrottledRefresh::intervalEnded);
}

void ThrottledRefresh::request() {
    if (m_timer.isActive()) {
        m_pending = true;
        return;
    }
    run();
}

void ThrottledRefresh::run() {
    m_pending = false;
    ++m_refreshes;
    m_refresh();
    m_timer.start();
}

void ThrottledRefresh::intervalEnded() {
    if (m_pending)
        run(); // starts another interval, so a steady stream refreshes once per interval
}

} // namespace ws
