// WhatIfComparison on its own: a capture of a scenario replayed as recorded and under other
// versions. What it refuses is refused before either replay runs; a cancel ends it with
// "cancelled"; the counts line up by kind.
#include "engine/Session.h"
#include "sources/SourceFactory.h"
#include "whatif/WhatIfComparison.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ws;

class TestWhatIfComparison : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void refusedBeforeAnyReplay_data();
    void refusedBeforeAnyReplay();
    void cancelled();
    void kindsSideBySide();

private:
    SourceSpec captureSpec() const {
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Capture;
        spec.capture = m_capture;
        return spec;
    }

    QTemporaryDir m_dir;
    QString m_capture;
};

void TestWhatIfComparison::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_capture = m_dir.filePath(QStringLiteral("stale.wscap"));
    SourceSpec spec;
    spec.scenario.scenario = QStringLiteral("cacher-retry-stale-object");
    spec.scenario.speed = 0;
    spec.duration = seconds(60);
    SessionOutputs outputs;
    outputs.capturePath = m_capture;
    QString error;
    auto session = Session::prepared(SourceFactory::create(spec, &error), spec, outputs, &error);
    QVERIFY2(session, qPrintable(error));
    QVERIFY2(session->runHere({}, &error), qPrintable(error));
}

void TestWhatIfComparison::refusedBeforeAnyReplay_data() {
    QTest::addColumn<QString>("server");
    QTest::addColumn<QString>("clientGo");
    QTest::addColumn<QStringList>("gates");
    QTest::addColumn<QString>("error");
    QTest::newRow("nothing") << ""
                             << "" << QStringList() << "what if what?";
    QTest::newRow("bad version") << "1.99x"
                                 << "" << QStringList() << "bad server version '1.99x'";
    QTest::newRow("unmodelled version") << "1.15"
                                        << "" << QStringList() << "WatchScope models 1.16 to 1.36";
    QTest::newRow("unknown client-go")
        << ""
        << "0.99" << QStringList() << "unknown client-go profile '0.99'";
    QTest::newRow("unknown gate") << ""
                                  << "" << QStringList{QStringLiteral("Foo=true")}
                                  << "unknown gate 'Foo'";
    QTest::newRow("gate value") << ""
                                << "" << QStringList{QStringLiteral("WatchList=maybe")}
                                << "the value must be true or false";
}

void TestWhatIfComparison::refusedBeforeAnyReplay() {
    QFETCH(QString, server);
    QFETCH(QString, clientGo);
    QFETCH(QStringList, gates);
    QFETCH(QString, error);
    SourceSpec spec = captureSpec();
    spec.whatIf.serverVersion = server;
    spec.whatIf.clientGo = clientGo;
    spec.whatIf.featureGates = gates;
    int updates = 0;
    QString message;
    const auto result = WhatIfComparison::run(
        spec, {}, [&](int, TimeUs) { ++updates; }, nullptr, &message);
    QVERIFY(!result);
    QVERIFY2(message.contains(error), qPrintable(message));
    QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
    // Said at once: not after replaying the capture as recorded first.
    QCOMPARE(updates, 0);
}

void TestWhatIfComparison::cancelled() {
    SourceSpec spec = captureSpec();
    spec.whatIf.serverVersion = QStringLiteral("1.24");
    std::atomic<bool> cancel{false};
    int updates = 0;
    int lastRun = -1;
    QString message;
    const auto result = WhatIfComparison::run(
        spec, {},
        [&](int run, TimeUs) {
            ++updates;
            lastRun = run;
            cancel = true; // as if from another thread, at the first update
        },
        &cancel, &message);
    QVERIFY(!result);
    QCOMPARE(message, QStringLiteral("cancelled"));
    QCOMPARE(lastRun, 0); // the what-if replay never started
    QCOMPARE(updates, 1); // no progress after the cancel, however slow the machine
}

void TestWhatIfComparison::kindsSideBySide() {
    SourceSpec spec = captureSpec();
    spec.whatIf.serverVersion = QStringLiteral("1.24");
    QString message;
    std::vector<int> runsSeen;
    const auto result = WhatIfComparison::run(
        spec, {},
        [&](int run, TimeUs) {
            if (runsSeen.empty() || runsSeen.back() != run)
                runsSeen.push_back(run);
        },
        nullptr, &message);
    QVERIFY2(result, qPrintable(message));
    QCOMPARE(runsSeen, (std::vector<int>{0, 1})); // as recorded, then the what-if
    QCOMPARE(result->whatIfLabel, QStringLiteral("kube-apiserver 1.24"));
    const auto stale =
        std::find_if(result->kinds.begin(), result->kinds.end(), [](const WhatIfKindCount& k) {
            return k.kind == QLatin1String("stale-object");
        });
    QVERIFY(stale != result->kinds.end());
    QVERIFY(stale->recorded > 0);
    QCOMPARE(stale->whatIf, 0);
    QCOMPARE(stale->change(), QStringLiteral("gone"));
    qint64 recorded = 0, whatIf = 0;
    for (const WhatIfKindCount& k : result->kinds) {
        recorded += k.recorded;
        whatIf += k.whatIf;
    }
    QCOMPARE(recorded, qint64(result->recorded.size()));
    QCOMPARE(whatIf, qint64(result->whatIf.size()));
}

QTEST_GUILESS_MAIN(TestWhatIfComparison)
#include "tst_whatifcomparison.moc"
