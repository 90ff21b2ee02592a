#pragma once

#include <QByteArrayView>

namespace ws {

// Reads the elements of one level of ASN.1 DER, just enough to compare a client key with its
// certificate (ClientCertificate): low tag numbers and definite lengths only; anything else is
// malformed and ends the reading.
class DerReader {
public:
    struct Element {
        quint8 tag = 0; // the identifier octet: 0x30 SEQUENCE, 0x02 INTEGER, 0xA0 [0], ...
        QByteArrayView content;
    };

    explicit DerReader(QByteArrayView data) : m_data(data) {}

    // The next element of this level; false at the end or when the data is malformed.
    bool next(Element* element);
    // The next element, which must carry `tag`.
    bool expect(quint8 tag, Element* element);
    bool atEnd() const { return m_pos >= m_data.size(); }
    bool failed() const { return m_failed; }

    static constexpr quint8 Integer = 0x02;
    static constexpr quint8 BitString = 0x03;
    static constexpr quint8 OctetString = 0x04;
    static constexpr quint8 ObjectId = 0x06;
    static constexpr quint8 Sequence = 0x30;

private:
    QByteArrayView m_data;
    qsizetype m_pos = 0;
    bool m_failed = false;
};

} // namespace ws
