// libFuzzer target for an exec credential plugin's stdout (ExecCredential::fromPluginOutput, as
// ExecCredentialRunner reads it): an ExecCredential of v1 or v1beta1 (the first input byte picks
// which the kubeconfig asks for), or one line saying why not that never quotes the output.
#include "FuzzExpect.h"
#include "sources/cluster/kubeconfig/ExecCredential.h"

#include <QByteArray>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    const QString apiVersion = (data[0] & 1)
                                   ? QStringLiteral("client.authentication.k8s.io/v1")
                                   : QStringLiteral("client.authentication.k8s.io/v1beta1");
    const QByteArray output(reinterpret_cast<const char*>(data) + 1,
                            static_cast<qsizetype>(size - 1));
    QString error;
    const auto credential = ws::ExecCredential::fromPluginOutput(
        output, apiVersion, QStringLiteral("exec plugin 'fuzz'"), &error);
    if (!credential) {
        ws::fuzz::expectOneLine(error);
        return 0;
    }
    if (credential->token.isEmpty() && credential->clientKeyPem.isEmpty())
        __builtin_trap(); // an accepted credential carries something to authenticate with
    return 0;
}
