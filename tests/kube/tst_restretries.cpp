// client-go's REST-layer retries (kube/RestRetries.h): which answers and failures a LIST page and
// a WATCH send again, after how long, and how many times for each client-go release.
#include "kube/ClientProfile.h"
#include "kube/RestRetries.h"
#include "support/ProfileByName.h"

#include <QTest>

using namespace ws;
using ws::test::clientProfile;

namespace {

// Answers the same status until the REST layer gives it to the caller: the retries it made.
int retriesOf(RestRetries& rest, int httpStatus, std::optional<int> retryAfter) {
    while (rest.afterAnswer(httpStatus, retryAfter)) {
        if (rest.made() > 100)
            qFatal("never gives up");
    }
    return rest.made();
}

} // namespace

class TestRestRetries : public QObject {
    Q_OBJECT
private slots:
    void limitsPerRelease_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<int>("listRetries");
        QTest::addColumn<int>("watchRetries");
        QTest::newRow("0.17 lists 9 times, never a watch") << "0.17" << 9 << 0;
        QTest::newRow("0.18.9 lists 9 times") << "0.18.9" << 9 << 0;
        QTest::newRow("0.19.1 lists 10 times") << "0.19.1" << 10 << 0;
        QTest::newRow("0.21 still no watch retries") << "0.21" << 10 << 0;
        QTest::newRow("0.22 retries watches 10 times") << "0.22" << 10 << 10;
        QTest::newRow("0.35") << "0.35" << 10 << 10;
    }
    void limitsPerRelease() {
        QFETCH(QString, client);
        QFETCH(int, listRetries);
        QFETCH(int, watchRetries);
        const ClientProfile profile = ::clientProfile(qPrintable(client));
        RestRetries rest;
        rest.start(profile, RestRetries::Call::ListPage);
        QCOMPARE(retriesOf(rest, 504, 1), listRetries);
        rest.start(profile, RestRetries::Call::Watch);
        QCOMPARE(retriesOf(rest, 504, 1), watchRetries);
        // A new request starts its count over.
        rest.start(profile, RestRetries::Call::ListPage);
        QCOMPARE(rest.made(), 0);
        QVERIFY(rest.afterAnswer(429, 1).has_value());
    }

    // checkWait: a Retry-After makes a 429 or a 5xx worth sending again, nothing else.
    void retryAfterAnswers_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("retryAfter"); // -1: no header
        QTest::addColumn<qint64>("waitUs");  // -1: the caller gets the answer
        QTest::newRow("504 too large RV, Retry-After 1") << 504 << 1 << qint64(1000000);
        QTest::newRow("429 initializing, Retry-After 7") << 429 << 7 << qint64(7000000);
        QTest::newRow("500 with Retry-After 0: at once") << 500 << 0 << qint64(0);
        QTest::newRow("504 without Retry-After") << 504 << -1 << qint64(-1);
        QTest::newRow("429 without Retry-After") << 429 << -1 << qint64(-1);
        QTest::newRow("410 Expired with Retry-After") << 410 << 1 << qint64(-1);
        QTest::newRow("403 with Retry-After") << 403 << 3 << qint64(-1);
    }
    void retryAfterAnswers() {
        QFETCH(int, status);
        QFETCH(int, retryAfter);
        QFETCH(qint64, waitUs);
        for (const auto call : {RestRetries::Call::ListPage, RestRetries::Call::Watch}) {
            RestRetries rest;
            rest.start(clientProfile("0.35"), call);
            const auto wait = rest.afterAnswer(
                status, retryAfter < 0 ? std::nullopt : std::optional<int>(retryAfter));
            QCOMPARE(wait.has_value(), waitUs >= 0);
            if (wait)
                QCOMPARE(*wait, TimeUs(waitUs));
            QCOMPARE(rest.made(), waitUs >= 0 ? 1 : 0);
        }
    }

    // A GET retries a closed connection; a WATCH a closed connection or a timeout; neither a
    // refused connection or a TLS failure. Each after 1 s.
    void failures_data() {
        QTest::addColumn<int>("call");
        QTest::addColumn<int>("failure");
        QTest::addColumn<bool>("retried");
        using C = RestRetries::Call;
        using F = RestRetries::Failure;
        QTest::newRow("list, reset") << int(C::ListPage) << int(F::ConnectionClosed) << true;
        QTest::newRow("list, timeout") << int(C::ListPage) << int(F::Timeout) << false;
        QTest::newRow("list, refused") << int(C::ListPage) << int(F::Other) << false;
        QTest::newRow("watch, reset") << int(C::Watch) << int(F::ConnectionClosed) << true;
        QTest::newRow("watch, timeout") << int(C::Watch) << int(F::Timeout) << true;
        QTest::newRow("watch, refused") << int(C::Watch) << int(F::Other) << false;
    }
    void failures() {
        QFETCH(int, call);
        QFETCH(int, failure);
        QFETCH(bool, retried);
        RestRetries rest;
        rest.start(clientProfile("0.35"), RestRetries::Call(call));
        const auto wait = rest.afterFailure(RestRetries::Failure(failure));
        QCOMPARE(wait.has_value(), retried);
        if (wait)
            QCOMPARE(*wait, seconds(1));
        // 0.21 sends no watch twice, whatever failed.
        rest.start(clientProfile("0.21"), RestRetries::Call(call));
        QCOMPARE(rest.afterFailure(RestRetries::Failure(failure)).has_value(),
                 retried && RestRetries::Call(call) == RestRetries::Call::ListPage);
    }

    // Answers and failures share one request's budget.
    void answersAndFailuresShareTheLimit() {
        RestRetries rest;
        rest.start(clientProfile("0.35"), RestRetries::Call::Watch);
        for (int i = 0; i < 5; ++i) {
            QVERIFY(rest.afterFailure(RestRetries::Failure::ConnectionClosed));
            QVERIFY(rest.afterAnswer(504, 1));
        }
        QCOMPARE(rest.made(), 10);
        QVERIFY(!rest.afterFailure(RestRetries::Failure::ConnectionClosed));
        QVERIFY(!rest.afterAnswer(504, 1));
        QCOMPARE(rest.made(), 10);
    }
};

QTEST_GUILESS_MAIN(TestRestRetries)
#include "tst_restretries.moc"
