// The /metrics writer of `serve` (serve/MetricsText): byte-exact lines as client_golang writes
// them, and everything it writes read back by the cluster source's parser unchanged.
#include "serve/MetricsText.h"
#include "sources/cluster/metrics/PrometheusTextParser.h"
#include "sources/cluster/metrics/WatchCacheMetrics.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

using namespace ws;

class MetricsTextTest : public QObject {
    Q_OBJECT

private slots:
    void writesTheExpositionFormat() {
        MetricsText m;
        m.family("watch_cache_capacity",
                 "[ALPHA] Total capacity of watch cache broken by resource type.",
                 MetricsText::Type::Gauge);
        m.sample("watch_cache_capacity", {{"group", ""}, {"resource", "configmaps"}}, 200);
        m.sample("watch_cache_capacity", {{"group", "apps"}, {"resource", "deployments"}}, 100);
        m.family("odd_help", "back\\slash and\nnewline \"quoted\"", MetricsText::Type::Counter);
        m.sample("odd_help", {{"v", "a\\b\"c\nd"}}, 1.5);
        m.sample("odd_help", {}, 0);
        m.family("h", "", MetricsText::Type::Histogram);
        m.sample("h_bucket", {{"le", MetricsText::number(0.005)}}, 1);
        m.sample("h_bucket", {{"le", MetricsText::number(INFINITY)}}, 2);
        m.family("u", "x", MetricsText::Type::Untyped);
        m.family("s", "y", MetricsText::Type::Summary);
        const QByteArray expected =
            "# HELP watch_cache_capacity [ALPHA] Total capacity of watch cache broken by "
            "resource type.\n"
            "# TYPE watch_cache_capacity gauge\n"
            "watch_cache_capacity{group=\"\",resource=\"configmaps\"} 200\n"
            "watch_cache_capacity{group=\"apps\",resource=\"deployments\"} 100\n"
            "# HELP odd_help back\\\\slash and\\nnewline \"quoted\"\n"
            "# TYPE odd_help counter\n"
            "odd_help{v=\"a\\\\b\\\"c\\nd\"} 1.5\n"
            "odd_help 0\n"
            "# HELP h \n"
            "# TYPE h histogram\n"
            "h_bucket{le=\"0.005\"} 1\n"
            "h_bucket{le=\"+Inf\"} 2\n"
            "# HELP u x\n# TYPE u untyped\n"
            "# HELP s y\n# TYPE s summary\n";
        QCOMPARE(m.text(), expected);
        m.clear();
        QVERIFY(m.text().isEmpty());
    }

