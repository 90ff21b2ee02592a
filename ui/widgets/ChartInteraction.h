#pragma once

#include <QList>
#include <QObject>
#include <QPoint>
#include <QString>

namespace ws {

class LiveChartView;

// How a reader moves a time chart, the same on every chart (the RV timeline, the lag chart, the
// buffer chart): one event filter on the chart and its viewport.
//
//   wheel            zoom the time span (x1.25 a notch), around the pointer when parked; while
//                    following the right edge stays on the newest data
//   drag (left)      pan: the chart parks on what is dragged into view; dragged back to the newest
//                    data it follows it again. A click without a drag still reaches the markers.
//   + / =   -        zoom in / out, around the centre (or the live edge, following)
//   Left / Right     pan by a tenth of the span (Shift: half), not before the oldest data kept;
//                    Right up to the newest data follows it again
//   Home             park on the oldest data kept
//   End              follow the newest data again
//
// Every move goes through the chart's own setters (span, centre, follow), so the window's view
// state (FollowPolicy) and the other charts hear of it through the chart's signals.
class ChartInteraction : public QObject {
    Q_OBJECT
public:
    static constexpr double kZoomStep = 1.25;
    static constexpr double kPanFraction = 0.1;

    explicit ChartInteraction(LiveChartView* chart);

    // The keys and mouse moves above as (what, keys) rows, for Help > Keyboard Shortcuts: they
    // live in an event filter, not in actions the dialog can list.
    struct KeyHelp {
        QString what;
        QString keys;
    };
    static QList<KeyHelp> keyHelp();

    // The operations, also for tests and for the window's actions.
    void zoom(double factor, double anchorMs); // factor < 1: zoom in
    void zoomAtCentre(double factor);
    void panBy(double ms);
    void showStart();
    void followLive();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    double msPerPixel() const;

    LiveChartView* m_chart;
    // Kept from the start: while the chart is being destroyed the filter still sees its
    // viewport's last events, and asking the half-destroyed chart for viewport() is undefined.
    QObject* m_viewport;
    QPoint m_pressPos;
    QPoint m_lastPos;
    bool m_pressed = false;
    bool m_dragging = false;
};

} // namespace ws
