#include "charts/ChartData.h"
#include "charts/Decimation.h"
#include "charts/SeriesBuffer.h"

#include <QTest>
#include <cmath>

using namespace ws;

namespace {

QVector<QPointF> ramp(double fromMs, double stepMs, int n, double y0 = 0) {
    QVector<QPointF> out;
    for (int i = 0; i < n; ++i)
        out.append(QPointF(fromMs + i * stepMs, y0 + i));
    return out;
}

} // namespace

class TestChartData : public QObject {
    Q_OBJECT
private slots:
    void windowBoundedBySpan();
    void windowBoundedByCount();
    void lateSamplesDropped();
    void valueAt();
    void decimation_data();
    void decimation();
    void decimationKeepsSpikes();
    void chartDataPerResource();
};

void TestChartData::windowBoundedBySpan() {
    SeriesBuffer buffer({/*spanMs=*/1000, /*maxPoints=*/100000});
    buffer.append(ramp(0, 10, 500)); // 0 .. 4990 ms
    QCOMPARE(buffer.points().front().x(), 3990.0);
    QCOMPARE(buffer.last().x(), 4990.0);
    QCOMPARE(int(buffer.size()), 101);
}

void TestChartData::windowBoundedByCount() {
    SeriesBuffer buffer({/*spanMs=*/1e12, /*maxPoints=*/250});
    for (int i = 0; i < 100; ++i)
        buffer.append(ramp(i * 1000.0, 1, 1000));
    QCOMPARE(int(buffer.size()), 250);
    QCOMPARE(buffer.last().x(), 99999.0);
}

void TestChartData::lateSamplesDropped() {
    SeriesBuffer buffer;
    buffer.append({{10, 1}, {20, 2}});
    buffer.append({{15, 9}, {20, 3}, {30, 4}});
    QCOMPARE(int(buffer.size()), 4);
    QCOMPARE(buffer.points()[2], QPointF(20, 3));
}

void TestChartData::valueAt() {
    SeriesBuffer buffer;
    buffer.append({{10, 1}, {20, 2}, {30, 3}});
    double v = -1;
    QVERIFY(!buffer.valueAt(5, &v));
    QVERIFY(buffer.valueAt(10, &v));
    QCOMPARE(v, 1.0);
    QVERIFY(buffer.valueAt(25, &v));
    QCOMPARE(v, 2.0);
    QVERIFY(buffer.valueAt(99, &v));
    QCOMPARE(v, 3.0);
}

void TestChartData::decimation_data() {
    QTest::addColumn<int>("points");
    QTest::addColumn<double>("fromMs");
    QTest::addColumn<double>("toMs");
    QTest::addColumn<int>("columns");
    QTest::addColumn<int>("expected");

    // One point per ms from 0 to points-1.
    QTest::newRow("sparse: every point kept") << 50 << 0.0 << 49.0 << 800 << 50;
    QTest::newRow("sparse with edges") << 50 << 10.0 << 19.0 << 800 << 12;
    QTest::newRow("dense: two per column") << 100000 << 0.0 << 99999.0 << 800 << 1600;
    QTest::newRow("dense window in the middle") << 100000 << 20000.0 << 79999.0 << 500 << 1002;
    QTest::newRow("range before data") << 100 << -500.0 << -1.0 << 100 << 1;
    QTest::newRow("empty range after data") << 100 << 500.0 << 900.0 << 100 << 1;
}

void TestChartData::decimation() {
    QFETCH(int, points);
    QFETCH(double, fromMs);
    QFETCH(double, toMs);
    QFETCH(int, columns);
    QFETCH(int, expected);

    SeriesBuffer buffer({1e12, points});
    buffer.append(ramp(0, 1, points));
    const QList<QPointF> out = decimateMinMax(buffer, fromMs, toMs, columns);
    QCOMPARE(int(out.size()), expected);
    QVERIFY(out.size() <= 2 * columns + 3);
    for (int i = 1; i < out.size(); ++i)
        QVERIFY(out[i - 1].x() < out[i].x()); // still a function of time
}

void TestChartData::decimationKeepsSpikes() {
    SeriesBuffer buffer({1e12, 1000000});
    QVector<QPointF> pts = ramp(0, 1, 100000);
    for (QPointF& p : pts)
        p.setY(100);
    pts[31337].setY(5000);
    pts[77777].setY(-40);
    buffer.append(pts);
    const QList<QPointF> out = decimateMinMax(buffer, 0, 99999, 300, 1000.0);
    double hi = -1e9;
    double lo = 1e9;
    for (const QPointF& p : out) {
        hi = std::max(hi, p.y());
        lo = std::min(lo, p.y());
    }
    QCOMPARE(hi, 5000.0);
    QCOMPARE(lo, -40.0);
    QCOMPARE(out.last().x(), 99.999); // ms -> s
}

void TestChartData::chartDataPerResource() {
    ChartData data({1e12, 100});
    QCOMPARE(data.generation(QStringLiteral("pods")), quint64(0));
    data.apply({{QStringLiteral("pods"), QStringLiteral("head_rv"), ramp(0, 100, 10, 500)},
                {QStringLiteral("pods"), QStringLiteral("watcher_rv:a"), ramp(0, 100, 10, 400)},
                {QStringLiteral("configmaps"), QStringLiteral("head_rv"), ramp(0, 100, 5, 500)},
                {QStringLiteral("leases"), QStringLiteral("head_rv"), {}}});
    QCOMPARE(data.resources(), (QStringList{QStringLiteral("configmaps"), QStringLiteral("pods")}));
    QCOMPARE(data.seriesNames(QStringLiteral("pods")),
             (QStringList{QStringLiteral("head_rv"), QStringLiteral("watcher_rv:a")}));
    QCOMPARE(data.retainedPoints(), std::size_t(25));
    QCOMPARE(data.latestTimeMs(), 900.0);
    QVERIFY(data.generation(QStringLiteral("pods")) > 0);
    QVERIFY(!data.series(QStringLiteral("pods"), QStringLiteral("nope")));
    for (int i = 0; i < 100; ++i)
        data.apply({{QStringLiteral("pods"), QStringLiteral("head_rv"),
                     ramp(1000.0 + i * 1000, 10, 100)}});
    QCOMPARE(int(data.series(QStringLiteral("pods"), QStringLiteral("head_rv"))->size()), 100);
}

QTEST_MAIN(TestChartData)
#include "tst_chartdata.moc"
