#pragma once

#include "EtcdSecretRedactor.h"
#include "EtcdWatchStream.h"
#include "engine/FrameQueue.h"

#include <functional>
#include <optional>

namespace ws {

// The transport side of the capture seam: what the etcd stream (and the Status poller)
// received becomes Frames, in arrival order, in a FrameQueue the session thread drains. Called
// on the transport threads; never decodes anything. Unless told to keep them, the values of
// Secrets under `prefix` are redacted here, before the decoder or a capture sees them, so a live
// session and its capture's replay see the same bytes (docs/capture-format.md).
class EtcdFrameRecorder : public EtcdTransportSink {
public:
    using Clock = std::function<TimeUs()>; // session time
    EtcdFrameRecorder(FrameQueue& queue, int connection, Clock clock, const std::string& prefix,
                      bool redactSecrets);

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
    // One each for the lister's and the watcher's thread (the redactor keeps scratch space),
    // with one salt: a value gets the same digest in a list and in a watch.
    std::optional<EtcdSecretRedactor> m_rangeRedactor;
    std::optional<EtcdSecretRedactor> m_watchRedactor;
};

} // namespace ws
