#pragma once

#include "EngineUpdate.h"
#include "util/Doorbell.h"

#include <atomic>
#include <functional>
#include <vector>

namespace ws {

class Pipeline;
class Source;

// The one loop that drives a session, on the calling thread: polls every source, sleeps when
// none has work, and hands the pipeline's batched EngineUpdate to `publish` at most every
// publishInterval of wall time, and once more, finished, at the end. Session runs it on its
// thread; tests and benchmarks may run it directly.
//
// While idle it sleeps until the next publication, the earliest time a source asked to be
// polled again, or `wake` rings: sources that ring it (Source::setDoorbell) are not looked at
// in between, and whoever sets `stop` rings it too. A ring wakes it at once, unless it rang
// less than kBatchDelay after the previous round a ring brought: then frames are flowing, and
// rounds come kBatchDelay apart whatever rings meanwhile, until one finds nothing new. So a
// stream costs a wake-up per batch, not one per frame, and a frame is handled at most
// kBatchDelay (plus the round's work) after it arrived. While any source does not ring, naps
// last at most kNap.
class SessionLoop {
public:
    using Publish = std::function<void(EngineUpdate&&)>;
    static constexpr TimeUs kBatchDelay = milliseconds(10);
    static constexpr TimeUs kNap = milliseconds(5);

    SessionLoop(Pipeline& pipeline, std::vector<Source*> sources, Doorbell& wake,
                TimeUs publishInterval = milliseconds(33));

    // Until every source has finished, one has failed, or `stop` is set. Closes the sources and
    // the output files. False with one line in *error when a source failed or a file could not
    // be written.
    bool run(const std::atomic<bool>& stop, const Publish& publish, QString* error);
    // Called on the loop's thread between two rounds of polls (Session serves its requests
    // from other threads there: start or stop a capture).
    void setBetweenPolls(std::function<void()> between) { m_between = std::move(between); }

private:
    Pipeline& m_pipeline;
    std::vector<Source*> m_sources;
    Doorbell& m_wake;
    TimeUs m_publishInterval;
    std::function<void()> m_between;
};

} // namespace ws
