// libFuzzer target for a client certificate and key as a kubeconfig or an exec plugin gives them
// (ClientCertificate::fromPem: PEM blocks, the key's PKCS#1 / SEC1 / PKCS#8 DER read by our own
// DerReader to match it with the certificate). The first two input bytes (little-endian) are the
// certificate PEM's length, the rest is the key PEM. A refusal is one line.
#include "FuzzExpect.h"
#include "sources/cluster/http/ClientCertificate.h"

#include <QByteArray>
#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2)
        return 0;
    const std::size_t certificateBytes = std::min<std::size_t>(data[0] | (data[1] << 8), size - 2);
    const char* p = reinterpret_cast<const char*>(data) + 2;
    const QByteArray certificate(p, static_cast<qsizetype>(certificateBytes));
    const QByteArray key(p + certificateBytes, static_cast<qsizetype>(size - 2 - certificateBytes));
    QString error;
    if (!ws::ClientCertificate::fromPem(certificate, key, &error))
        ws::fuzz::expectOneLine(error);
    return 0;
}
