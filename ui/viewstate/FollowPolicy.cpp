#include "FollowPolicy.h"

#include <algorithm>

namespace ws {

const QVector<FollowPolicy::SpanChoice>& FollowPolicy::spanChoices() {
    static const QVector<SpanChoice> choices{{tr("10 s"), 10},
                                             {tr("30 s"), 30},
                                             {tr("1 min"), 60},
                                             {tr("5 min"), 300},
                                             {tr("15 min"), 900}};
    return choices;
}

int FollowPolicy::spanIndex() const {
    const QVector<SpanChoice>& choices = spanChoices();
    for (int i = 0; i < choices.size(); ++i) {
        if (choices[i].seconds == m_spanSeconds)
            return i;
    }
    return -1;
}

QString FollowPolicy::spanLabel() const {
    const int index = spanIndex();
    return index >= 0 ? spanChoices()[index].label : tr("%1 s").arg(m_spanSeconds, 0, 'f', 0);
}

void FollowPolicy::setSpan(double seconds) {
    const double clamped = std::clamp(seconds, 1.0, 24 * 3600.0);
    if (clamped == m_spanSeconds)
        return;
    m_spanSeconds = clamped;
    emit spanChanged(clamped);
}

void FollowPolicy::setFollowLive(bool follow) {
    if (follow == m_follow)
        return;
    m_follow = follow;
    emit followLiveChanged(follow);
}

} // namespace ws
