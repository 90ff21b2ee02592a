#include "SecretDigest.h"

#include <QCryptographicHash>
#include <QRandomGenerator>

#include <cstring>

namespace ws {

SecretDigest::SecretDigest(QByteArray salt)
    : m_salt(std::move(salt)),
      m_hash(std::make_unique<QCryptographicHash>(QCryptographicHash::Sha256)) {}

SecretDigest::~SecretDigest() = default;
SecretDigest::SecretDigest(SecretDigest&&) noexcept = default;
SecretDigest& SecretDigest::operator=(SecretDigest&&) noexcept = default;

QByteArray SecretDigest::randomSalt() {
    quint32 words[kSaltSize / sizeof(quint32)];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char*>(words), sizeof(words));
}

void SecretDigest::begin() {
    m_hash->reset();
    m_hash->addData(QByteArrayView(m_salt));
}

void SecretDigest::add(const char* data, std::size_t size) {
    m_hash->addData(QByteArrayView(data, static_cast<qsizetype>(size)));
}

void SecretDigest::finish(char* out) {
    static constexpr char kHex[] = "0123456789abcdef";
    const QByteArrayView sha = m_hash->resultView();
    std::memcpy(out, kPrefix.data(), kPrefix.size());
    char* hex = out + kPrefix.size();
    for (int i = 0; i < 8; ++i) {
        const auto b = static_cast<unsigned char>(sha[i]);
        hex[2 * i] = kHex[b >> 4];
        hex[2 * i + 1] = kHex[b & 15];
    }
}

QByteArray SecretDigest::digest(std::string_view value) {
    begin();
    add(value.data(), value.size());
    QByteArray out(static_cast<qsizetype>(kTextSize), Qt::Uninitialized);
    finish(out.data());
    return out;
}

} // namespace ws
