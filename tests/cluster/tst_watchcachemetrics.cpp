// A kube-apiserver's /metrics read for its watch caches (sources/cluster/metrics): the
// Prometheus text format 0.0.4 with its escapes, special values, histograms and garbage lines;
// the watch-cache families per resource under the {resource} (≤1.33), storage-prefix (1.31-1.33)
// and {group,resource} (1.34+) label schemes.
#include "sources/cluster/metrics/CacheResourceVersion.h"
#include "sources/cluster/metrics/PrometheusTextParser.h"
#include "sources/cluster/metrics/WatchCacheMetrics.h"

#include <QElapsedTimer>
#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace ws;

namespace {

// NaN for an absent value, so QCOMPARE against a number fails on it.
double v(const std::optional<double>& o) {
    return o ? *o : std::nan("");
}

// A 1.30 server: {resource} labels holding GroupResource.String(), watch events by kind, a
// histogram, other families with group/resource labels that are not the watch cache's, escapes.
const std::string kBody130 =
    R"(# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1",le="0.005"} 1520
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1",le="0.025"} 1530
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1",le="+Inf"} 1533
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 4.215400000000001
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 1533
# HELP apiserver_admission_webhook_rejection_count [ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation.
# TYPE apiserver_admission_webhook_rejection_count counter
apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="policy.example.com \"strict\" \\ deny\nsecond line",operation="CREATE",rejection_code="400",type="validating"} 3
# HELP apiserver_storage_objects [STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.
# TYPE apiserver_storage_objects gauge
apiserver_storage_objects{resource="configmaps"} 42
apiserver_storage_objects{resource="crontabs.stable.example.com"} 3
apiserver_storage_objects{resource="deployments.apps"} 7
apiserver_storage_objects{resource="events"} -1
apiserver_storage_objects{resource="pods"} 150
# HELP apiserver_terminated_watchers_total [ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.
# TYPE apiserver_terminated_watchers_total counter
apiserver_terminated_watchers_total{resource="pods"} 2
# HELP apiserver_watch_cache_events_dispatched_total [ALPHA] Counter of events dispatched in watch cache broken by resource type.
# TYPE apiserver_watch_cache_events_dispatched_total counter
apiserver_watch_cache_events_dispatched_total{resource="configmaps"} 1234
apiserver_watch_cache_events_dispatched_total{resource="deployments.apps"} 56
apiserver_watch_cache_events_dispatched_total{resource="pods"} 98765

# HELP apiserver_watch_cache_events_received_total [ALPHA] Counter of events received in watch cache broken by resource type.
# TYPE apiserver_watch_cache_events_received_total counter
apiserver_watch_cache_events_received_total{resource="configmaps"} 1240
apiserver_watch_cache_events_received_total{resource="deployments.apps"} 56
apiserver_watch_cache_events_received_total{resource="pods"} 1.23456e+06
# HELP apiserver_watch_cache_initializations_total [ALPHA] Counter of watch cache initializations broken by resource type.
# TYPE apiserver_watch_cache_initializations_total counter
apiserver_watch_cache_initializations_total{resource="configmaps"} 1
apiserver_watch_cache_initializations_total{resource="pods"} 3
# HELP apiserver_watch_cache_read_wait_seconds [ALPHA] Histogram of time spent waiting for a watch cache to become fresh.
# TYPE apiserver_watch_cache_read_wait_seconds histogram
apiserver_watch_cache_read_wait_seconds_bucket{resource="pods",le="0.005"} 10
apiserver_watch_cache_read_wait_seconds_bucket{resource="pods",le="0.025"} 11
apiserver_watch_cache_read_wait_seconds_bucket{resource="pods",le="3"} 12
apiserver_watch_cache_read_wait_seconds_bucket{resource="pods",le="+Inf"} 12
apiserver_watch_cache_read_wait_seconds_sum{resource="pods"} 0.4375
apiserver_watch_cache_read_wait_seconds_count{resource="pods"} 12
# HELP apiserver_watch_cache_resource_version [ALPHA] Current resource version of watch cache broken by resource type.
# TYPE apiserver_watch_cache_resource_version gauge
apiserver_watch_cache_resource_version{resource="configmaps"} 1.2345678e+07
apiserver_watch_cache_resource_version{resource="pods"} 1.2345699e+07
# HELP apiserver_watch_events_total [ALPHA] Number of events sent in watch clients
# TYPE apiserver_watch_events_total counter
apiserver_watch_events_total{group="",kind="Pod",version="v1"} 4.5e+06
apiserver_watch_events_total{group="apps",kind="Deployment",version="v1"} 120
apiserver_watch_events_total{group="apps",kind="Deployment",version="v1beta2"} 5
# HELP etcd_bookmark_counts [ALPHA] Number of etcd bookmarks (progress notify events) split by kind.
# TYPE etcd_bookmark_counts gauge
etcd_bookmark_counts{resource="configmaps"} 17
etcd_bookmark_counts{resource="pods"} 20
# HELP kubernetes_build_info [ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.
# TYPE kubernetes_build_info gauge
kubernetes_build_info{build_date="2024-06-11T20:20:18Z",compiler="gc",git_commit="39683505b630ff2121012f3c5b16215a1449d5ed",git_tree_state="clean",git_version="v1.30.2",go_version="go1.22.4",major="1",minor="30",platform="linux/amd64"} 1
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.71812345678e+09
# HELP watch_cache_capacity [ALPHA] Total capacity of watch cache broken by resource type.
# TYPE watch_cache_capacity gauge
watch_cache_capacity{resource="configmaps"} 100
watch_cache_capacity{resource="deployments.apps"} 100
watch_cache_capacity{resource="pods"} 1600
# HELP watch_cache_capacity_decrease_total [ALPHA] Total number of watch cache capacity decrease events broken by resource type.
# TYPE watch_cache_capacity_decrease_total counter
watch_cache_capacity_decrease_total{resource="pods"} 0
# HELP watch_cache_capacity_increase_total [ALPHA] Total number of watch cache capacity increase events broken by resource type.
# TYPE watch_cache_capacity_increase_total counter
watch_cache_capacity_increase_total{resource="pods"} 4
)";

