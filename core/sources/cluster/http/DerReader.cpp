#include "DerReader.h"

namespace ws {

bool DerReader::next(Element* element) {
    if (m_failed || atEnd())
        return false;
    const auto byte = [&](qsizetype i) { return quint8(m_data[i]); };
    qsizetype pos = m_pos;
    const quint8 tag = byte(pos++);
    if ((tag & 0x1f) == 0x1f || pos >= m_data.size()) { // high tag numbers: not in keys or certs
        m_failed = true;
        return false;
    }
    qsizetype length = byte(pos++);
    if (length & 0x80) {
        const int octets = int(length & 0x7f);
        // 0x80 is BER's indefinite length; more than 4 length octets is not a key or certificate.
        if (octets == 0 || octets > 4 || pos + octets > m_data.size()) {
            m_failed = true;
            return false;
        }
        length = 0;
        for (int i = 0; i < octets; ++i)
            length = (length << 8) | byte(pos++);
    }
    if (length > m_data.size() - pos) {
        m_failed = true;
        return false;
    }
    element->tag = tag;
    element->content = m_data.sliced(pos, length);
    m_pos = pos + length;
    return true;
}

bool DerReader::expect(quint8 tag, Element* element) {
    if (!next(element))
        return false;
    if (element->tag != tag) {
        m_failed = true;
        return false;
    }
    return true;
}

} // namespace ws
