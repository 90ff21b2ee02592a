#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ws::capture {

// Appends fixed-size little-endian integers and size-prefixed strings to a byte buffer.
class LittleEndianWriter {
public:
    explicit LittleEndianWriter(QByteArray& out) : m_out(out) {}
    template <typename T> void put(T v) {
        static_assert(std::is_integral_v<T>);
        using U = std::make_unsigned_t<T>;
        U u = static_cast<U>(v);
        char b[sizeof(T)];
        for (std::size_t i = 0; i < sizeof(T); ++i) {
            b[i] = static_cast<char>(u & 0xFF);
            if constexpr (sizeof(T) > 1)
                u = static_cast<U>(u >> 8);
        }
        m_out.append(b, sizeof(T));
    }
    void putBytes(const QByteArray& bytes) { m_out.append(bytes); }
    void putString(const QString& s) {
        const QByteArray utf8 = s.toUtf8();
        put<std::uint32_t>(static_cast<std::uint32_t>(utf8.size()));
        m_out.append(utf8);
    }

private:
    QByteArray& m_out;
};

// Reads what LittleEndianWriter wrote, never past `size`: every read says whether it fit.
class LittleEndianReader {
public:
    LittleEndianReader(const char* data, std::size_t size) : m_data(data), m_size(size) {}
    template <typename T> bool get(T* v) {
        static_assert(std::is_integral_v<T>);
        if (m_size - m_pos < sizeof(T))
            return false;
        using U = std::make_unsigned_t<T>;
        U u = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            u = static_cast<U>(
                u | (static_cast<U>(static_cast<unsigned char>(m_data[m_pos + i])) << (8 * i)));
        m_pos += sizeof(T);
        *v = static_cast<T>(u);
        return true;
    }
    bool getString(QString* s) {
        std::uint32_t n = 0;
        if (!get(&n) || m_size - m_pos < n)
            return false;
        *s = QString::fromUtf8(m_data + m_pos, static_cast<qsizetype>(n));
        m_pos += n;
        return true;
    }
    QByteArray rest() {
        QByteArray out(m_data + m_pos, static_cast<qsizetype>(m_size - m_pos));
        m_pos = m_size;
        return out;
    }
    std::size_t remaining() const { return m_size - m_pos; }

private:
    const char* m_data;
    std::size_t m_size;
    std::size_t m_pos = 0;
};

} // namespace ws::capture