// 1.31-1.33: consistent reads and consistency checks labelled with the storage prefix.
const std::string kBody132 =
    R"(# HELP apiserver_storage_consistency_checks_total [INTERNAL] Counter for status of consistency checks between etcd and watch cache
# TYPE apiserver_storage_consistency_checks_total counter
apiserver_storage_consistency_checks_total{resource="/pods",status="success"} 12
apiserver_storage_consistency_checks_total{resource="/stable.example.com/crontabs",status="failure"} 1
# HELP apiserver_watch_cache_consistent_read_total [ALPHA] Counter for consistent reads from cache.
# TYPE apiserver_watch_cache_consistent_read_total counter
apiserver_watch_cache_consistent_read_total{fallback="false",resource="/deployments",success="true"} 9
apiserver_watch_cache_consistent_read_total{fallback="false",resource="/minions",success="true"} 40
apiserver_watch_cache_consistent_read_total{fallback="false",resource="/pods",success="true"} 250
apiserver_watch_cache_consistent_read_total{fallback="true",resource="/pods",success="false"} 1
apiserver_watch_cache_consistent_read_total{fallback="true",resource="/pods",success="true"} 3
apiserver_watch_cache_consistent_read_total{fallback="false",resource="/services/specs",success="true"} 6
# HELP watch_cache_capacity [ALPHA] Total capacity of watch cache broken by resource type.
# TYPE watch_cache_capacity gauge
watch_cache_capacity{resource="crontabs.stable.example.com"} 100
watch_cache_capacity{resource="deployments.apps"} 200
watch_cache_capacity{resource="nodes"} 400
watch_cache_capacity{resource="pods"} 1600
)";

// 1.34: {group,resource}; watch events by resource; apiserver_resource_objects.
const std::string kBody134 =
    R"(# HELP apiserver_resource_objects [ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.
# TYPE apiserver_resource_objects gauge
apiserver_resource_objects{group="",resource="configmaps"} 42
apiserver_resource_objects{group="apps",resource="deployments"} 7
# HELP apiserver_storage_consistency_checks_total [ALPHA] Counter for status of consistency checks between etcd and watch cache
# TYPE apiserver_storage_consistency_checks_total counter
apiserver_storage_consistency_checks_total{group="apps",resource="deployments",status="failure"} 1
apiserver_storage_consistency_checks_total{group="apps",resource="deployments",status="success"} 11
apiserver_storage_consistency_checks_total{group="",resource="configmaps",status="error"} 2
# HELP apiserver_storage_objects [STABLE] [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.
# TYPE apiserver_storage_objects gauge
apiserver_storage_objects{resource="configmaps"} 42
apiserver_storage_objects{resource="deployments.apps"} 7
# HELP apiserver_terminated_watchers_total [ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.
# TYPE apiserver_terminated_watchers_total counter
apiserver_terminated_watchers_total{group="",resource="configmaps"} 1
# HELP apiserver_watch_cache_consistent_read_total [ALPHA] Counter for consistent reads from cache.
# TYPE apiserver_watch_cache_consistent_read_total counter
apiserver_watch_cache_consistent_read_total{fallback="false",group="",resource="configmaps",success="true"} 250
apiserver_watch_cache_consistent_read_total{fallback="true",group="",resource="configmaps",success="true"} 4
# HELP apiserver_watch_cache_events_dispatched_total [ALPHA] Counter of events dispatched in watch cache broken by resource type.
# TYPE apiserver_watch_cache_events_dispatched_total counter
apiserver_watch_cache_events_dispatched_total{group="",resource="configmaps"} 1234
apiserver_watch_cache_events_dispatched_total{group="apps",resource="deployments"} 56
apiserver_watch_cache_events_dispatched_total{group="stable.example.com",resource="crontabs"} 8
# HELP apiserver_watch_cache_read_wait_seconds [ALPHA] Histogram of time spent waiting for a watch cache to become fresh.
# TYPE apiserver_watch_cache_read_wait_seconds histogram
apiserver_watch_cache_read_wait_seconds_bucket{group="",resource="configmaps",le="0.005"} 3
apiserver_watch_cache_read_wait_seconds_bucket{group="",resource="configmaps",le="+Inf"} 5
apiserver_watch_cache_read_wait_seconds_sum{group="",resource="configmaps"} 1.25
apiserver_watch_cache_read_wait_seconds_count{group="",resource="configmaps"} 5
# HELP apiserver_watch_cache_resource_version [ALPHA] Current resource version of watch cache broken by resource type. This is truncated to the 15 least significant digits.
# TYPE apiserver_watch_cache_resource_version gauge
apiserver_watch_cache_resource_version{group="",resource="configmaps"} 9.87654321e+08
apiserver_watch_cache_resource_version{group="apps",resource="deployments"} 9.87654322e+08
# HELP apiserver_watch_events_total [ALPHA] Number of events sent in watch clients
# TYPE apiserver_watch_events_total counter
apiserver_watch_events_total{group="apps",resource="deployments",version="v1"} 120
apiserver_watch_events_total{group="apps",resource="deployments",version="v1beta2"} 5
# HELP etcd_bookmark_counts [ALPHA] Number of etcd bookmarks (progress notify events) split by kind.
# TYPE etcd_bookmark_counts gauge
etcd_bookmark_counts{group="",resource="configmaps"} 17
# HELP watch_cache_capacity [ALPHA] Total capacity of watch cache broken by resource type.
# TYPE watch_cache_capacity gauge
watch_cache_capacity{group="",resource="configmaps"} 200
watch_cache_capacity{group="apps",resource="deployments"} 100
watch_cache_capacity{group="stable.example.com",resource="crontabs"} 100
)";

