#pragma once

#include <QByteArray>

#include <cstddef>
#include <memory>
#include <string_view>

class QCryptographicHash;

namespace ws {

// What a redacted secret value becomes (SPEC §4): "redacted:" and the first 16 hex digits of
// SHA-256(salt || value). Equal values give equal digests within one session (one salt), different
// values different ones, and the salt (random, kept only in memory) stops a dictionary from
// recovering short values. A value can be hashed in pieces (begin, add..., finish) so that a long
// one is never buffered.
class SecretDigest {
public:
    static constexpr std::size_t kSaltSize = 16;
    static constexpr std::string_view kPrefix = "redacted:";
    // kPrefix and 16 hex digits.
    static constexpr std::size_t kTextSize = 9 + 16;

    explicit SecretDigest(QByteArray salt);
    ~SecretDigest();
    SecretDigest(SecretDigest&&) noexcept;
    SecretDigest& operator=(SecretDigest&&) noexcept;

    // kSaltSize bytes from QRandomGenerator::system().
    static QByteArray randomSalt();

    const QByteArray& salt() const { return m_salt; }

    void begin();
    void add(const char* data, std::size_t size);
    // Writes the kTextSize characters of the digest of what was added since begin() to out.
    void finish(char* out);

    // The whole value at once.
    QByteArray digest(std::string_view value);

private:
    QByteArray m_salt;
    std::unique_ptr<QCryptographicHash> m_hash;
};

} // namespace ws
