#include "JsonSecretRedactor.h"

#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ws {

namespace {

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool isScalarByte(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '+' || c == '.';
}

// The first '"' or '\\' in [p, end), or end.
const char* findQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int mask =
            _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (mask != 0)
            return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\')
        ++p;
    return p;
}

} // namespace

JsonSecretRedactor::JsonSecretRedactor(QByteArray salt) : m_digest(std::move(salt)) {}

JsonSecretRedactor JsonSecretRedactor::withRandomSalt() {
    return JsonSecretRedactor(SecretDigest::randomSalt());
}

void JsonSecretRedactor::reset() {
    m_state = State::Value;
    m_role = Role::Pass;
    m_keyMatch = KeyMatch::None;
    m_escape = false;
    m_keyLong = false;
    m_keyLen = 0;
    m_depth = 0;
    m_redactDepth = 0;
}

QByteArray JsonSecretRedactor::feed(const char* data, std::size_t size) {
    QByteArray out;
    out.reserve(static_cast<qsizetype>(size + SecretDigest::kTextSize));
    feedInto(data, size, &out);
    return out;
}

void JsonSecretRedactor::push(bool array) {
    if (m_depth == kMaxDepth) {
        m_state = State::Failed;
        return;
    }
    m_isArray[m_depth++] = array;
}

void JsonSecretRedactor::valueDone() {
    if (m_redactDepth == m_depth)
        m_redactDepth = 0; // the value of the "data" member itself ended
    m_state = m_depth == 0 ? State::Value : State::AfterValue;
}

void JsonSecretRedactor::appendKey(const char* data, std::size_t size) {
    if (m_keyLong || m_keyLen + size > kKeyMax) {
        m_keyLong = true;
        return;
    }
    std::memcpy(m_key + m_keyLen, data, size);
    m_keyLen += size;
}

void JsonSecretRedactor::finishKey() {
    m_keyMatch = KeyMatch::None;
    if (m_keyLong)
        return;
    const std::string_view key(m_key, m_keyLen);
    if (key == "data" || key == "stringData")
        m_keyMatch = KeyMatch::Data;
    else if (key == kLastApplied)
        m_keyMatch = KeyMatch::LastApplied;
}

// p points at the first byte of a value. Returns the position after what was consumed.
const char* JsonSecretRedactor::startValue(const char* p, const char** run, QByteArray* out) {
    KeyMatch match = KeyMatch::None;
    if (m_depth > 0 && !topIsArray()) {
        match = m_keyMatch; // a member's value: what its key said
        m_keyMatch = KeyMatch::None;
    }
    if (match == KeyMatch::Data && m_redactDepth == 0)
        m_redactDepth = m_depth;
    const char c = *p;
    switch (c) {
    case '{':
        push(false);
        if (m_state != State::Failed)
            m_state = State::ObjectFirst;
        return p + 1;
    case '[':
        push(true);
        if (m_state != State::Failed)
            m_state = State::ArrayFirst;
        return p + 1;
    case '"':
        ++p;
        m_state = State::String;
        m_escape = false;
        if (m_redactDepth != 0 || match == KeyMatch::LastApplied) {
            m_role = Role::Redact;
            out->append(*run, p - *run); // up to and with the opening quote
            *run = nullptr;
            m_digest.begin();
        } else {
            m_role = Role::Pass;
        }
        return p;
    default:
        if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
            m_state = State::Scalar;
            return p + 1;
        }
        m_state = State::Failed;
        return p;
    }
}

void JsonSecretRedactor::feedInto(const char* data, std::size_t size, QByteArray* out) {
    const char* p = data;
    const char* const end = data + size;
    // The start of the bytes not yet appended that pass unchanged; null inside a redacted string.
    const char* run = (m_state == State::String && m_role == Role::Redact) ? nullptr : p;
    while (p < end) {
        switch (m_state) {
        case State::String: {
            const char* const s = p;
            while (p < end) {
                if (m_escape) {
                    m_escape = false;
                    ++p;
                    continue;
                }
                p = findQuoteOrBackslash(p, end);
                if (p == end || *p == '"')
                    break;
                m_escape = true; // a backslash: the next byte is never the closing quote
                ++p;
            }
            if (m_role == Role::Redact)
                m_digest.add(s, static_cast<std::size_t>(p - s));
            else if (m_role == Role::Key)
                appendKey(s, static_cast<std::size_t>(p - s));
            if (p == end)
                break;
            // *p is the closing quote.
            if (m_role == Role::Redact) {
                char text[SecretDigest::kTextSize];
                m_digest.finish(text);
                out->append(text, static_cast<qsizetype>(sizeof(text)));
                ++m_redacted;
                run = p;
            }
            ++p;
            if (m_role == Role::Key) {
                finishKey();
                m_state = State::Colon;
            } else {
                valueDone();
            }
            break;
        }
        case State::Scalar:
            while (p < end && isScalarByte(*p))
                ++p;
            if (p < end)
                valueDone(); // the terminating byte is read in the next state
            break;
        case State::Failed:
            p = end;
            break;
        default: {
            const char c = *p;
            if (isSpace(c)) {
                ++p;
                break;
            }
            switch (m_state) {
            case State::Value:
                p = startValue(p, &run, out);
                break;
            case State::ArrayFirst:
                if (c == ']') {
                    --m_depth;
                    ++p;
                    valueDone();
                } else {
                    p = startValue(p, &run, out);
                }
                break;
            case State::ObjectFirst:
            case State::Key:
                if (c == '"') {
                    m_state = State::String;
                    m_role = Role::Key;
                    m_escape = false;
                    m_keyLen = 0;
                    m_keyLong = false;
                    ++p;
                } else if (c == '}' && m_state == State::ObjectFirst) {
                    --m_depth;
                    ++p;
                    valueDone();
                } else {
                    m_state = State::Failed;
                }
                break;
            case State::Colon:
                if (c == ':') {
                    m_state = State::Value;
                    ++p;
                } else {
                    m_state = State::Failed;
                }
                break;
            case State::AfterValue:
                if (c == ',') {
                    m_state = topIsArray() ? State::Value : State::Key;
                    ++p;
                } else if (c == (topIsArray() ? ']' : '}')) {
                    --m_depth;
                    ++p;
                    valueDone();
                } else {
                    m_state = State::Failed;
                }
                break;
            default:
                break;
            }
        }
        }
    }
    if (run)
        out->append(run, end - run);
}

} // namespace ws