// Lines no parser should accept, each with a good line after it that must still count.
const char* const kGarbage[] = {
    "this is not a metric",
    "<html><body>502 Bad Gateway</body></html>",
    "watch_cache_capacity{resource=\"pods} 1",
    "watch_cache_capacity{resource=\"pods\"} notanumber",
    "watch_cache_capacity{resource=\"pods\"} 1 2 3",
    "watch_cache_capacity{resource=\"pods\"} 1 12.5",
    "watch_cache_capacity{resource=\"pods\",resource=\"nodes\"} 1",
    "watch_cache_capacity{resource=\"a\\tb\"} 1",
    "watch_cache_capacity{9resource=\"pods\"} 1",
    "watch_cache_capacity{resource:x=\"pods\"} 1",
    "watch_cache_capacity{resource=pods} 1",
    "watch_cache_capacity{resource=\"pods\"",
    "watch_cache_capacity{resource=\"pods\" 1",
    "watch_cache_capacity{resource=\"pods\"}",
    "watch_cache_capacity",
    "watch_cache_capacity-1 2",
    "9lives 1",
    "watch_cache_capacity{,} 1",
    "watch_cache_capacity{resource=\"pods\"} +-1",
    "watch_cache_capacity{resource=\"pods\"} 1e999",
    "watch_cache_capacity{resource=\"pods\\",
    "# TYPE watch_cache_capacity gaugey",
    "# TYPE watch_cache_capacity gauge extra",
    "# HELP",
    "# TYPE 1bad counter",
    "{\"kind\":\"Status\",\"code\":403}",
};

std::string bigBody(int targetBytes, int* cacheResources) {
    // Shaped like a busy apiserver's: mostly request-latency histograms with many labels.
    static const char* const kBuckets[] = {
        "0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1",  "1.25", "1.5", "2",
        "3",     "4",     "5",    "6",   "8",   "10",  "15",  "20",  "30", "45",   "60",  "+Inf"};
    static const char* const kVerbs[] = {"GET", "LIST", "WATCH", "PUT", "PATCH", "POST", "DELETE"};
    std::string out;
    out.reserve(std::size_t(targetBytes) + 100000);
    out += "# HELP watch_cache_capacity [ALPHA] Total capacity of watch cache broken by resource "
           "type.\n# TYPE watch_cache_capacity gauge\n";
    constexpr int kResources = 300;
    for (int r = 0; r < kResources; ++r)
        out += "watch_cache_capacity{group=\"group" + std::to_string(r % 7) +
               ".example.com\",resource=\"things" + std::to_string(r) + "\"} " +
               std::to_string(100 * (r % 5 + 1)) + "\n";
    out += "# HELP apiserver_watch_cache_events_dispatched_total [ALPHA] Counter of events "
           "dispatched in watch cache broken by resource type.\n# TYPE "
           "apiserver_watch_cache_events_dispatched_total counter\n";
    for (int r = 0; r < kResources; ++r)
        out += "apiserver_watch_cache_events_dispatched_total{group=\"group" +
               std::to_string(r % 7) + ".example.com\",resource=\"things" + std::to_string(r) +
               "\"} " + std::to_string(r * 1000) + "\n";
    *cacheResources = kResources;
    out += "# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in "
           "seconds for each verb, dry run value, group, version, resource, subresource, scope "
           "and component.\n# TYPE apiserver_request_duration_seconds histogram\n";
    for (int r = 0; int(out.size()) < targetBytes; ++r) {
        const std::string labels = "component=\"apiserver\",dry_run=\"\",group=\"group" +
                                   std::to_string(r % 7) + ".example.com\",resource=\"things" +
                                   std::to_string(r) + "\",scope=\"namespace\",subresource=\"\"," +
                                   "verb=\"" + kVerbs[r % 7] + "\",version=\"v1\"";
        int cumulative = 0;
        for (const char* le : kBuckets) {
            cumulative += r % 13 + 1;
            out += "apiserver_request_duration_seconds_bucket{" + labels + ",le=\"" + le + "\"} " +
                   std::to_string(cumulative) + "\n";
        }
        out += "apiserver_request_duration_seconds_sum{" + labels + "} " + std::to_string(r) +
               ".0625\n";
        out += "apiserver_request_duration_seconds_count{" + labels + "} " +
               std::to_string(cumulative) + "\n";
    }
    return out;
}

} // namespace