    void numbersAsGoFormatsThem_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << 0.0 << "0";
        QTest::newRow("negative zero") << -0.0 << "0";
        QTest::newRow("one") << 1.0 << "1";
        QTest::newRow("minus one") << -1.0 << "-1";
        QTest::newRow("six digits") << 123456.0 << "123456";
        QTest::newRow("seven digits") << 1234567.0 << "1.234567e+06";
        QTest::newRow("million") << 1e6 << "1e+06";
        QTest::newRow("rv") << 12345678.0 << "1.2345678e+07";
        QTest::newRow("1e21") << 1e21 << "1e+21";
        QTest::newRow("fraction") << 0.005 << "0.005";
        QTest::newRow("1e-4") << 0.0001 << "0.0001";
        QTest::newRow("1e-5") << 0.00001 << "1e-05";
        QTest::newRow("shortest") << 0.1 + 0.2 << "0.30000000000000004";
        QTest::newRow("negative") << -2.5 << "-2.5";
        QTest::newRow("denormal") << 5e-324 << "5e-324";
        QTest::newRow("max") << std::numeric_limits<double>::max() << "1.7976931348623157e+308";
        QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN() << "NaN";
        QTest::newRow("+Inf") << std::numeric_limits<double>::infinity() << "+Inf";
        QTest::newRow("-Inf") << -std::numeric_limits<double>::infinity() << "-Inf";
    }
    void numbersAsGoFormatsThem() {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(MetricsText::number(value)), text);
    }

    void roundTripsThroughTheParser() {
        struct Row {
            std::string name;
            MetricsText::Labels labels;
            double value;
        };
        std::mt19937_64 random(11);
        std::vector<Row> rows = {
            {"plain", {}, 42},
            {"escapes",
             {{"q", "say \"hi\""}, {"b", "C:\\dir\\"}, {"n", "two\nlines"}, {"e", ""}},
             -0.5},
            {"utf8", {{"name", "pöd-€-😀"}, {"braces", "}{,=\" "}}, 7},
            {"specials", {{"k", "nan"}}, std::numeric_limits<double>::quiet_NaN()},
            {"specials", {{"k", "inf"}}, std::numeric_limits<double>::infinity()},
            {"specials", {{"k", "-inf"}}, -std::numeric_limits<double>::infinity()},
            {"colon:name", {{"_under", "x"}}, 5e-324},
        };
        for (int i = 0; i < 500; ++i) {
            // Any finite double: random bit patterns.
            double d;
            do
                d = std::bit_cast<double>(std::uint64_t(random()));
            while (!std::isfinite(d));
            rows.push_back({"random", {{"i", std::to_string(i)}}, d});
        }
        MetricsText m;
        m.family("escapes", "help with \\ and\nnewline", MetricsText::Type::Counter);
        for (const Row& r : rows)
            m.sample(r.name, r.labels, r.value);

        QString error;
        const auto text = PrometheusTextParser::parseAll(m.text().toStdString(), &error);
        QVERIFY2(text, qPrintable(error));
        QCOMPARE(text->skippedLines, 0);
        QCOMPARE(text->families.size(), std::size_t(1));
        QCOMPARE(text->families[0].help, std::string("help with \\ and\nnewline"));
        QCOMPARE(text->samples.size(), rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const PrometheusSample& s = text->samples[i];
            QCOMPARE(s.name, rows[i].name);
            QCOMPARE(s.labels, rows[i].labels);
            if (std::isnan(rows[i].value))
                QVERIFY(std::isnan(s.value));
            else // bit-exact: the shortest digits read back to the same double
                QCOMPARE(std::bit_cast<std::uint64_t>(s.value),
                         std::bit_cast<std::uint64_t>(rows[i].value));
            QVERIFY(!s.timestampMs);
        }
    }

    void watchCacheFamiliesReadBack_data() {
        QTest::addColumn<bool>("groupLabel");
        QTest::newRow("1.30 {resource}") << false;
        QTest::newRow("1.34 {group,resource}") << true;
    }
    void watchCacheFamiliesReadBack() {
        // What ServeMetrics writes for a served cluster, read back as the cluster source would.
        QFETCH(bool, groupLabel);
        const auto labels = [&](const std::string& group, const std::string& resource) {
            if (groupLabel)
                return MetricsText::Labels{{"group", group}, {"resource", resource}};
            return MetricsText::Labels{
                {"resource", group.empty() ? resource : resource + "." + group}};
        };
        MetricsText m;
        m.family("watch_cache_capacity",
                 "[ALPHA] Total capacity of watch cache broken by "
                 "resource type.",
                 MetricsText::Type::Gauge);
        m.sample("watch_cache_capacity", labels("", "configmaps"), 400);
        m.sample("watch_cache_capacity", labels("apps", "deployments"), 100);
        m.family("apiserver_watch_cache_resource_version",
                 "[ALPHA] Current resource version of watch cache broken by resource type.",
                 MetricsText::Type::Gauge);
        m.sample("apiserver_watch_cache_resource_version", labels("", "configmaps"), 98765432);
        m.family("apiserver_watch_cache_read_wait_seconds",
                 "[ALPHA] Histogram of time spent waiting for a watch cache to become fresh.",
                 MetricsText::Type::Histogram);
        for (const double le : {0.005, 0.025, 3.0, double(INFINITY)}) {
            MetricsText::Labels l = labels("", "configmaps");
            l.emplace_back("le", MetricsText::number(le));
            m.sample("apiserver_watch_cache_read_wait_seconds_bucket", l, 6);
        }
        m.sample("apiserver_watch_cache_read_wait_seconds_sum", labels("", "configmaps"), 0.75);
        m.sample("apiserver_watch_cache_read_wait_seconds_count", labels("", "configmaps"), 6);
        m.family("apiserver_watch_cache_consistent_read_total",
                 "[ALPHA] Counter for consistent reads from cache.", MetricsText::Type::Counter);
        MetricsText::Labels read = labels("apps", "deployments");
        read.emplace_back("fallback", "true");
        read.emplace_back("success", "true");
        m.sample("apiserver_watch_cache_consistent_read_total", read, 3);

        QString warning;
        const WatchCacheMetrics w = WatchCacheMetrics::fromText(m.text().toStdString(), &warning);
        QVERIFY2(warning.isEmpty(), qPrintable(warning));
        QVERIFY(w.labelScheme() ==
                (groupLabel ? MetricLabelScheme::GroupResource : MetricLabelScheme::Resource));
        QCOMPARE(w.resources(), (QStringList{"configmaps", "deployments.apps"}));
        const ResourceCacheMetrics* cm = w.find(QStringLiteral("configmaps"));
        QCOMPARE(cm->capacity.value_or(-1), 400.0);
        QCOMPARE(cm->resourceVersion.value_or(-1), 98765432.0);
        QCOMPARE(cm->readWaitCount.value_or(-1), 6.0);
        QCOMPARE(cm->readWaitSum.value_or(-1), 0.75);
        const ResourceCacheMetrics* deploy = w.find(QStringLiteral("deployments.apps"));
        QCOMPARE(deploy->capacity.value_or(-1), 100.0);
        QCOMPARE(deploy->consistentReadSuccess.value_or(-1), 3.0);
        QCOMPARE(deploy->consistentReadFallback.value_or(-1), 3.0);
        QCOMPARE(deploy->consistentReadFailure.value_or(-1), 0.0);
    }
};

QTEST_GUILESS_MAIN(MetricsTextTest)
#include "tst_metricstext.moc"
