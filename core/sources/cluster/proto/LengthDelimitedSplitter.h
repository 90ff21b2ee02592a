#pragma once

#include <QString>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ws {

// Cuts a Kubernetes protobuf watch body (`application/vnd.kubernetes.protobuf;stream=watch`)
// into frames whatever the chunking: each frame is a 4-byte big-endian length, then that many
// bytes (apimachinery pkg/util/framer, lengthDelimitedFrameWriter, v1.31). Only an incomplete
// frame is kept between feeds; a frame whole inside one chunk is handed out without a copy.
// The counterpart of JsonObjectSplitter, with the same sticky one-line errors and size limit.
class LengthDelimitedSplitter {
public:
    static constexpr std::size_t kDefaultMaxFrameBytes = std::size_t(64) << 20;
    static constexpr std::size_t kHeaderBytes = 4;

    // One complete frame without its length prefix. The bytes are valid only during the call.
    using FrameCallback = std::function<void(std::string_view frame)>;

    explicit LengthDelimitedSplitter(std::size_t maxFrameBytes = kDefaultMaxFrameBytes)
        : m_maxFrameBytes(maxFrameBytes) {}

    // Calls onFrame for every frame the chunk completes, in order. False when a frame's length
    // is over the limit; the error is sticky: every later feed() and finish() returns false.
    bool feed(const char* data, std::size_t size, const FrameCallback& onFrame);
    bool feed(std::string_view chunk, const FrameCallback& onFrame) {
        return feed(chunk.data(), chunk.size(), onFrame);
    }

    // The stream ended: false if it stopped inside a frame or its length (a truncated body).
    bool finish();

    bool hasError() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }
    std::uint64_t errorOffset() const { return m_errorOffset; }

    std::uint64_t bytesConsumed() const { return m_offset; }
    std::uint64_t frameCount() const { return m_frames; }
    bool inFrame() const { return m_headerHave > 0; }
    std::size_t bufferedBytes() const { return m_buffer.size(); }
    std::size_t peakBufferedBytes() const { return m_peakBuffered; }

    // Back to the start of a new stream (keeps the size limit).
    void reset();

private:
    bool fail(std::uint64_t offset, QString message);

    std::size_t m_maxFrameBytes;
    char m_header[kHeaderBytes] = {};
    std::size_t m_headerHave = 0; // 0 between frames; 4 once the length is known
    std::size_t m_frameLength = 0;
    std::string m_buffer;           // the incomplete frame's body so far
    std::uint64_t m_offset = 0;     // stream offset of the next byte fed
    std::uint64_t m_frameStart = 0; // stream offset of the current frame's length prefix
    std::uint64_t m_frames = 0;
    std::size_t m_peakBuffered = 0;
    QString m_error;
    std::uint64_t m_errorOffset = 0;
};

} // namespace ws
