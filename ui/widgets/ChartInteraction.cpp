#include "ChartInteraction.h"

#include "LiveChartView.h"

#include <QApplication>
#include <QChart>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <cmath>

namespace ws {

QList<ChartInteraction::KeyHelp> ChartInteraction::keyHelp() {
    return {{tr("Chart: zoom in / out (focused chart)"), tr("+, -, mouse wheel")},
            {tr("Chart: pan (focused chart)"), tr("Left, Right (Shift: half a span), drag")},
            {tr("Chart: show the oldest data kept"), tr("Home")},
            {tr("Chart: follow live"), tr("End")}};
}

ChartInteraction::ChartInteraction(LiveChartView* chart)
    : QObject(chart), m_chart(chart), m_viewport(chart->viewport()) {
    chart->installEventFilter(this);
    m_viewport->installEventFilter(this);
}

double ChartInteraction::msPerPixel() const {
    const double width = std::max(1.0, m_chart->chart()->plotArea().width());
    return m_chart->spanSeconds() * 1000.0 / width;
}

void ChartInteraction::zoom(double factor, double anchorMs) {
    const double span = m_chart->spanSeconds();
    const double next = std::clamp(span * factor, 1.0, 24 * 3600.0);
    if (next == span)
        return;
    if (m_chart->followsLive()) {
        m_chart->setSpanSeconds(next); // the right edge stays on the newest data
        return;
    }
    // The moment under the anchor stays where it is on screen.
    const double centre = m_chart->viewCentreMs();
    const double scale = next / span;
    m_chart->setSpanSeconds(next);
    m_chart->navigateTo(anchorMs + (centre - anchorMs) * scale);
}

void ChartInteraction::zoomAtCentre(double factor) {
    zoom(factor, m_chart->viewCentreMs());
}

void ChartInteraction::panBy(double ms) {
    if (ms == 0)
        return;
    const double centre = m_chart->viewCentreMs() + ms;
    const double half = m_chart->spanSeconds() * 500.0;
    // Moved up to the newest data: follow it again rather than park past it.
    if (ms > 0 && centre + half >= m_chart->liveEdgeMs()) {
        followLive();
        return;
    }
    if (ms < 0) {
        // Not past the oldest data kept: there is nothing to see before it.
        const double earliest = m_chart->dataStartMs() + half;
        if (m_chart->viewCentreMs() <= earliest)
            return;
        m_chart->navigateTo(std::max(centre, earliest));
        return;
    }
    m_chart->navigateTo(centre);
}

void ChartInteraction::showStart() {
    m_chart->navigateTo(m_chart->dataStartMs() + m_chart->spanSeconds() * 500.0);
}

void ChartInteraction::followLive() {
    m_chart->setFollowLive(true);
}

bool ChartInteraction::eventFilter(QObject* watched, QEvent* event) {
    switch (event->type()) {
    case QEvent::Wheel:
    case QEvent::MouseButtonPress:
    case QEvent::MouseMove:
    case QEvent::MouseButtonRelease:
    case QEvent::KeyPress:
        break;
    default:
        return false; // nothing else is ours (and the chart may be half destroyed)
    }
    const bool onViewport = watched == m_viewport;
    switch (event->type()) {
    case QEvent::Wheel: {
        if (!onViewport)
            break;
        auto* e = static_cast<QWheelEvent*>(event);
        const int steps = e->angleDelta().y() / 120;
        if (steps == 0)
            break;
        const QPointF value = m_chart->chart()->mapToValue(e->position());
        zoom(std::pow(kZoomStep, -steps), value.x() * 1000.0);
        e->accept();
        return true;
    }
    case QEvent::MouseButtonPress: {
        auto* e = static_cast<QMouseEvent*>(event);
        if (!onViewport || e->button() != Qt::LeftButton)
            break;
        m_chart->setFocus(Qt::MouseFocusReason);
        m_pressed = true;
        m_dragging = false;
        m_pressPos = m_lastPos = e->position().toPoint();
        break; // a click still reaches the markers
    }
    case QEvent::MouseMove: {
        auto* e = static_cast<QMouseEvent*>(event);
        if (!onViewport || !m_pressed || !(e->buttons() & Qt::LeftButton))
            break;
        const QPoint pos = e->position().toPoint();
        if (!m_dragging && (pos - m_pressPos).manhattanLength() < QApplication::startDragDistance())
            break;
        m_dragging = true;
        const int dx = pos.x() - m_lastPos.x();
        m_lastPos = pos;
        panBy(-dx * msPerPixel());
        return true;
    }
    case QEvent::MouseButtonRelease: {
        auto* e = static_cast<QMouseEvent*>(event);
        if (!onViewport || e->button() != Qt::LeftButton)
            break;
        const bool dragged = m_dragging;
        m_pressed = m_dragging = false;
        if (dragged)
            return true;
        break;
    }
    case QEvent::KeyPress: {
        if (watched != m_chart)
            break;
        auto* e = static_cast<QKeyEvent*>(event);
        const double fraction = e->modifiers() & Qt::ShiftModifier ? 0.5 : kPanFraction;
        const double step = m_chart->spanSeconds() * 1000.0 * fraction;
        switch (e->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomAtCentre(1 / kZoomStep);
            return true;
        case Qt::Key_Minus:
        case Qt::Key_Underscore:
            zoomAtCentre(kZoomStep);
            return true;
        case Qt::Key_Left:
            panBy(-step);
            return true;
        case Qt::Key_Right:
            panBy(step);
            return true;
        case Qt::Key_Home:
            showStart();
            return true;
        case Qt::Key_End:
            followLive();
            return true;
        default:
            break;
        }
        break;
    }
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace ws
