#pragma once

// What the tests with the real kubectl (against `watchscope-cli serve`) set up before their first
// test function: kubectl found (or the whole executable skipped), a temporary directory, and for
// TLS a throwaway PKI made in it (TestPki). A test class derives from it and calls
// SET_UP_KUBECTL_TEST_BED(tls) first thing in its initTestCase.

#include "TestPki.h"

#include <QByteArray>
#include <QFile>
#include <QObject>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

namespace ws::test {

class KubectlTestBed : public QObject {
protected:
    enum class Tls { No, Yes };

    // The tool this machine lacks for the tests ("kubectl is not installed"), or empty.
    QString missingTool(Tls tls) {
        m_kubectl = QStandardPaths::findExecutable(QStringLiteral("kubectl"));
        if (m_kubectl.isEmpty())
            return QStringLiteral("kubectl is not installed");
        if (tls == Tls::Yes && !TestPki::available())
            return QStringLiteral("openssl is not installed");
        return {};
    }
    bool setUp(Tls tls, QString* error) {
        if (!m_dir.isValid()) {
            *error = QStringLiteral("no temporary directory: %1").arg(m_dir.errorString());
            return false;
        }
        return tls == Tls::No || m_pki.create(error);
    }
    // `bytes` as the file `name` in the directory: its path, or empty when it cannot be written.
    QString writeTestFile(const QString& name, const QByteArray& bytes) {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() ? path : QString();
    }

    QString m_kubectl;
    QTemporaryDir m_dir;
    TestPki m_pki; // empty unless set up with Tls::Yes
};

} // namespace ws::test

// Skips the executable when a tool is missing, fails it when the set-up does.
#define SET_UP_KUBECTL_TEST_BED(tls)                                                               \
    do {                                                                                           \
        if (const QString missing = missingTool(tls); !missing.isEmpty())                          \
            QSKIP(qPrintable(missing));                                                            \
        QString setUpError;                                                                        \
        QVERIFY2(setUp(tls, &setUpError), qPrintable(setUpError));                                 \
    } while (0)
