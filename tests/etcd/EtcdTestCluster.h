#pragma once

// Starts real etcd members (/usr/bin/etcd) on free loopback ports with a temporary data dir, for
// the etcd tests and the benchmark. Members are stopped by PID (QProcess) and can be killed and
// restarted on the same ports and data.

#include "sources/etcd/EtcdClient.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>
#include <memory>
#include <optional>
#include <sys/prctl.h>
#include <vector>

namespace ws::test {

inline QString etcdBinary() {
    const QString fromEnv = qEnvironmentVariable("WS_ETCD_BINARY");
    if (!fromEnv.isEmpty())
        return fromEnv;
    if (QFile::exists(QStringLiteral("/usr/bin/etcd")))
        return QStringLiteral("/usr/bin/etcd");
    return QStandardPaths::findExecutable(QStringLiteral("etcd"));
}

// A port the kernel just handed out for 127.0.0.1 (bound to port 0, then released).
inline quint16 freePort() {
    QTcpServer s;
    if (!s.listen(QHostAddress::LocalHost, 0))
        return 0;
    return s.serverPort();
}

struct EtcdTls {
    QString caFile, certFile, keyFile; // server side (etcd's --cert-file/--key-file)
};

class EtcdTestCluster {
public:
    struct Member {
        QString name;
        quint16 clientPort = 0;
        quint16 peerPort = 0;
        std::unique_ptr<QProcess> process;
    };

    explicit EtcdTestCluster(int members = 1, std::optional<EtcdTls> tls = std::nullopt,
                             QString baseDir = {})
        : m_tls(std::move(tls)) {
        if (!baseDir.isEmpty())
            m_dir = std::make_unique<QTemporaryDir>(baseDir + QStringLiteral("/etcd-XXXXXX"));
        else
            m_dir = std::make_unique<QTemporaryDir>();
        for (int i = 0; i < members; ++i) {
            Member m;
            m.name = QStringLiteral("m%1").arg(i);
            m.clientPort = freePort();
            m.peerPort = freePort();
            m_members.push_back(std::move(m));
        }
    }
    ~EtcdTestCluster() {
        for (int i = 0; i < size(); ++i)
            kill(i);
    }

    // The etcd program to run (default etcdBinary(): Debian's 3.4.23), e.g. a real etcd 3.6
    // built by tests/peers/build.sh. Before start().
    void setBinary(const QString& binary) { m_binary = binary; }

    int size() const { return static_cast<int>(m_members.size()); }
    QString dir() const { return m_dir->path(); }
    const Member& member(int i) const { return m_members[static_cast<std::size_t>(i)]; }
    QString clientUrl(int i) const {
        const Member& m = member(i);
        return QStringLiteral("%1://127.0.0.1:%2")
            .arg(m_tls ? QStringLiteral("https") : QStringLiteral("http"))
            .arg(m.clientPort);
    }
    QStringList clientUrls() const {
        QStringList out;
        for (int i = 0; i < size(); ++i)
            out << clientUrl(i);
        return out;
    }
    QString logFile(int i) const {
        return m_dir->path() + QStringLiteral("/%1.log").arg(member(i).name);
    }

    QStringList arguments(int i) const {
        const Member& m = member(i);
        QStringList cluster;
        for (const Member& o : m_members)
            cluster << QStringLiteral("%1=http://127.0.0.1:%2").arg(o.name).arg(o.peerPort);
        QStringList args{
            QStringLiteral("--name"),
            m.name,
            QStringLiteral("--data-dir"),
            m_dir->path() + QLatin1Char('/') + m.name,
            QStringLiteral("--listen-client-urls"),
            clientUrl(i),
            QStringLiteral("--advertise-client-urls"),
            clientUrl(i),
            QStringLiteral("--listen-peer-urls"),
            QStringLiteral("http://127.0.0.1:%1").arg(m.peerPort),
            QStringLiteral("--initial-advertise-peer-urls"),
            QStringLiteral("http://127.0.0.1:%1").arg(m.peerPort),
            QStringLiteral("--initial-cluster"),
            cluster.join(QLatin1Char(',')),
            QStringLiteral("--initial-cluster-state"),
            QStringLiteral("new"),
            QStringLiteral("--initial-cluster-token"),
            QStringLiteral("watchscope-test"),
            QStringLiteral("--experimental-watch-progress-notify-interval=500ms"),
            QStringLiteral("--quota-backend-bytes=8589934592"),
            QStringLiteral("--heartbeat-interval=50"),
            QStringLiteral("--election-timeout=500"),
        };
        if (m_tls) {
            args << QStringLiteral("--cert-file") << m_tls->certFile << QStringLiteral("--key-file")
                 << m_tls->keyFile;
        }
        return args;
    }

