#pragma once

// A `watchscope-cli serve` child process for tests: started on a free loopback port, its URL
// read from the line it prints, stopped (SIGTERM, then kill) when the object goes away.

#include <QDeadlineTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <memory>

namespace ws::test {

class ServeProcess {
public:
    ~ServeProcess() { stop(); }

    // Extra arguments after `serve --listen 127.0.0.1:0`. False with *error when it did not
    // come up within the timeout.
    bool start(const QStringList& arguments, QString* error, int timeoutMs = 15000) {
        m_process = std::make_unique<QProcess>();
        m_process->setProgram(qEnvironmentVariable("WS_CLI"));
        m_process->setArguments(QStringList{QStringLiteral("serve"), QStringLiteral("--listen"),
                                            QStringLiteral("127.0.0.1:0")} +
                                arguments);
        m_process->start();
        if (!m_process->waitForStarted(5000)) {
            *error = QStringLiteral("cannot start %1: %2")
                         .arg(m_process->program(), m_process->errorString());
            return false;
        }
        static const QRegularExpression url(QStringLiteral(" on (https?://[^ ]+)$"));
        QDeadlineTimer deadline(timeoutMs);
        QByteArray out;
        while (!deadline.hasExpired()) {
            if (m_process->canReadLine() || m_process->waitForReadyRead(static_cast<int>(
                                                qMin<qint64>(deadline.remainingTime(), 500)))) {
                while (m_process->canReadLine()) {
                    const QString line = QString::fromUtf8(m_process->readLine()).trimmed();
                    const auto m = url.match(line);
                    if (m.hasMatch()) {
                        m_url = m.captured(1);
                        return true;
                    }
                }
            }
            if (m_process->state() == QProcess::NotRunning) {
                *error = QStringLiteral("serve exited: %1")
                             .arg(QString::fromUtf8(m_process->readAllStandardError()).trimmed());
                return false;
            }
        }
        *error = QStringLiteral("serve printed no URL within %1 ms").arg(timeoutMs);
        return false;
    }

    QString url() const { return m_url; }
    quint16 port() const { return static_cast<quint16>(m_url.section(u':', -1).toUInt()); }
    QProcess* process() const { return m_process.get(); }

    void stop() {
        if (!m_process || m_process->state() == QProcess::NotRunning)
            return;
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(2000);
        }
    }

private:
    std::unique_ptr<QProcess> m_process;
    QString m_url;
};

} // namespace ws::test
