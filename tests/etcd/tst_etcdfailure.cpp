#include "sources/etcd/EtcdClient.h"

#include <QTest>
#include <grpcpp/support/status.h>

using namespace ws;

// What a user reads when etcd cannot be reached: the endpoint and a cause that points at the
// real problem (a TLS hint only where TLS is in play).
class TestEtcdFailure : public QObject {
    Q_OBJECT
private slots:
    void describe_data() {
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("cause");
        const int unavailable = grpc::StatusCode::UNAVAILABLE;
        QTest::newRow("refused") << "http://127.0.0.1:1" << unavailable
                                 << "failed to connect to all addresses; last error: UNKNOWN: "
                                    "ipv4:127.0.0.1:1: Failed to connect to remote host: "
                                    "Connection refused"
                                 << "connection refused";
        // gRPC's words for a refused plain port under load: not a TLS problem.
        QTest::newRow("tcp handshaker, http")
            << "http://127.0.0.1:1" << unavailable
            << "failed to connect to all addresses; last error: UNAVAILABLE: "
               "ipv4:127.0.0.1:1: tcp handshaker shutdown"
            << "could not connect";
        QTest::newRow("handshake, https")
            << "https://127.0.0.1:2379" << unavailable
            << "failed to connect to all addresses; last error: UNAVAILABLE: "
               "ipv4:127.0.0.1:2379: Ssl handshake failed: SSL_ERROR_SSL"
            << "TLS handshake failed (check the CA, client certificate and key)";
        QTest::newRow("plain client, TLS server")
            << "http://127.0.0.1:2379" << unavailable << "Socket closed"
            << "the server closed the connection (does it expect https?)";
        QTest::newRow("deadline") << "http://10.0.0.1:2379"
                                  << int(grpc::StatusCode::DEADLINE_EXCEEDED) << "Deadline Exceeded"
                                  << "no answer in time";
        QTest::newRow("denied") << "https://127.0.0.1:2379"
                                << int(grpc::StatusCode::PERMISSION_DENIED)
                                << "etcdserver: permission denied"
                                << "access denied";
    }
    void describe() {
        QFETCH(QString, endpoint);
        QFETCH(int, code);
        QFETCH(QString, message);
        QFETCH(QString, cause);
        const QString line = EtcdClient::describeFailure(endpoint, code, message.toStdString());
        QVERIFY2(line.startsWith(QStringLiteral("etcd at %1: %2").arg(endpoint, cause)),
                 qPrintable(line));
        QVERIFY(!line.contains(QLatin1Char('\n')));
    }
};

QTEST_GUILESS_MAIN(TestEtcdFailure)
#include "tst_etcdfailure.moc"
