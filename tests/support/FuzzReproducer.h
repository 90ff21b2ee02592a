#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QFile>
#include <QString>
#include <QStringList>

namespace ws::test {

// The bytes of an input a fuzz target found trouble with, kept in its corpus
// (tests/fuzz/corpus/<target>/<name>) so that the fuzzer starts from it and the regression test
// feeds the product the same bytes. Empty when the file is not found (ctest sets
// WS_SOURCE_DIR; run by hand, the build tree usually sits in the source tree).
inline QByteArray fuzzReproducer(const QString& target, const QString& name) {
    const QString relative = QStringLiteral("tests/fuzz/corpus/%1/%2").arg(target, name);
    const QString appDir = QCoreApplication::applicationDirPath();
    for (const QString& candidate :
         {qEnvironmentVariable("WS_SOURCE_DIR") + QLatin1Char('/') + relative,
          appDir + QStringLiteral("/../../") + relative,
          appDir + QStringLiteral("/../") + relative}) {
        QFile f(candidate);
        if (f.open(QIODevice::ReadOnly))
            return f.readAll();
    }
    return {};
}

} // namespace ws::test