class WatchCacheMetricsTest : public QObject {
    Q_OBJECT

private slots:
    void parsesSamplesLabelsAndFamilies() {
        const std::string body =
            "# HELP http_requests_total The total number of HTTP requests.\n"
            "# TYPE http_requests_total counter\n"
            "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"
            "http_requests_total{method=\"post\",code=\"400\"}    3 1395066363000\n"
            "\n"
            "# A normal comment.\n"
            "#\n"
            "msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find "
            "file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\n"
            "metric_without_timestamp_and_labels 12.47\n"
            "something_weird{problem=\"division by zero\"} +Inf -3982045\n"
            "   indented_sample\t{ a = \"1\" , b=\"2\", }\t-Inf  \r\n"
            "not_a_number NaN\n"
            "# HELP rpc_duration_seconds A summary of the RPC duration in seconds.\n"
            "# TYPE rpc_duration_seconds summary\n"
            "rpc_duration_seconds{quantile=\"0.01\"} 3102\n"
            "rpc_duration_seconds_sum 1.7560473e+07\n"
            "rpc_duration_seconds_count 2693\n"
            "# TYPE http_request_duration_seconds histogram\n"
            "http_request_duration_seconds_bucket{le=\"0.05\"} 24054\n"
            "http_request_duration_seconds_bucket{le=\"+Inf\"} 144320\n"
            "http_request_duration_seconds_sum 53423\n"
            "http_request_duration_seconds_count 144320\n"
            "recording:rule_name{} 2\n";
        QString error;
        const auto text = PrometheusTextParser::parseAll(body, &error);
        QVERIFY2(text, qPrintable(error));
        QCOMPARE(text->skippedLines, 0);
        QVERIFY(text->firstSkipped.isEmpty());
        QCOMPARE(int(text->samples.size()), 15);

        const PrometheusSample& first = text->samples[0];
        QCOMPARE(first.name, std::string("http_requests_total"));
        QCOMPARE(first.family, std::string("http_requests_total"));
        QVERIFY(first.type == PrometheusType::Counter);
        QCOMPARE(first.labels.size(), std::size_t(2));
        QCOMPARE(first.labels[0].first, std::string("method")); // written order kept
        QCOMPARE(*first.label("code"), std::string("200"));
        QVERIFY(!first.label("absent"));
        QCOMPARE(first.value, 1027.0);
        QCOMPARE(*first.timestampMs, std::int64_t(1395066363000));
        QCOMPARE(text->samples[1].value, 3.0);

        const PrometheusSample& dos = text->samples[2];
        QCOMPARE(*dos.label("path"), std::string("C:\\DIR\\FILE.TXT"));
        QCOMPARE(*dos.label("error"), std::string("Cannot find file:\n\"FILE.TXT\""));
        QCOMPARE(dos.value, 1.458255915e9);
        QVERIFY(!dos.timestampMs);
        QVERIFY(dos.type == PrometheusType::Untyped);

        QCOMPARE(text->samples[3].labels.size(), std::size_t(0));
        QCOMPARE(text->samples[4].value, std::numeric_limits<double>::infinity());
        QCOMPARE(*text->samples[4].timestampMs, std::int64_t(-3982045));
        const PrometheusSample& indented = text->samples[5];
        QCOMPARE(indented.name, std::string("indented_sample"));
        QCOMPARE(*indented.label("a"), std::string("1"));
        QCOMPARE(*indented.label("b"), std::string("2"));
        QCOMPARE(indented.value, -std::numeric_limits<double>::infinity());
        QVERIFY(std::isnan(text->samples[6].value));

        QCOMPARE(text->samples[7].family, std::string("rpc_duration_seconds"));
        QVERIFY(text->samples[7].type == PrometheusType::Summary);
        QCOMPARE(text->samples[8].family, std::string("rpc_duration_seconds"));
        QCOMPARE(text->samples[8].value, 1.7560473e+07);
        QCOMPARE(text->samples[9].family, std::string("rpc_duration_seconds"));
        for (int i = 10; i < 14; ++i) {
            QCOMPARE(text->samples[std::size_t(i)].family,
                     std::string("http_request_duration_seconds"));
            QVERIFY(text->samples[std::size_t(i)].type == PrometheusType::Histogram);
        }
        QCOMPARE(*text->samples[11].label("le"), std::string("+Inf"));
        QCOMPARE(text->samples[14].name, std::string("recording:rule_name"));

        QCOMPARE(int(text->families.size()), 3);
        QCOMPARE(text->families[0].help, std::string("The total number of HTTP requests."));
        QVERIFY(text->families[2].type == PrometheusType::Histogram);
        QVERIFY(text->families[2].help.empty());
    }

    void valuesAsGoWritesThem_data() {
        QTest::addColumn<QString>("token");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<double>("value");
        const double inf = std::numeric_limits<double>::infinity();
        QTest::newRow("int") << "42" << true << 42.0;
        QTest::newRow("negative") << "-1" << true << -1.0;
        QTest::newRow("plus") << "+3.5" << true << 3.5;
        QTest::newRow("exponent") << "1.23456e+06" << true << 1.23456e+06;
        QTest::newRow("small exponent") << "5e-05" << true << 5e-05;
        QTest::newRow("+Inf") << "+Inf" << true << inf;
        QTest::newRow("-Inf") << "-Inf" << true << -inf;
        QTest::newRow("Inf") << "Inf" << true << inf;
        QTest::newRow("leading dot") << ".5" << true << 0.5;
        QTest::newRow("max") << "1.7976931348623157e+308" << true
                             << std::numeric_limits<double>::max();
        QTest::newRow("overflow") << "1e999" << false << 0.0;
        QTest::newRow("word") << "one" << false << 0.0;
        QTest::newRow("plus minus") << "+-1" << false << 0.0;
        QTest::newRow("double plus") << "++1" << false << 0.0;
        QTest::newRow("trailing junk") << "12abc" << false << 0.0;
        QTest::newRow("lone plus") << "+" << false << 0.0;
    }
    void valuesAsGoWritesThem() {
        QFETCH(QString, token);
        QFETCH(bool, ok);
        QFETCH(double, value);
        const std::string body = "m " + token.toStdString() + "\nok 1\n";
        PrometheusTextParser parser;
        std::vector<double> values;
        QVERIFY(
            parser.parse(body, [&](const PrometheusSampleView& s) { values.push_back(s.value); }));
        QCOMPARE(parser.skippedLines(), ok ? 0 : 1);
        QCOMPARE(int(values.size()), ok ? 2 : 1);
        if (ok)
            QCOMPARE(values[0], value);
    }

    void skipsAndCountsGarbageLines() {
        std::string body = "# TYPE watch_cache_capacity gauge\n";
        int good = 0;
        for (const char* line : kGarbage) {
            body += line;
            body += "\nwatch_cache_capacity{resource=\"r" + std::to_string(good) + "\"} " +
                    std::to_string(good) + "\n";
            ++good;
        }
        PrometheusTextParser parser;
        int seen = 0;
        QVERIFY2(parser.parse(body,
                              [&](const PrometheusSampleView& s) {
                                  QCOMPARE(s.name, std::string_view("watch_cache_capacity"));
                                  QCOMPARE(*s.label("resource"), "r" + std::to_string(seen));
                                  QCOMPARE(s.value, double(seen));
                                  ++seen;
                              }),
                 qPrintable(parser.error()));
        QCOMPARE(seen, good);
        QCOMPARE(parser.samples(), good);
        QCOMPARE(parser.skippedLines(), int(std::size(kGarbage)));
        QVERIFY2(parser.firstSkipped().startsWith(QStringLiteral("line 2: ")),
                 qPrintable(parser.firstSkipped()));
        QVERIFY(parser.firstSkipped().contains(QStringLiteral("this is not a metric")));
        // The bad TYPE lines were rejected whole: the family stays a gauge.
        QVERIFY(parser.family("watch_cache_capacity")->type == PrometheusType::Gauge);
    }

