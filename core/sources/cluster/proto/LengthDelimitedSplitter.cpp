#include "LengthDelimitedSplitter.h"

#include <algorithm>

namespace ws {

namespace {

constexpr std::size_t kKeptCapacity = std::size_t(1) << 20;

QString mib(std::size_t bytes) {
    return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'g', 4);
}

} // namespace

bool LengthDelimitedSplitter::feed(const char* data, std::size_t size,
                                   const FrameCallback& onFrame) {
    if (hasError())
        return false;
    const char* p = data;
    const char* const end = data + size;
    while (p < end) {
        if (m_headerHave < kHeaderBytes) {
            if (m_headerHave == 0)
                m_frameStart = m_offset + static_cast<std::uint64_t>(p - data);
            const std::size_t take =
                std::min(kHeaderBytes - m_headerHave, static_cast<std::size_t>(end - p));
            std::copy(p, p + take, m_header + m_headerHave);
            m_headerHave += take;
            p += take;
            if (m_headerHave < kHeaderBytes)
                break;
            const auto b = [this](int i) {
                return static_cast<std::uint32_t>(static_cast<unsigned char>(m_header[i]));
            };
            m_frameLength = b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
            if (m_frameLength > m_maxFrameBytes) {
                return fail(m_frameStart,
                            QStringLiteral("protobuf frame at offset %1 says it is %2 bytes, over "
                                           "the %3 MiB limit")
                                .arg(m_frameStart)
                                .arg(m_frameLength)
                                .arg(mib(m_maxFrameBytes)));
            }
        }
        const std::size_t want = m_frameLength - m_buffer.size();
        const std::size_t have = static_cast<std::size_t>(end - p);
        if (have < want) {
            m_buffer.append(p, have);
            m_peakBuffered = std::max(m_peakBuffered, m_buffer.size());
            p = end;
            break;
        }
        ++m_frames;
        m_headerHave = 0;
        if (m_buffer.empty()) {
            onFrame(std::string_view(p, want)); // whole in this chunk: no copy
        } else {
            m_buffer.append(p, want);
            m_peakBuffered = std::max(m_peakBuffered, m_buffer.size());
            onFrame(std::string_view(m_buffer));
            m_buffer.clear();
            // One huge frame must not pin its memory for the rest of the stream.
            if (m_buffer.capacity() > kKeptCapacity)
                std::string().swap(m_buffer);
        }
        p += want;
    }
    m_offset += size;
    return true;
}

bool LengthDelimitedSplitter::finish() {
    if (hasError())
        return false;
    if (m_headerHave == 0)
        return true;
    if (m_headerHave < kHeaderBytes) {
        return fail(m_offset, QStringLiteral("stream ended inside the length prefix of the "
                                             "protobuf frame at offset %1 (%2 of 4 bytes)")
                                  .arg(m_frameStart)
                                  .arg(m_headerHave));
    }
    return fail(m_offset, QStringLiteral("stream ended inside the protobuf frame at offset %1 "
                                         "(%2 of its %3 bytes received)")
                              .arg(m_frameStart)
                              .arg(m_buffer.size())
                              .arg(m_frameLength));
}

void LengthDelimitedSplitter::reset() {
    const std::size_t limit = m_maxFrameBytes;
    *this = LengthDelimitedSplitter(limit);
}

bool LengthDelimitedSplitter::fail(std::uint64_t offset, QString message) {
    m_error = std::move(message);
    m_errorOffset = offset;
    m_buffer.clear();
    m_buffer.shrink_to_fit();
    m_headerHave = 0;
    return false;
}

} // namespace ws
