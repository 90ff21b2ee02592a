#include "JsonValueScanner.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ws {

namespace {

bool isScalarByte(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '+' || c == '.';
}

} // namespace

bool JsonValueScanner::begin(char first) {
    *this = JsonValueScanner();
    switch (first) {
    case '{':
    case '[':
        m_kind = Kind::Container;
        return true;
    case '"':
        m_kind = Kind::String;
        return true;
    case '-':
    case 't':
    case 'f':
    case 'n':
        m_kind = Kind::Scalar;
        return true;
    default:
        if (first >= '0' && first <= '9') {
            m_kind = Kind::Scalar;
            return true;
        }
        return false;
    }
}

std::size_t JsonValueScanner::scan(const char* data, std::size_t size) {
    if (m_complete || size == 0)
        return 0;
    switch (m_kind) {
    case Kind::Container:
    case Kind::String:
        // A string is a container of depth 0: it ends when its closing quote leaves the
        // string at depth 0, which the same loop detects.
        return scanContainer(data, size);
    case Kind::Scalar:
        return scanScalar(data, size);
    case Kind::None:
        break;
    }
    return 0;
}

std::size_t JsonValueScanner::scanContainer(const char* data, std::size_t size) {
    const char* p = data;
    const char* const end = data + size;
    if (m_escape) {
        ++p; // the escaped byte, whatever it is
        m_escape = false;
    }
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i lbrace = _mm_set1_epi8('{');
    const __m128i rbrace = _mm_set1_epi8('}');
    const __m128i lbracket = _mm_set1_epi8('[');
    const __m128i rbracket = _mm_set1_epi8(']');
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const auto q = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)));
        const auto bs = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)));
        const auto open = static_cast<unsigned>(_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, lbrace), _mm_cmpeq_epi8(v, lbracket))));
        const auto close = static_cast<unsigned>(_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, rbrace), _mm_cmpeq_epi8(v, rbracket))));
        const unsigned stringHits = q | bs;
        const unsigned structureHits = q | open | close;
        // Jump from one interesting byte to the next; which bytes are interesting depends on
        // whether we are inside a string. `pos` is the first byte of the block not yet handled
        // (17 when an escape at byte 15 also swallows byte 16 of the next block).
        unsigned pos = 0;
        for (;;) {
            const unsigned m = (m_inString ? stringHits : structureHits) & (~0u << pos);
            if (m == 0)
                break;
            const auto k = static_cast<unsigned>(__builtin_ctz(m));
            const unsigned bit = 1u << k;
            pos = k + 1;
            if (m_inString) {
                if (bs & bit) {
                    ++pos;
                    continue;
                }
                m_inString = false;
            } else if (q & bit) {
                m_inString = true;
                continue;
            } else if (open & bit) {
                ++m_depth;
                continue;
            } else {
                --m_depth;
            }
            if (m_depth == 0) {
                m_complete = true;
                return static_cast<std::size_t>(p + pos - data);
            }
        }
        if (pos > 16 && end - p == 16) {
            m_escape = true; // the escaped byte is the first of the next chunk
            return size;
        }
        p += pos > 16 ? pos : 16;
    }
#endif
    while (p < end) {
        const char c = *p++;
        if (m_inString) {
            if (c == '\\') {
                if (p == end) {
                    m_escape = true;
                    break;
                }
                ++p;
                continue;
            }
            if (c != '"')
                continue;
            m_inString = false;
        } else if (c == '"') {
            m_inString = true;
            continue;
        } else if (c == '{' || c == '[') {
            ++m_depth;
            continue;
        } else if (c == '}' || c == ']') {
            --m_depth;
        } else {
            continue;
        }
        if (m_depth == 0) {
            m_complete = true;
            return static_cast<std::size_t>(p - data);
        }
    }
    return size;
}

std::size_t JsonValueScanner::scanScalar(const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
        if (!isScalarByte(data[i])) {
            m_complete = true;
            return i;
        }
    }
    return size;
}

} // namespace ws
