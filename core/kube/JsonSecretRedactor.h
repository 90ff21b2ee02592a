#pragma once

#include "kube/SecretDigest.h"

#include <QByteArray>

#include <bitset>
#include <cstddef>
#include <cstdint>

namespace ws {

// Redacts the secret values of a Secret, SecretList or watch stream of Secrets as JSON that
// arrives in pieces split anywhere (SPEC §4): every string value anywhere inside the value of a
// member named "data" or "stringData" and the string value of the member
// "kubectl.kubernetes.io/last-applied-configuration" (which holds the data in clear) become
// SecretDigest text, the digest of the bytes between the quotes as received (escapes included).
// Everything else passes byte for byte: keys, whitespace, numbers, metadata, managedFields.
//
// A byte state machine over the chunks with no allocation per byte: a redacted string is hashed
// as it arrives, never buffered; pass-through bytes are appended as runs. Keys are compared
// byte for byte as received (a key spelt with \u escapes is not recognised). Top-level values may
// follow each other (a watch stream: newline-separated or concatenated events).
//
// Malformed input never stops it: from the first syntax error on, the rest passes unchanged and
// failed() turns true. A string ends only at an unescaped quote (its content is not validated),
// so an error is only ever seen outside a string: a redacted string is never cut short. Nesting
// deeper than kMaxDepth counts as a syntax error.
class JsonSecretRedactor {
public:
    static constexpr std::size_t kMaxDepth = 4096;

    explicit JsonSecretRedactor(QByteArray salt);
    // A redactor with SecretDigest::randomSalt().
    static JsonSecretRedactor withRandomSalt();

    // The filtered bytes of this chunk. Over all chunks, the output is the same however the input
    // is split.
    QByteArray feed(const char* data, std::size_t size);
    // As feed(), appending to *out.
    void feedInto(const char* data, std::size_t size, QByteArray* out);

    // A syntax error was seen; everything after it passed unchanged.
    bool failed() const { return m_state == State::Failed; }
    // Between top-level values: what was fed so far is whole JSON values (or nothing).
    bool atTopLevel() const { return m_state == State::Value && m_depth == 0; }
    // String values redacted so far.
    std::uint64_t redactedValues() const { return m_redacted; }
    // Starts a new body (the salt stays: equal values keep equal digests).
    void reset();

    const QByteArray& salt() const { return m_digest.salt(); }

private:
    enum class State : std::uint8_t {
        Value,       // a value is expected (top level, after ':' or after ',' in an array)
        ArrayFirst,  // after '[': a value or ']'
        ObjectFirst, // after '{': a key or '}'
        Key,         // after ',' in an object: a key
        Colon,       // after a key
        AfterValue,  // inside a container after a value: ',' or its closing bracket
        String,      // inside a string (m_role says which)
        Scalar,      // inside a number, true, false or null
        Failed,
    };
    enum class Role : std::uint8_t { Key, Pass, Redact };
    enum class KeyMatch : std::uint8_t { None, Data, LastApplied };

    static constexpr std::size_t kKeyMax = 48; // the longest key compared

    const char* startValue(const char* p, const char** run, QByteArray* out);
    void valueDone();
    void push(bool array);
    void appendKey(const char* data, std::size_t size);
    void finishKey();
    bool topIsArray() const { return m_isArray[m_depth - 1]; }

    SecretDigest m_digest;
    State m_state = State::Value;
    Role m_role = Role::Pass;
    KeyMatch m_keyMatch = KeyMatch::None;
    bool m_escape = false;    // the previous string byte was a backslash
    bool m_keyLong = false;   // the key being read is longer than kKeyMax
    std::size_t m_keyLen = 0; // bytes of the key in m_key
    std::size_t m_depth = 0;
    // Depth of the object holding the "data"/"stringData" member being redacted; 0: none.
    std::size_t m_redactDepth = 0;
    std::uint64_t m_redacted = 0;
    char m_key[kKeyMax];
    std::bitset<kMaxDepth> m_isArray; // per open container: array (true) or object
};

} // namespace ws
