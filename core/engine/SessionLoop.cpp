#include "SessionLoop.h"

#include "Pipeline.h"
#include "Source.h"

#include <QElapsedTimer>
#include <algorithm>
#include <limits>
#include <thread>

namespace ws {

SessionLoop::SessionLoop(Pipeline& pipeline, std::vector<Source*> sources, TimeUs publishInterval)
    : m_pipeline(pipeline), m_sources(std::move(sources)), m_publishInterval(publishInterval) {}

bool SessionLoop::run(const std::atomic<bool>& stop, const Publish& publish, QString* error) {
    QElapsedTimer wall;
    wall.start();
    TimeUs lastPublish = 0;
    QString failure;
    while (!stop.load(std::memory_order_relaxed)) {
        bool allFinished = true;
        TimeUs idle = std::numeric_limits<TimeUs>::max();
        for (Source* s : m_sources) {
            if (s->finished())
                continue;
            allFinished = false;
            idle = std::min(idle, s->poll(m_pipeline));
            if (failure.isEmpty())
                failure = s->failure();
        }
        if (allFinished || !failure.isEmpty())
            break;
        if (m_between)
            m_between();
        const TimeUs now = wall.nsecsElapsed() / 1000;
        if (now - lastPublish >= m_publishInterval) {
            lastPublish = now;
            if (publish)
                publish(m_pipeline.takeUpdate(m_sources, false, now));
        }
        if (idle > 0) {
            // Never past the next publication, and in short naps so stop() is quick.
            const TimeUs untilPublish = std::max<TimeUs>(0, lastPublish + m_publishInterval - now);
            const TimeUs nap = std::min({idle, untilPublish, milliseconds(5)});
            if (nap > 0)
                std::this_thread::sleep_for(std::chrono::microseconds(nap));
        }
    }
    for (Source* s : m_sources)
        s->close(m_pipeline);
    if (failure.isEmpty())
        for (Source* s : m_sources)
            if (failure.isEmpty())
                failure = s->failure();
    if (publish)
        publish(m_pipeline.takeUpdate(m_sources, true, wall.nsecsElapsed() / 1000));
    QString closeError;
    TimeUs end = 0;
    for (Source* s : m_sources)
        end = std::max(end, s->now());
    const bool closed = m_pipeline.closeOutputs(end, &closeError);
    if (!failure.isEmpty()) {
        *error = failure;
        return false;
    }
    if (!closed) {
        *error = closeError;
        return false;
    }
    return true;
}

} // namespace ws
