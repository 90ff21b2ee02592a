#include "SessionLoop.h"

#include "Pipeline.h"
#include "Source.h"

#include <QElapsedTimer>
#include <algorithm>
#include <limits>
#include <thread>

namespace ws {

SessionLoop::SessionLoop(Pipeline& pipeline, std::vector<Source*> sources, Doorbell& wake,
                         TimeUs publishInterval)
    : m_pipeline(pipeline), m_sources(std::move(sources)), m_wake(wake),
      m_publishInterval(publishInterval) {}

bool SessionLoop::run(const std::atomic<bool>& stop, const Publish& publish, QString* error) {
    QElapsedTimer wall;
    wall.start();
    TimeUs lastPublish = 0;
    QString failure;
    bool allRing = true;
    for (Source* s : m_sources)
        allRing = s->setDoorbell(&m_wake) && allRing;
    // A stream is flowing: rounds kBatchDelay apart, whatever rings in between.
    bool gathering = false;
    TimeUs lastRung = -kBatchDelay; // when the last round the bell brought began
    const auto elapsed = [&]() -> TimeUs { return wall.nsecsElapsed() / 1000; };
    const auto sleepUntil = [&](TimeUs until, TimeUs atMost) {
        const TimeUs nap = std::min(atMost, until - elapsed());
        if (nap > 0)
            std::this_thread::sleep_for(std::chrono::microseconds(nap));
    };
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
        if (idle <= 0)
            continue;
        // Never past the next publication.
        const TimeUs untilPublish = std::max<TimeUs>(0, lastPublish + m_publishInterval - now);
        TimeUs nap = std::min(idle, untilPublish);
        if (!allRing)
            nap = std::min(nap, kNap);
        if (gathering) {
            // A ring meanwhile (stop too) is taken after; none: the stream has paused.
            sleepUntil(lastRung + kBatchDelay, nap);
            gathering = m_wake.take();
        } else if (m_wake.wait(nap)) {
            // Rung again within kBatchDelay of the last round it brought: a stream. Its frames
            // are taken in rounds kBatchDelay apart until a round finds none, instead of a
            // wake-up per frame; a frame now and then still wakes the loop at once.
            if (elapsed() - lastRung < kBatchDelay) {
                sleepUntil(lastRung + kBatchDelay, nap);
                m_wake.take();
                gathering = true;
            }
        } else {
            continue; // due: nothing rang
        }
        lastRung = elapsed();
    }
    for (Source* s : m_sources)
        s->setDoorbell(nullptr);
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
