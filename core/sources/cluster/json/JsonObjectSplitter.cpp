#include "JsonObjectSplitter.h"

namespace ws {

namespace {

bool isJsonWhitespace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

QString describeByte(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
        return QStringLiteral("'%1'").arg(QLatin1Char(c));
    return QStringLiteral("0x%1").arg(u, 2, 16, QLatin1Char('0'));
}

constexpr std::size_t kKeptCapacity = std::size_t(1) << 20;

QString mib(std::size_t bytes) {
    return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'g', 4);
}

} // namespace

bool JsonObjectSplitter::feed(const char* data, std::size_t size, const ObjectCallback& onObject) {
    if (hasError())
        return false;
    const char* p = data;
    const char* const end = data + size;
    while (p < end) {
        if (!m_inObject) {
            while (p < end && isJsonWhitespace(*p))
                ++p;
            if (p == end)
                break;
            const std::uint64_t at = m_offset + static_cast<std::uint64_t>(p - data);
            if (*p != '{') {
                return fail(at, QStringLiteral("unexpected byte %1 at offset %2 between JSON "
                                               "objects")
                                    .arg(describeByte(*p))
                                    .arg(at));
            }
            m_scanner.begin('{');
            m_inObject = true;
            m_objectStart = at;
        }
        const char* const start = p;
        p += m_scanner.scan(p, static_cast<std::size_t>(end - p));
        const auto piece = static_cast<std::size_t>(p - start);
        if (m_buffer.size() + piece > m_maxObjectBytes) {
            return fail(m_objectStart, QStringLiteral("JSON object at offset %1 is larger than "
                                                      "the %2 MiB limit")
                                           .arg(m_objectStart)
                                           .arg(mib(m_maxObjectBytes)));
        }
        if (!m_scanner.complete()) {
            m_buffer.append(start, piece);
            if (m_buffer.size() > m_peakBuffered)
                m_peakBuffered = m_buffer.size();
            break;
        }
        m_inObject = false;
        ++m_objects;
        if (m_buffer.empty()) {
            onObject(std::string_view(start, piece)); // whole in this chunk: no copy
        } else {
            m_buffer.append(start, piece);
            if (m_buffer.size() > m_peakBuffered)
                m_peakBuffered = m_buffer.size();
            onObject(std::string_view(m_buffer));
            m_buffer.clear();
            // One huge object must not pin its memory for the rest of the stream.
            if (m_buffer.capacity() > kKeptCapacity)
                std::string().swap(m_buffer);
        }
    }
    m_offset += size;
    return true;
}

bool JsonObjectSplitter::finish() {
    if (hasError())
        return false;
    if (m_inObject) {
        return fail(m_offset, QStringLiteral("stream ended inside the JSON object that starts at "
                                             "offset %1 (%2 bytes of it received)")
                                  .arg(m_objectStart)
                                  .arg(m_offset - m_objectStart));
    }
    return true;
}

void JsonObjectSplitter::reset() {
    const std::size_t limit = m_maxObjectBytes;
    *this = JsonObjectSplitter(limit);
}

bool JsonObjectSplitter::fail(std::uint64_t offset, QString message) {
    m_error = std::move(message);
    m_errorOffset = offset;
    m_buffer.clear();
    m_buffer.shrink_to_fit();
    m_inObject = false;
    return false;
}

} // namespace ws
