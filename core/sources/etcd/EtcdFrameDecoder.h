#pragma once

#include "EtcdWatchStream.h"
#include "EtcdWireWatchResponse.h"
#include "model/Frame.h"

namespace ws {

class EtcdEventProcessor;

// The session side of the capture seam: turns the etcd source's frames, live or from a
// capture, back into what the stream saw (watch opened, responses with fragments merged,
// progress, compacted cancels, lists, broken streams, Status heads) for an EtcdEventProcessor.
// The same decoder serves the live source and a replay, so both find the same anomalies.
class EtcdFrameDecoder {
public:
    explicit EtcdFrameDecoder(EtcdEventProcessor& processor) : m_processor(processor) {}

    // False (nothing delivered) for a frame that cannot be decoded; *error says why.
    bool decode(const Frame& frame, QString* error);

private:
    void deliverWatch(WireWatchResponse&& response);

    EtcdEventProcessor& m_processor;
    ResourceVersion m_startRevision = 0; // of the last create request
    QString m_endpoint;
    ResourceVersion m_nextRevision = 0;
    WireWatchResponse m_merged;
    bool m_inFragment = false;
};

} // namespace ws
