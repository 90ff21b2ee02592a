#pragma once

#include <QObject>
#include <QString>
#include <QVector>

namespace ws {

// The time window both charts show: how wide it is (a preset, or whatever a wheel zoom made it)
// and whether it follows the live edge. Selecting an anomaly parks it on the anomaly (the charts
// report that through setFollowLive(false)); End, or a new session, makes it follow again.
// No widgets: the window mirrors it in its span chooser, its Follow action and the charts.
class FollowPolicy : public QObject {
    Q_OBJECT
public:
    struct SpanChoice {
        QString label;
        double seconds;
    };
    static const QVector<SpanChoice>& spanChoices(); // 10 s … 15 min
    static constexpr int kDefaultSpanIndex = 2;      // 1 min

    using QObject::QObject;

    double spanSeconds() const { return m_spanSeconds; }
    // The preset the span is, or -1 for a span between presets (a wheel zoom).
    int spanIndex() const;
    // "1 min" for a preset, "37 s" otherwise.
    QString spanLabel() const;
    bool followLive() const { return m_follow; }

    void setSpan(double seconds); // clamped to 1 s … 24 h, as the charts clamp it
    void setFollowLive(bool follow);
    // A new session: follow the live edge again; the span stays as chosen.
    void restart() { setFollowLive(true); }

signals:
    void spanChanged(double seconds);
    void followLiveChanged(bool follow);

private:
    double m_spanSeconds = 60;
    bool m_follow = true;
};

} // namespace ws
