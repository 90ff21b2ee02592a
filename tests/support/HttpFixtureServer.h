#pragma once

// tests/fixtures/cluster/http_fixture_server.py run as a child process: a small HTTP(S) server
// for the cluster transport's tests, or (--apiserver) a scripted kube-apiserver whose discovery
// and RBAC partly fail. It prints "PORT <n>" once it listens; the destructor kills it.

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <memory>

namespace ws::test {

class HttpFixtureServer {
public:
    ~HttpFixtureServer() {
        if (m_process) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }

    // The script's path, or empty when it cannot be found. ctest sets WS_SOURCE_DIR; run by
    // hand, the build tree usually sits in the source tree (build/tests/tst_x).
    static QString script() {
        const QString relative = QStringLiteral("tests/fixtures/cluster/http_fixture_server.py");
        const QString appDir = QCoreApplication::applicationDirPath();
        for (const QString& candidate :
             {qEnvironmentVariable("WS_SOURCE_DIR") + QLatin1Char('/') + relative,
              appDir + QStringLiteral("/../../") + relative,
              appDir + QStringLiteral("/../") + relative}) {
            if (!candidate.isEmpty() && QFile::exists(candidate))
                return candidate;
        }
        return {};
    }

    bool start(const QString& script, const QStringList& args, QString* error) {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::SeparateChannels);
        m_process->start(QStringLiteral("python3"), QStringList{script} + args);
        if (!m_process->waitForStarted(10000)) {
            *error = QStringLiteral("python3 did not start");
            return false;
        }
        QByteArray out;
        QElapsedTimer t;
        t.start();
        while (!out.contains('\n')) {
            const qint64 left = 15000 - t.elapsed();
            if (left <= 0 || m_process->state() != QProcess::Running) {
                *error = QStringLiteral("the fixture server printed no port: %1")
                             .arg(QString::fromLocal8Bit(m_process->readAllStandardError()));
                return false;
            }
            m_process->waitForReadyRead(int(left)); // returns as soon as output arrives
            out += m_process->readAllStandardOutput();
        }
        const QByteArray line = out.left(out.indexOf('\n')).trimmed();
        if (!line.startsWith("PORT ")) {
            *error = QStringLiteral("unexpected first line: %1").arg(QString::fromUtf8(line));
            return false;
        }
        m_port = quint16(line.mid(5).toUInt());
        return m_port != 0;
    }

    quint16 port() const { return m_port; }
    QString url(const QString& scheme = QStringLiteral("http")) const {
        return QStringLiteral("%1://127.0.0.1:%2").arg(scheme).arg(m_port);
    }

private:
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
};

} // namespace ws::test
