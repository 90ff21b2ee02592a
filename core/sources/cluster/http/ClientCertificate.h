#pragma once

#include <QByteArray>
#include <QList>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>
#include <optional>

namespace ws {

// A TLS client identity from PEM, as a kubeconfig (client-certificate-data / client-key-data)
// or an exec credential plugin gives it: the certificate (plus any intermediates after it) and
// an unencrypted RSA or EC private key in PKCS#1 ("RSA PRIVATE KEY"), SEC1 ("EC PRIVATE KEY") or
// PKCS#8 ("PRIVATE KEY") form. fromPem() checks that the key belongs to the certificate, so a
// mismatch is one clear line up front instead of a handshake failure later.
struct ClientCertificate {
    QList<QSslCertificate> chain; // the client certificate first
    QSslKey key;

    // On failure: nullopt and one line naming what is wrong (never any key material).
    static std::optional<ClientCertificate> fromPem(const QByteArray& certificatePem,
                                                    const QByteArray& keyPem, QString* error);
};

} // namespace ws
