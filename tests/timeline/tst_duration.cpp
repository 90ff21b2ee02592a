#include "util/Duration.h"

#include <QTest>
#include <limits>

using namespace ws;

class TestDuration : public QObject {
    Q_OBJECT

private slots:
    void parsesGoodInput_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("ms") << "500ms" << qint64(500'000);
        QTest::newRow("s") << "30s" << qint64(30'000'000);
        QTest::newRow("m") << "5m" << qint64(300'000'000);
        QTest::newRow("h") << "1h" << qint64(3'600'000'000);
        QTest::newRow("fractional s") << "1.5s" << qint64(1'500'000);
        QTest::newRow("0.1s is exact") << "0.1s" << qint64(100'000);
        QTest::newRow("fractional ms") << "0.25ms" << qint64(250);
        QTest::newRow("fractional h") << "0.5h" << qint64(1'800'000'000);
        QTest::newRow("leading dot") << ".5s" << qint64(500'000);
        QTest::newRow("zero") << "0s" << qint64(0);
        QTest::newRow("compound") << "1m30s" << qint64(90'000'000);
        QTest::newRow("compound with ms") << "1h2m3s4ms" << qint64(3'723'004'000);
        QTest::newRow("surrounding space") << "  30s\n" << qint64(30'000'000);
        QTest::newRow("sub-microsecond digits dropped") << "1.0000009s" << qint64(1'000'000);
        QTest::newRow("large") << "1000000h" << qint64(3'600'000'000'000'000);
    }

    void parsesGoodInput() {
        QFETCH(QString, text);
        QFETCH(qint64, expected);
        QString error = QStringLiteral("untouched");
        const auto parsed = parseDuration(text, &error);
        QVERIFY2(parsed.has_value(), qPrintable(error));
        QCOMPARE(*parsed, expected);
    }

    void rejectsBadInput_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        const QString expected = QStringLiteral(": expected a number followed by ms, s, m or h");
        QTest::newRow("unknown unit") << "30x"
                                      << "bad duration '30x'" + expected;
        QTest::newRow("empty") << ""
                               << "bad duration ''" + expected;
        QTest::newRow("blank") << "   "
                               << "bad duration ''" + expected;
        QTest::newRow("no unit") << "30"
                                 << "bad duration '30'" + expected;
        QTest::newRow("no number") << "s"
                                   << "bad duration 's'" + expected;
        QTest::newRow("dot only") << ".s"
                                  << "bad duration '.s'" + expected;
        QTest::newRow("garbage") << "soon"
                                 << "bad duration 'soon'" + expected;
        QTest::newRow("inner space") << "5 s"
                                     << "bad duration '5 s'" + expected;
        QTest::newRow("exponent") << "1e3s"
                                  << "bad duration '1e3s'" + expected;
        QTest::newRow("plus sign") << "+5s"
                                   << "bad duration '+5s'" + expected;
        QTest::newRow("upper-case unit") << "5S"
                                         << "bad duration '5S'" + expected;
        QTest::newRow("trailing garbage") << "5s!"
                                          << "bad duration '5s!'" + expected;
        QTest::newRow("microseconds") << "5us"
                                      << "bad duration '5us'" + expected;
        QTest::newRow("negative") << "-5s"
                                  << QStringLiteral("bad duration '-5s': must not be negative");
        QTest::newRow("too large")
            << "9999999999h" << QStringLiteral("bad duration '9999999999h': too large");
        QTest::newRow("too many digits")
            << "99999999999999999999s"
            << QStringLiteral("bad duration '99999999999999999999s': too large");
    }

    void rejectsBadInput() {
        QFETCH(QString, text);
        QFETCH(QString, error);
        QString got;
        QVERIFY(!parseDuration(text, &got).has_value());
        QCOMPARE(got, error);
        QVERIFY(!parseDuration(text, nullptr).has_value()); // error is optional
    }

    void formats_data() {
        QTest::addColumn<qint64>("duration");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << "0s";
        QTest::newRow("ms") << qint64(500'000) << "500ms";
        QTest::newRow("sub-ms") << qint64(250) << "0.25ms";
        QTest::newRow("us") << qint64(1) << "0.001ms";
        QTest::newRow("s") << qint64(30'000'000) << "30s";
        QTest::newRow("fractional s") << qint64(1'500'000) << "1.5s";
        QTest::newRow("us in s") << qint64(1'000'001) << "1.000001s";
        QTest::newRow("m") << qint64(300'000'000) << "5m";
        QTest::newRow("m s") << qint64(90'000'000) << "1m30s";
        QTest::newRow("h") << qint64(3'600'000'000) << "1h";
        QTest::newRow("h m") << qint64(5'400'000'000) << "1h30m";
        QTest::newRow("h s") << qint64(3'605'000'000) << "1h0m5s";
        QTest::newRow("negative") << qint64(-1'500'000) << "-1.5s";
    }

    void formats() {
        QFETCH(qint64, duration);
        QFETCH(QString, text);
        QCOMPARE(formatDuration(duration), text);
        if (duration >= 0)
            QCOMPARE(parseDuration(text, nullptr).value_or(-1), duration);
    }

    void formatRoundTrips() {
        const TimeUs values[] = {1,
                                 999,
                                 1000,
                                 1001,
                                 999'999,
                                 1'000'000,
                                 59'999'999,
                                 60'000'000,
                                 61'234'567,
                                 3'599'999'999,
                                 3'600'000'001,
                                 86'400'000'000,
                                 123'456'789'012};
        for (const TimeUs v : values) {
            QString error;
            const auto parsed = parseDuration(formatDuration(v), &error);
            QVERIFY2(parsed.has_value(), qPrintable(error));
            QCOMPARE(*parsed, v);
        }
        QVERIFY(!formatDuration(std::numeric_limits<TimeUs>::min()).isEmpty());
        QVERIFY(!formatDuration(std::numeric_limits<TimeUs>::max()).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestDuration)
#include "tst_duration.moc"