    void secondHelpOrTypeIsSkipped() {
        const std::string body = "# HELP a first\n# HELP a second\n# TYPE a counter\n"
                                 "# TYPE a gauge\na 1\n";
        PrometheusTextParser parser;
        QVERIFY(parser.parse(body, {}));
        QCOMPARE(parser.skippedLines(), 2);
        QCOMPARE(parser.family("a")->help, std::string("first"));
        QVERIFY(parser.family("a")->type == PrometheusType::Counter);
        QCOMPARE(parser.samples(), 1);
    }

    void helpEscapes() {
        const std::string body =
            "# HELP m A \\\\ backslash, a \\n newline, and \\t kept as written\n# TYPE m gauge\n";
        PrometheusTextParser parser;
        QVERIFY(parser.parse(body, {})); // declarations alone are the format
        QCOMPARE(parser.family("m")->help,
                 std::string("A \\ backslash, a \n newline, and \\t kept as written"));
        QCOMPARE(parser.samples(), 0);
    }

    void rejectsWhatIsNotMetrics() {
        const std::string html = "<!DOCTYPE html>\n<html><head><title>502 Bad "
                                 "Gateway</title></head>\n<body>nginx</body></html>\n";
        PrometheusTextParser parser;
        QVERIFY(!parser.parse(html, {}));
        QVERIFY2(parser.error().contains(QStringLiteral("line 1")), qPrintable(parser.error()));
        QVERIFY(parser.error().contains(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY(!PrometheusTextParser::parseAll(
            R"({"kind":"Status","apiVersion":"v1","status":"Failure","code":403})", nullptr));
        QVERIFY(!parser.parse("# just a comment\n# and another\n", {}));
        QVERIFY(parser.error().contains(QStringLiteral("only comments")));

        // Nothing at all is an empty exposition, not an error.
        QVERIFY(parser.parse("", {}));
        QVERIFY(parser.parse("\n \n\t\n", {}));
        QCOMPARE(parser.samples(), 0);

        QString warning;
        const WatchCacheMetrics m = WatchCacheMetrics::fromText(html, &warning);
        QVERIFY(!m.isValid());
        QVERIFY(warning.contains(QStringLiteral("not the Prometheus text format")));
        QVERIFY(m.resources().isEmpty());
    }

    void neverCrashesOnMangledBodies() {
        // Truncated anywhere, bytes flipped anywhere: lines are skipped, nothing else happens
        // (the sanitizer builds watch the memory).
        std::mt19937 random(7);
        PrometheusTextParser parser;
        for (int round = 0; round < 400; ++round) {
            std::string body = kBody130 + kBody134;
            const std::size_t cut = random() % body.size();
            body.resize(cut);
            for (int k = 0; k < 20 && !body.empty(); ++k)
                body[random() % body.size()] = char(random() % 256);
            int samples = 0;
            parser.parse(body, [&](const PrometheusSampleView& s) {
                ++samples;
                QVERIFY(!s.name.empty());
            });
            QCOMPARE(parser.samples(), samples);
            QString warning;
            WatchCacheMetrics::fromText(body, &warning);
        }
        std::string noise(4096, '\0');
        for (char& c : noise)
            c = char(random() % 256);
        parser.parse(noise, {});
    }

    void reads130Body() {
        QString warning = QStringLiteral("stale");
        const WatchCacheMetrics m = WatchCacheMetrics::fromText(kBody130, &warning);
        QVERIFY(m.isValid());
        QVERIFY2(warning.isEmpty(), qPrintable(warning));
        QCOMPARE(m.skippedLines(), 0);
        QVERIFY(m.labelScheme() == MetricLabelScheme::Resource);
        // leases appear only in request metrics: not a watch-cache resource.
        QCOMPARE(m.resources(), (QStringList{"configmaps", "crontabs.stable.example.com",
                                             "deployments.apps", "events", "pods"}));

        const ResourceCacheMetrics* pods = m.find(QStringLiteral("pods"));
        QVERIFY(pods);
        QCOMPARE(pods->resource, QStringLiteral("pods"));
        QCOMPARE(v(pods->capacity), 1600.0);
        QCOMPARE(v(pods->resourceVersion), 12345699.0);
        QCOMPARE(v(pods->eventsDispatched), 98765.0);
        QCOMPARE(v(pods->eventsReceived), 1234560.0);
        QCOMPARE(v(pods->capacityIncreases), 4.0);
        QVERIFY(pods->capacityDecreases.has_value());
        QCOMPARE(*pods->capacityDecreases, 0.0); // a present 0
        QCOMPARE(v(pods->terminatedWatchers), 2.0);
        QCOMPARE(v(pods->initializations), 3.0);
        QCOMPARE(v(pods->storageObjects), 150.0);
        QCOMPARE(v(pods->bookmarkCounts), 20.0);
        QCOMPARE(v(pods->readWaitCount), 12.0);
        QCOMPARE(v(pods->readWaitSum), 0.4375);
        QVERIFY(!pods->consistentReadSuccess); // ConsistentListFromCache not in this server
        QVERIFY(!pods->watchEvents);           // labelled by kind in 1.30
        QVERIFY(pods->consistencyChecks.isEmpty());

        const ResourceCacheMetrics* deployments = m.find(QStringLiteral("deployments.apps"));
        QVERIFY(deployments);
        QCOMPARE(m.find(QStringLiteral("deployments")), deployments); // the one group of it
        QCOMPARE(v(deployments->capacity), 100.0);
        QCOMPARE(v(deployments->eventsDispatched), 56.0);
        QCOMPARE(v(deployments->storageObjects), 7.0);
        QVERIFY(!deployments->capacityIncreases);
        QVERIFY(!deployments->resourceVersion);

        const ResourceCacheMetrics* configmaps = m.find(QStringLiteral("configmaps"));
        QCOMPARE(v(configmaps->resourceVersion), 12345678.0);
        QCOMPARE(v(configmaps->bookmarkCounts), 17.0);
        QCOMPARE(v(m.find(QStringLiteral("events"))->storageObjects), -1.0);
        QVERIFY(!m.find(QStringLiteral("events"))->capacity);
        QVERIFY(!m.find(QStringLiteral("leases.coordination.k8s.io")));
        QVERIFY(!m.find(QStringLiteral("secrets")));
        QVERIFY(!m.find(QString()));

        QCOMPARE(m.watchEventsByKind().value(QStringLiteral("Pod")), 4.5e6);
        QCOMPARE(m.watchEventsByKind().value(QStringLiteral("Deployment.apps")), 125.0);
        QCOMPARE(m.watchEventsByKind().size(), 2);
    }

    void readsStoragePrefixLabels() {
        const WatchCacheMetrics m = WatchCacheMetrics::fromText(kBody132, nullptr);
        QVERIFY(m.labelScheme() == MetricLabelScheme::Resource);
        QCOMPARE(m.resources(), (QStringList{"crontabs.stable.example.com", "deployments.apps",
                                             "nodes", "pods", "services"}));
        const ResourceCacheMetrics* pods = m.find(QStringLiteral("pods"));
        QCOMPARE(v(pods->capacity), 1600.0);
        QCOMPARE(v(pods->consistentReadSuccess), 253.0);
        QCOMPARE(v(pods->consistentReadFailure), 1.0);
        QCOMPARE(v(pods->consistentReadFallback), 4.0);
        QCOMPARE(pods->consistencyChecks.value(QStringLiteral("success")), 12.0);
        // "/deployments" has no group: it joins deployments.apps, the body's one deployments.
        const ResourceCacheMetrics* deployments = m.find(QStringLiteral("deployments.apps"));
        QCOMPARE(v(deployments->capacity), 200.0);
        QCOMPARE(v(deployments->consistentReadSuccess), 9.0);
        QCOMPARE(v(deployments->consistentReadFailure), 0.0);
        QCOMPARE(v(deployments->consistentReadFallback), 0.0);
        // "/minions" is where nodes are stored; "/services/specs" services.
        QCOMPARE(v(m.find(QStringLiteral("nodes"))->consistentReadSuccess), 40.0);
        QCOMPARE(v(m.find(QStringLiteral("nodes"))->capacity), 400.0);
        QCOMPARE(v(m.find(QStringLiteral("services"))->consistentReadSuccess), 6.0);
        const ResourceCacheMetrics* crontabs =
            m.find(QStringLiteral("crontabs.stable.example.com"));
        QCOMPARE(crontabs->consistencyChecks.value(QStringLiteral("failure")), 1.0);
        QCOMPARE(v(crontabs->capacity), 100.0);
    }

    void reads134Body() {
        QString warning;
        const WatchCacheMetrics m = WatchCacheMetrics::fromText(kBody134, &warning);
        QVERIFY(warning.isEmpty());
        QVERIFY(m.labelScheme() == MetricLabelScheme::GroupResource);
        QCOMPARE(m.resources(),
                 (QStringList{"configmaps", "crontabs.stable.example.com", "deployments.apps"}));
        const ResourceCacheMetrics* configmaps = m.find(QStringLiteral("configmaps"));
        QCOMPARE(v(configmaps->capacity), 200.0);
        QCOMPARE(v(configmaps->resourceVersion), 987654321.0);
        QCOMPARE(v(configmaps->eventsDispatched), 1234.0);
        QCOMPARE(v(configmaps->terminatedWatchers), 1.0);
        QCOMPARE(v(configmaps->storageObjects), 42.0);
        QCOMPARE(v(configmaps->bookmarkCounts), 17.0);
        QCOMPARE(v(configmaps->consistentReadSuccess), 254.0);
        QCOMPARE(v(configmaps->consistentReadFailure), 0.0);
        QCOMPARE(v(configmaps->consistentReadFallback), 4.0);
        QCOMPARE(v(configmaps->readWaitCount), 5.0);
        QCOMPARE(v(configmaps->readWaitSum), 1.25);
        QCOMPARE(configmaps->consistencyChecks.value(QStringLiteral("error")), 2.0);
        QVERIFY(!configmaps->eventsReceived);

        const ResourceCacheMetrics* deployments = m.find(QStringLiteral("deployments.apps"));
        QCOMPARE(v(deployments->capacity), 100.0);
        QCOMPARE(v(deployments->watchEvents), 125.0); // v1 + v1beta2
        QCOMPARE(v(deployments->storageObjects), 7.0);
        QCOMPARE(deployments->consistencyChecks.size(), 2);
        QCOMPARE(deployments->consistencyChecks.value(QStringLiteral("failure")), 1.0);
        QCOMPARE(deployments->consistencyChecks.value(QStringLiteral("success")), 11.0);
        QCOMPARE(v(m.find(QStringLiteral("crontabs"))->eventsDispatched), 8.0);
        QVERIFY(m.watchEventsByKind().isEmpty());
    }

    // DetectCacheInconsistency's failures, scrape to scrape: what the cluster source reports as
    // cache-inconsistent (ClusterFrameConsumer).
    void consistencyFailuresSinceTheLastScrape() {
        QString warning;
        const WatchCacheMetrics first = WatchCacheMetrics::fromText(kBody134, &warning);
        QVERIFY(first.isValid());
        // First scrape: the deployments failure already counted; configmaps has only errors.
        auto rises = first.consistencyFailuresSince(nullptr);
        QCOMPARE(rises.size(), std::size_t(1));
        QCOMPARE(rises[0].resource, QStringLiteral("deployments.apps"));
        QCOMPARE(rises[0].before, 0.0);
        QCOMPARE(rises[0].now, 1.0);
        // The same counts again: nothing new.
        QVERIFY(first.consistencyFailuresSince(&first).empty());
        // A second failure for deployments, a first for configmaps (absent from the first).
        const std::string later = "apiserver_storage_consistency_checks_total{group=\"apps\","
                                  "resource=\"deployments\",status=\"failure\"} 2\n"
                                  "apiserver_storage_consistency_checks_total{group=\"\","
                                  "resource=\"configmaps\",status=\"failure\"} 1\n"
                                  "apiserver_storage_consistency_checks_total{group=\"\","
                                  "resource=\"pods\",status=\"success\"} 3\n";
        const WatchCacheMetrics second = WatchCacheMetrics::fromText(later, &warning);
        QVERIFY(second.isValid());
        rises = second.consistencyFailuresSince(&first);
        QCOMPARE(rises.size(), std::size_t(2));
        QCOMPARE(rises[0].resource, QStringLiteral("configmaps"));
        QCOMPARE(rises[0].before, 0.0);
        QCOMPARE(rises[1].resource, QStringLiteral("deployments.apps"));
        QCOMPARE(rises[1].before, 1.0);
        QCOMPARE(rises[1].now, 2.0);
        // A restarted apiserver counts from 0 again: lower is not a failure.
        QVERIFY(first.consistencyFailuresSince(&second).empty());
    }

    void bookmarkTotalAndMixedSchemes() {
        // 1.36 renamed etcd_bookmark_counts; two servers' bodies glued together are Mixed.
        const std::string body = "etcd_bookmark_total{group=\"apps\",resource=\"deployments\"} 9\n"
                                 "watch_cache_capacity{resource=\"pods\"} 100\n";
        const WatchCacheMetrics m = WatchCacheMetrics::fromText(body, nullptr);
        QVERIFY(m.labelScheme() == MetricLabelScheme::Mixed);
        QCOMPARE(v(m.find(QStringLiteral("deployments.apps"))->bookmarkCounts), 9.0);
        // Only the storage-object gauge: it never changed labels, so it tells no scheme.
        const WatchCacheMetrics objects = WatchCacheMetrics::fromText(
            "apiserver_storage_objects{resource=\"pods\"} 3\n", nullptr);
        QVERIFY(objects.labelScheme() == MetricLabelScheme::None);
        QCOMPARE(v(objects.find(QStringLiteral("pods"))->storageObjects), 3.0);
    }

    void ambiguousOrUnlabelledSamples() {
        const std::string body =
            "watch_cache_capacity{group=\"apps\",resource=\"deployments\"} 100\n"
            "watch_cache_capacity{group=\"extensions\",resource=\"deployments\"} 200\n"
            "watch_cache_capacity 5\n"                // no resource: ignored
            "watch_cache_capacity{resource=\"\"} 6\n" // empty resource: ignored
            "apiserver_watch_cache_consistent_read_total{fallback=\"false\",resource="
            "\"/deployments\",success=\"true\"} 3\n" // ambiguous: stays deployments
            "apiserver_terminated_watchers_total{resource=\"*core.Pod\"} 2\n"; // a Go type
        const WatchCacheMetrics m = WatchCacheMetrics::fromText(body, nullptr);
        QCOMPARE(m.resources(), (QStringList{"*core.Pod", "deployments", "deployments.apps",
                                             "deployments.extensions"}));
        QCOMPARE(v(m.find(QStringLiteral("deployments"))->consistentReadSuccess), 3.0);
        QVERIFY(!m.find(QStringLiteral("deployments"))->capacity);
        QCOMPARE(v(m.find(QStringLiteral("deployments.extensions"))->capacity), 200.0);
        QCOMPARE(v(m.find(QStringLiteral("*core.Pod"))->terminatedWatchers), 2.0);

        // Without the exact key, a bare plural with two groups finds nothing.
        const WatchCacheMetrics two = WatchCacheMetrics::fromText(
            "watch_cache_capacity{group=\"apps\",resource=\"deployments\"} 100\n"
            "watch_cache_capacity{group=\"extensions\",resource=\"deployments\"} 200\n",
            nullptr);
        QVERIFY(!two.find(QStringLiteral("deployments")));
    }

    void warnsAboutSkippedLinesAndKeepsTheRest() {
        std::string body = kBody130;
        const std::size_t at = body.find("# HELP watch_cache_capacity ");
        body.insert(at, "watch_cache_capacity{resource=\"pods\" 99\ngarbage here\n");
        QString warning;
        const WatchCacheMetrics m = WatchCacheMetrics::fromText(body, &warning);
        QVERIFY(m.isValid());
        QCOMPARE(m.skippedLines(), 2);
        QVERIFY2(warning.startsWith(QStringLiteral("2 malformed")), qPrintable(warning));
        QVERIFY(warning.contains(QStringLiteral("label")));
        QCOMPARE(v(m.find(QStringLiteral("pods"))->capacity), 1600.0);
        QCOMPARE(m.resources().size(), 5);
    }

    void fiveMegabytesQuickly() {
        int cacheResources = 0;
        const std::string body = bigBody(5 << 20, &cacheResources);
        QVERIFY(body.size() >= std::size_t(5) << 20);
        // Warm up once (page faults, allocator), then take the best of three.
        WatchCacheMetrics m = WatchCacheMetrics::fromText(body, nullptr);
        qint64 best = std::numeric_limits<qint64>::max();
        for (int i = 0; i < 3; ++i) {
            QElapsedTimer timer;
            timer.start();
            QString warning;
            m = WatchCacheMetrics::fromText(body, &warning);
            best = std::min(best, timer.nsecsElapsed());
            QVERIFY(warning.isEmpty());
        }
        qInfo("%.1f MB parsed in %.1f ms, %d samples", double(body.size()) / 1e6,
              double(best) / 1e6, m.samples());
        QCOMPARE(m.resources().size(), cacheResources);
        QCOMPARE(v(m.find(QStringLiteral("things299.group5.example.com"))->eventsDispatched),
                 299000.0);
        QVERIFY(m.samples() > 20000);
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
        QVERIFY2(best < 100'000'000, "parsing a 5 MB /metrics body got slow");
#endif
    }

    // A body the client stopped reading at its size limit: the cut sample is never read (it
    // would be a wrong number), nor the rest of its family; the families before it are kept,
    // and the warning says where it was cut.
    void cutBodyKeepsWholeFamilies() {
        const std::string whole =
            "# HELP apiserver_storage_objects [STABLE] Number of stored objects.\n"
            "# TYPE apiserver_storage_objects gauge\n"
            "apiserver_storage_objects{resource=\"configmaps\"} 42\n"
            "apiserver_storage_objects{resource=\"pods\"} 7\n"
            "# HELP apiserver_watch_cache_resource_version [ALPHA] Current resource version.\n"
            "# TYPE apiserver_watch_cache_resource_version gauge\n"
            "apiserver_watch_cache_resource_version{resource=\"configmaps\"} 1.2345678e+07\n"
            "apiserver_watch_cache_resource_version{resource=\"pods\"} 1.2345699e+07\n";
        const std::string cut = whole.substr(0, whole.find("1.2345699e+07") + 6); // "1.2345"
        QString warning;
        const WatchCacheMetrics m = WatchCacheMetrics::fromCutText(cut, &warning);
        QVERIFY(m.isValid());
        QCOMPARE(v(m.find(QStringLiteral("configmaps"))->storageObjects), 42.0);
        QCOMPARE(v(m.find(QStringLiteral("pods"))->storageObjects), 7.0);
        QVERIFY(!m.find(QStringLiteral("configmaps"))->resourceVersion);
        QVERIFY(!m.find(QStringLiteral("pods"))->resourceVersion);
        QVERIFY2(warning.contains(QStringLiteral("cut at %1 bytes").arg(cut.size())),
                 qPrintable(warning));
        QVERIFY2(warning.contains(
                     QLatin1String("families from apiserver_watch_cache_resource_version on")),
                 qPrintable(warning));
        // Read as if whole, the cut sample would be a wrong RV.
        QCOMPARE(v(WatchCacheMetrics::fromText(cut, nullptr)
                       .find(QStringLiteral("pods"))
                       ->resourceVersion),
                 1.2345);

        // Cut right after a line: that family may have had more lines, it goes too.
        const std::string atLine = whole.substr(0, whole.find("apiserver_storage_objects{"
                                                              "resource=\"pods\"}"));
        QCOMPARE(std::string(PrometheusTextParser::wholeFamilies(atLine)), std::string());
        // Without HELP or TYPE lines only the cut line goes.
        QCOMPARE(std::string(PrometheusTextParser::wholeFamilies("a 1\nb 2\nc 3")),
                 std::string("a 1\nb 2\n"));
        QCOMPARE(std::string(PrometheusTextParser::wholeFamilies(whole)),
                 whole.substr(0, whole.find("# HELP apiserver_watch_cache_resource_version")));
    }

    // kubernetes_feature_enabled{name,stage}: every gate of that server, on or off.
    void featureGatesFromTheBody() {
        const std::string body =
            "# HELP kubernetes_feature_enabled [BETA] This metric records the data about the "
            "stage and enablement of a k8s feature.\n"
            "# TYPE kubernetes_feature_enabled gauge\n"
            "kubernetes_feature_enabled{name=\"WatchList\",stage=\"BETA\"} 0\n"
            "kubernetes_feature_enabled{name=\"DetectCacheInconsistency\",stage=\"BETA\"} 1\n"
            "kubernetes_feature_enabled{name=\"AllAlpha\",stage=\"ALPHA\"} 0\n"
            "kubernetes_feature_enabled{stage=\"BETA\"} 1\n";
        const WatchCacheMetrics m = WatchCacheMetrics::fromText(body, nullptr);
        QVERIFY(m.isValid());
        QCOMPARE(m.featureGates().size(), 3);
        QCOMPARE(m.featureGates().value(QStringLiteral("WatchList"), true), false);
        QCOMPARE(m.featureGates().value(QStringLiteral("DetectCacheInconsistency")), true);
        QVERIFY(m.resources().isEmpty());
    }

    // apiserver_watch_cache_resource_version is a float64: exact below 2^53 up to 1.35, and
    // RV % 10^15 from 1.36, whose lost digits come from an RV the client received.
    void cacheRvFromTheMetric() {
        QCOMPARE(cacheRvFromMetric(12345678, 31, 0), std::optional<ResourceVersion>(12345678));
        QCOMPARE(cacheRvFromMetric(12345678, 36, 12345000),
                 std::optional<ResourceVersion>(12345678));
        // 2^53 and above is rounded: refused.
        QCOMPARE(cacheRvFromMetric(9007199254740992.0, 35, 9007199254740000),
                 std::optional<ResourceVersion>());
        QCOMPARE(cacheRvFromMetric(9007199254740991.0, 35, 0),
                 std::optional<ResourceVersion>(9007199254740991));
        // 1.36: the remainder near what the informers saw, across a 10^15 boundary either way.
        const ResourceVersion big = 7000000000000123; // 7 * 10^15 + 123
        QCOMPARE(cacheRvFromMetric(130, 36, big), std::optional<ResourceVersion>(big + 7));
        QCOMPARE(cacheRvFromMetric(999999999999990.0, 36, big),
                 std::optional<ResourceVersion>(6999999999999990));
        QCOMPARE(cacheRvFromMetric(5, 36, 6999999999999995),
                 std::optional<ResourceVersion>(7000000000000005));
        // Nothing to take the digits from, or not a remainder at all: refused.
        QCOMPARE(cacheRvFromMetric(130, 36, 0), std::optional<ResourceVersion>());
        QCOMPARE(cacheRvFromMetric(1e15, 36, big), std::optional<ResourceVersion>());
        QCOMPARE(cacheRvFromMetric(1.5, 31, 0), std::optional<ResourceVersion>());
        QCOMPARE(cacheRvFromMetric(-1, 31, 0), std::optional<ResourceVersion>());
        QCOMPARE(cacheRvFromMetric(std::nan(""), 31, 0), std::optional<ResourceVersion>());
        // Version unknown: below 10^15 it may be a remainder, above it cannot be.
        QCOMPARE(cacheRvFromMetric(130, -1, big), std::optional<ResourceVersion>(big + 7));
        QCOMPARE(cacheRvFromMetric(2e15, -1, 0), std::optional<ResourceVersion>(2000000000000000));
    }
};

QTEST_GUILESS_MAIN(WatchCacheMetricsTest)
#include "tst_watchcachemetrics.moc"
