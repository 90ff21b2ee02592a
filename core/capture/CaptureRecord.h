#pragma once

#include "model/Frame.h"

namespace ws {

// One record of a capture, as CaptureReader hands it out.
struct CaptureRecord {
    enum class Type { Connection, Frame, End };
    Type type = Type::Frame;
    ConnectionInfo connection; // Connection
    Frame frame;               // Frame
    TimeUs endTime = 0;        // End: session time when the capture was closed
    qint64 endFrames = 0;      // End: frames the writer wrote
};

} // namespace ws
