#pragma once

#include "EtcdWatchStream.h"
#include "engine/FrameQueue.h"

#include <functional>

namespace ws {

// The transport side of the capture seam: what the etcd stream (and the Status poller)
// received becomes Frames, in arrival order, in a FrameQueue the session thread drains. Called
// on the transport threads; never decodes anything.
class EtcdFrameRecorder : public EtcdTransportSink {
public:
    using Clock = std::function<TimeUs()>; // session time
    EtcdFrameRecorder(FrameQueue& queue, int connection, Clock clock)
        : m_queue(queue), m_connection(connection), m_clock(std::move(clock)) {}

    void statusReceived(ResourceVersion headerRevision);

    // EtcdTransportSink
    void listStarted(bool relist) override;
    void rangePage(const WireRangeResponse& page) override;
    void listCompleted(ResourceVersion listRevision, std::int64_t items) override;
    void listFailed(const QString& message, bool compacted) override;
    void watchCreateSent(ResourceVersion startRevision, const QString& endpoint) override;
    void watchReceived(const WireWatchResponse& response) override;
    void watchBroken(const QString& message, bool transport,
                     std::chrono::milliseconds retryIn) override;

private:
    void push(std::uint16_t kind, QByteArray bytes);

    FrameQueue& m_queue;
    int m_connection;
    Clock m_clock;
};

} // namespace ws
