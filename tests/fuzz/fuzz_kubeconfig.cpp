// libFuzzer target for kubeconfig files (Kubeconfig, as kubectl's clientcmd reads them): the input
// is written to a file of a temporary folder and loaded as `--kubeconfig` would, then every
// context (and the current one) is resolved into a target, which reads the files it names
// relative to that folder. Each refusal is one line; none may crash.
#include "FuzzExpect.h"
#include "sources/cluster/kubeconfig/Kubeconfig.h"

#include <QFile>
#include <QTemporaryDir>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const QTemporaryDir dir;
    static const QString path = dir.filePath(QStringLiteral("config"));
    {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            f.write(reinterpret_cast<const char*>(data), static_cast<qint64>(size)) !=
                static_cast<qint64>(size))
            __builtin_trap(); // the fuzzer's own temporary file: nothing to learn without it
    }
    QString error;
    const auto config = ws::Kubeconfig::load(path, &error);
    if (!config) {
        ws::fuzz::expectOneLine(error);
        return 0;
    }
    QStringList contexts = config->contextNames();
    contexts << QString(); // the current context
    for (const QString& context : contexts) {
        QString targetError;
        if (!config->target(context, &targetError))
            ws::fuzz::expectOneLine(targetError);
        (void)config->contextNamespace(context);
    }
    return 0;
}