    // Starts member i (again, on the same ports and data after a kill).
    bool start(int i, QString* error) {
        Member& m = m_members[static_cast<std::size_t>(i)];
        m.process = std::make_unique<QProcess>();
        m.process->setProcessChannelMode(QProcess::MergedChannels);
        m.process->setStandardOutputFile(logFile(i), QIODevice::Append);
        // Killed with the test (a ctest timeout sends SIGKILL, which no destructor sees).
        m.process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
        m.process->start(m_binary, arguments(i));
        if (!m.process->waitForStarted(10000)) {
            *error = QStringLiteral("cannot start etcd: ") + m.process->errorString();
            return false;
        }
        return true;
    }
    bool startAll(QString* error) {
        for (int i = 0; i < size(); ++i)
            if (!start(i, error))
                return false;
        return true;
    }

    // SIGKILL by PID, as a crash would.
    void kill(int i) {
        Member& m = m_members[static_cast<std::size_t>(i)];
        if (!m.process)
            return;
        if (m.process->state() != QProcess::NotRunning) {
            m.process->kill();
            m.process->waitForFinished(10000);
        }
        m.process.reset();
    }
    bool running(int i) const {
        const Member& m = member(i);
        return m.process && m.process->state() == QProcess::Running;
    }

    EtcdConnectOptions connectOptions(const QStringList& urls = {}) const {
        EtcdConnectOptions o;
        o.endpoints = urls.isEmpty() ? clientUrls() : urls;
        if (m_tls)
            o.tls.caFile = m_tls->caFile;
        o.rpcTimeout = std::chrono::milliseconds(3000);
        return o;
    }

    // Polls Status (short sleeps) until every running member answers with a leader elected.
    bool waitReady(int timeoutMs, QString* error) {
        QElapsedTimer t;
        t.start();
        for (;;) {
            bool all = true;
            for (int i = 0; i < size() && all; ++i) {
                if (!running(i))
                    continue;
                EtcdClient c(connectOptions({clientUrl(i)}));
                const auto st = c.status(error);
                all = st && st->leader != 0;
            }
            if (all)
                return true;
            if (t.elapsed() > timeoutMs)
                return false;
            QThread::msleep(50);
        }
    }

private:
    QString m_binary = etcdBinary();
    std::optional<EtcdTls> m_tls;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::vector<Member> m_members;
};

// A throwaway CA and a server certificate for 127.0.0.1, made with openssl in dir.
inline bool makeTls(const QString& dir, const QString& tag, EtcdTls* out, QString* error) {
    auto run = [&](const QStringList& args) {
        QProcess p;
        p.setWorkingDirectory(dir);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("openssl"), args);
        if (!p.waitForFinished(30000) || p.exitCode() != 0) {
            *error = QStringLiteral("openssl %1 failed: %2")
                         .arg(args.value(0), QString::fromLocal8Bit(p.readAll()).simplified());
            return false;
        }
        return true;
    };
    const QString ca = tag + QStringLiteral("-ca");
    const QString srv = tag + QStringLiteral("-server");
    QFile ext(dir + QLatin1Char('/') + tag + QStringLiteral("-ext.cnf"));
    if (!ext.open(QIODevice::WriteOnly))
        return false;
    ext.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
              "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
    ext.close();
    if (!run({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
              "/CN=watchscope-test-" + ca, "-keyout", ca + ".key", "-out", ca + ".pem"}))
        return false;
    if (!run({"req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout",
              srv + ".key", "-out", srv + ".csr"}))
        return false;
    if (!run({"x509", "-req", "-in", srv + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
              "-CAcreateserial", "-days", "2", "-extfile", tag + "-ext.cnf", "-out", srv + ".pem"}))
        return false;
    out->caFile = dir + QLatin1Char('/') + ca + QStringLiteral(".pem");
    out->certFile = dir + QLatin1Char('/') + srv + QStringLiteral(".pem");
    out->keyFile = dir + QLatin1Char('/') + srv + QStringLiteral(".key");
    return true;
}

} // namespace ws::test

// For the tests that run real etcd: skip without the binary; start every member and wait until
// each answers (a ceiling, not a delay: they are usually ready in a second).
#define REQUIRE_ETCD()                                                                             \
    if (ws::test::etcdBinary().isEmpty())                                                          \
    QSKIP("etcd binary not found (/usr/bin/etcd from Debian's etcd-server, or WS_ETCD_BINARY)")

#define START_CLUSTER(cluster)                                                                     \
    do {                                                                                           \
        QString startError;                                                                        \
        QVERIFY2((cluster).startAll(&startError), qPrintable(startError));                         \
        QVERIFY2((cluster).waitReady(90000, &startError), qPrintable(startError));                 \
    } while (0)
