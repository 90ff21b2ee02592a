#include "ClientCertificate.h"

#include "DerReader.h"

#include <QList>

namespace ws {

namespace {

struct PemBlock {
    QByteArray label; // "CERTIFICATE", "EC PRIVATE KEY", ...
    QByteArray der;
    bool encrypted = false; // RFC 1421 "Proc-Type: 4,ENCRYPTED"
    QByteArray pem;         // the block alone, as text
};

QList<PemBlock> pemBlocks(const QByteArray& text) {
    QList<PemBlock> blocks;
    const QList<QByteArray> lines = text.split('\n');
    std::optional<PemBlock> open;
    QByteArray base64;
    for (const QByteArray& raw : lines) {
        const QByteArray line = raw.trimmed();
        if (!open) {
            if (line.startsWith("-----BEGIN ") && line.endsWith("-----")) {
                open = PemBlock{};
                open->label = line.mid(11, line.size() - 16);
                open->pem = line + '\n';
                base64.clear();
            }
            continue;
        }
        open->pem += line + '\n';
        if (line.startsWith("-----END ")) {
            open->der = QByteArray::fromBase64(base64);
            blocks.append(*open);
            open.reset();
        } else if (line.contains(':')) { // an RFC 1421 header, not base64
            if (line.startsWith("Proc-Type:") && line.contains("ENCRYPTED"))
                open->encrypted = true;
        } else {
            base64 += line;
        }
    }
    return blocks;
}

QByteArrayView withoutLeadingZeros(QByteArrayView integer) {
    while (integer.size() > 1 && integer.front() == '\0')
        integer = integer.sliced(1);
    return integer;
}

// The public half of a key, as both a certificate and a private key can tell it.
struct PublicKey {
    QSsl::KeyAlgorithm algorithm = QSsl::Opaque;
    QByteArray modulus, exponent; // RSA
    QByteArray point;             // EC; empty when a private key does not carry it
};

const QByteArrayView kRsaEncryption("\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01", 9);
const QByteArrayView kEcPublicKey("\x2a\x86\x48\xce\x3d\x02\x01", 7);

std::optional<PublicKey> rsaPublicKey(QByteArrayView rsaPublicKeySequence) {
    DerReader outer(rsaPublicKeySequence);
    DerReader::Element seq, n, e;
    if (!outer.expect(DerReader::Sequence, &seq))
        return std::nullopt;
    DerReader fields(seq.content);
    if (!fields.expect(DerReader::Integer, &n) || !fields.expect(DerReader::Integer, &e))
        return std::nullopt;
    PublicKey key;
    key.algorithm = QSsl::Rsa;
    key.modulus = withoutLeadingZeros(n.content).toByteArray();
    key.exponent = withoutLeadingZeros(e.content).toByteArray();
    return key;
}

// SubjectPublicKeyInfo ::= SEQUENCE { AlgorithmIdentifier, BIT STRING }
std::optional<PublicKey> fromSubjectPublicKeyInfo(QByteArrayView spki) {
    DerReader fields(spki);
    DerReader::Element algorithm, oid, bits;
    if (!fields.expect(DerReader::Sequence, &algorithm) ||
        !fields.expect(DerReader::BitString, &bits) || bits.content.isEmpty())
        return std::nullopt;
    DerReader algorithmFields(algorithm.content);
    if (!algorithmFields.expect(DerReader::ObjectId, &oid))
        return std::nullopt;
    const QByteArrayView keyBits = bits.content.sliced(1); // after the unused-bits octet
    if (oid.content == kRsaEncryption)
        return rsaPublicKey(keyBits);
    if (oid.content == kEcPublicKey) {
        PublicKey key;
        key.algorithm = QSsl::Ec;
        key.point = keyBits.toByteArray();
        return key;
    }
    PublicKey other;
    other.algorithm = QSsl::Opaque;
    return other;
}

// Certificate ::= SEQUENCE { TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serial,
//   signature, issuer, validity, subject, subjectPublicKeyInfo, ... }, ... }
std::optional<PublicKey> certificatePublicKey(const QSslCertificate& certificate) {
    const QByteArray der = certificate.toDer();
    DerReader outer(der);
    DerReader::Element cert, tbs, field;
    if (!outer.expect(DerReader::Sequence, &cert))
        return std::nullopt;
    DerReader certFields(cert.content);
    if (!certFields.expect(DerReader::Sequence, &tbs))
        return std::nullopt;
    DerReader tbsFields(tbs.content);
    int index = 0;
    while (tbsFields.next(&field)) {
        if (index == 0 && field.tag == 0xa0) // the explicit version
            continue;
        if (index++ == 5)
            return field.tag == DerReader::Sequence ? fromSubjectPublicKeyInfo(field.content)
                                                    : std::nullopt;
    }
    return std::nullopt;
}

// RSAPrivateKey ::= SEQUENCE { version, modulus, publicExponent, ... } (PKCS#1)
std::optional<PublicKey> fromRsaPrivateKey(QByteArrayView der) {
    DerReader outer(der);
    DerReader::Element seq, version, n, e;
    if (!outer.expect(DerReader::Sequence, &seq))
        return std::nullopt;
    DerReader fields(seq.content);
    if (!fields.expect(DerReader::Integer, &version) || !fields.expect(DerReader::Integer, &n) ||
        !fields.expect(DerReader::Integer, &e))
        return std::nullopt;
    PublicKey key;
    key.algorithm = QSsl::Rsa;
    key.modulus = withoutLeadingZeros(n.content).toByteArray();
    key.exponent = withoutLeadingZeros(e.content).toByteArray();
    return key;
}

// ECPrivateKey ::= SEQUENCE { version, privateKey OCTET STRING, [0] parameters OPTIONAL,
//   [1] publicKey BIT STRING OPTIONAL } (SEC1)
std::optional<PublicKey> fromEcPrivateKey(QByteArrayView der) {
    DerReader outer(der);
    DerReader::Element seq, version, secret, field;
    if (!outer.expect(DerReader::Sequence, &seq))
        return std::nullopt;
    DerReader fields(seq.content);
    if (!fields.expect(DerReader::Integer, &version) ||
        !fields.expect(DerReader::OctetString, &secret))
        return std::nullopt;
    PublicKey key;
    key.algorithm = QSsl::Ec;
    while (fields.next(&field)) {
        if (field.tag != 0xa1)
            continue;
        DerReader inner(field.content);
        DerReader::Element bits;
        if (inner.expect(DerReader::BitString, &bits) && !bits.content.isEmpty())
            key.point = bits.content.sliced(1).toByteArray();
    }
    if (fields.failed())
        return std::nullopt;
    return key;
}

// PrivateKeyInfo ::= SEQUENCE { version, AlgorithmIdentifier, privateKey OCTET STRING, ... }
std::optional<PublicKey> fromPkcs8(QByteArrayView der) {
    DerReader outer(der);
    DerReader::Element seq, version, algorithm, oid, inner;
    if (!outer.expect(DerReader::Sequence, &seq))
        return std::nullopt;
    DerReader fields(seq.content);
    if (!fields.expect(DerReader::Integer, &version) ||
        !fields.expect(DerReader::Sequence, &algorithm) ||
        !fields.expect(DerReader::OctetString, &inner))
        return std::nullopt;
    DerReader algorithmFields(algorithm.content);
    if (!algorithmFields.expect(DerReader::ObjectId, &oid))
        return std::nullopt;
    if (oid.content == kRsaEncryption)
        return fromRsaPrivateKey(inner.content);
    if (oid.content == kEcPublicKey)
        return fromEcPrivateKey(inner.content);
    PublicKey other;
    other.algorithm = QSsl::Opaque;
    return other;
}

bool sameKey(const PublicKey& a, const PublicKey& b) {
    if (a.algorithm != b.algorithm)
        return false;
    if (a.algorithm == QSsl::Rsa)
        return a.modulus == b.modulus && a.exponent == b.exponent;
    // A SEC1 key may leave its public point out; then the handshake is the judge.
    return a.point.isEmpty() || b.point.isEmpty() || a.point == b.point;
}

} // namespace

std::optional<ClientCertificate> ClientCertificate::fromPem(const QByteArray& certificatePem,
                                                            const QByteArray& keyPem,
                                                            QString* error) {
    const auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    ClientCertificate out;
    for (const PemBlock& block : pemBlocks(certificatePem)) {
        if (block.label != "CERTIFICATE")
            continue;
        const QSslCertificate certificate(block.der, QSsl::Der);
        if (certificate.isNull())
            return fail(QStringLiteral("the client certificate is not a valid PEM certificate"));
        out.chain.append(certificate);
    }
    if (out.chain.isEmpty())
        return fail(QStringLiteral("the client certificate holds no PEM certificate"));

    std::optional<PemBlock> keyBlock;
    for (const PemBlock& block : pemBlocks(keyPem)) {
        if (block.label.endsWith("PRIVATE KEY")) {
            keyBlock = block;
            break;
        }
    }
    if (!keyBlock)
        return fail(QStringLiteral("the client key holds no PEM private key"));
    if (keyBlock->encrypted || keyBlock->label == "ENCRYPTED PRIVATE KEY")
        return fail(QStringLiteral("the client key is encrypted (it must not be)"));

    std::optional<PublicKey> fromKey;
    if (keyBlock->label == "RSA PRIVATE KEY")
        fromKey = fromRsaPrivateKey(keyBlock->der);
    else if (keyBlock->label == "EC PRIVATE KEY")
        fromKey = fromEcPrivateKey(keyBlock->der);
    else if (keyBlock->label == "PRIVATE KEY")
        fromKey = fromPkcs8(keyBlock->der);
    if (!fromKey)
        return fail(QStringLiteral("the client key is not a valid PEM private key"));
    if (fromKey->algorithm != QSsl::Rsa && fromKey->algorithm != QSsl::Ec)
        return fail(QStringLiteral("the client key is neither RSA nor EC"));

    out.key = QSslKey(keyBlock->pem, fromKey->algorithm, QSsl::Pem, QSsl::PrivateKey);
    if (out.key.isNull())
        return fail(QStringLiteral("the client key is not a valid PEM private key"));

    const std::optional<PublicKey> fromCertificate = certificatePublicKey(out.chain.first());
    if (!fromCertificate)
        return fail(QStringLiteral("the client certificate's public key cannot be read"));
    if (!sameKey(*fromCertificate, *fromKey))
        return fail(QStringLiteral("the client key does not match the client certificate"));
    return out;
}

} // namespace ws
