#pragma once

#include "JsonValueScanner.h"

#include <QString>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ws {

// Cuts a stream of concatenated JSON objects (a Kubernetes watch body: one event object after
// another, usually but not necessarily newline-separated) into whole objects, whatever the
// chunking. Whitespace between objects is skipped; any other byte there is an error, reported
// with its offset in the stream. Only the incomplete tail of the last object is kept between
// feeds; an object that lies whole inside one chunk is handed out without being copied.
class JsonObjectSplitter {
public:
    static constexpr std::size_t kDefaultMaxObjectBytes = std::size_t(64) << 20;

    // One complete object, from its '{' to its '}'. The bytes are valid only during the call.
    using ObjectCallback = std::function<void(std::string_view object)>;

    explicit JsonObjectSplitter(std::size_t maxObjectBytes = kDefaultMaxObjectBytes)
        : m_maxObjectBytes(maxObjectBytes) {}

    // Scans the next chunk and calls onObject for every object it completes, in order. False
    // on malformed framing or an object over the size limit; the error is sticky: every later
    // feed() and finish() returns false at once.
    bool feed(const char* data, std::size_t size, const ObjectCallback& onObject);
    bool feed(std::string_view chunk, const ObjectCallback& onObject) {
        return feed(chunk.data(), chunk.size(), onObject);
    }

    // The stream ended: false if it stopped inside an object (a truncated body).
    bool finish();

    bool hasError() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }
    std::uint64_t errorOffset() const { return m_errorOffset; }

    std::uint64_t bytesConsumed() const { return m_offset; }
    std::uint64_t objectCount() const { return m_objects; }
    bool inObject() const { return m_inObject; }
    // Bytes held between feeds (the incomplete object), and the most ever held.
    std::size_t bufferedBytes() const { return m_buffer.size(); }
    std::size_t peakBufferedBytes() const { return m_peakBuffered; }

    // Back to the start of a new stream (keeps the size limit).
    void reset();

private:
    bool fail(std::uint64_t offset, QString message);

    std::size_t m_maxObjectBytes;
    JsonValueScanner m_scanner;
    std::string m_buffer; // the incomplete object's bytes so far
    bool m_inObject = false;
    std::uint64_t m_offset = 0;      // stream offset of the next byte fed
    std::uint64_t m_objectStart = 0; // stream offset of the current object's '{'
    std::uint64_t m_objects = 0;
    std::size_t m_peakBuffered = 0;
    QString m_error;
    std::uint64_t m_errorOffset = 0;
};

} // namespace ws
