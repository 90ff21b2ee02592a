// Fills a real etcd with N revisions of ~500 B Kubernetes-shaped values, then drains the whole
// history twice from the same etcd: `etcdctl watch --prefix --rev=1 --prev-kv -w json /` (stopped
// when its output reaches the head revision) and WatchScope's decoder + validator
// (EtcdSource: EtcdWatchStream -> frames -> EtcdFrameDecoder -> EtcdEventProcessor -> the
// pipeline's DetectorHub, polled as the session loop does). Prints CPU seconds (the child's rusage
// from wait4 for etcdctl, getrusage(RUSAGE_SELF) deltas for WatchScope) and wall time.
//
//   ws-bench-etcd [--revisions 500000] [--value-bytes 500] [--objects 5000] [--watch-cache]

#include "EtcdTestCluster.h"
#include "engine/Pipeline.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdSource.h"

#include <QCoreApplication>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <signal.h>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace ws;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(const timeval& tv) {
    return double(tv.tv_sec) + double(tv.tv_usec) / 1e6;
}
double cpuOf(const rusage& r) {
    return seconds(r.ru_utime) + seconds(r.ru_stime);
}

struct Row {
    std::string name;
    long long events = 0;
    double cpu = 0;
    double wall = 0;
    long maxRssMb = 0;
};

// etcdctl watch until a line carries "mod_revision":head. Returns false if it could not run.
bool runEtcdctl(const QString& endpoint, ResourceVersion head, Row* row, std::string* error) {
    int out[2];
    if (pipe(out) != 0) {
        *error = "pipe failed";
        return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    const std::string ep = "--endpoints=" + endpoint.toStdString();
    std::vector<std::string> args{"etcdctl",   ep,   "watch", "--prefix", "--rev=1",
                                  "--prev-kv", "-w", "json",  "/"};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envStore{"ETCDCTL_API=3"};
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "ETCDCTL_", 8) != 0)
            envStore.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : envStore)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    const auto start = Clock::now();
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, "etcdctl", &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    if (rc != 0) {
        *error = std::string("cannot run etcdctl: ") + std::strerror(rc);
        close(out[0]);
        return false;
    }
    const std::string needle = "\"mod_revision\":" + std::to_string(head) + ",";
    std::string tail;
    std::vector<char> buf(1 << 20);
    long long lines = 0;
    bool done = false;
    while (!done) {
        const ssize_t n = read(out[0], buf.data(), buf.size());
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; ++i)
            lines += buf[std::size_t(i)] == '\n';
        // Search the new bytes plus a short tail of the previous chunk.
        tail.append(buf.data(), std::size_t(n));
        if (tail.find(needle) != std::string::npos)
            done = true;
        if (tail.size() > needle.size())
            tail.erase(0, tail.size() - needle.size());
    }
    row->wall = std::chrono::duration<double>(Clock::now() - start).count();
    kill(pid, SIGTERM);
    close(out[0]);
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    row->cpu = cpuOf(ru);
    std::fprintf(stderr, "  etcdctl user %.3f s, sys %.3f s\n", seconds(ru.ru_utime),
                 seconds(ru.ru_stime));
    row->maxRssMb = ru.ru_maxrss / 1024;
    row->events = lines; // responses printed (one JSON line each)
    if (!done) {
        *error = "etcdctl ended before reaching the head revision";
        return false;
    }
    return true;
}

bool runWatchScope(const EtcdConnectOptions& connect, ResourceVersion head, bool watchCache,
                   Row* row) {
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    const auto start = Clock::now();
    Pipeline pipeline;
    EtcdSourceSpec spec;
    spec.endpoints = connect.endpoints;
    spec.caFile = connect.tls.caFile;
    spec.certFile = connect.tls.certFile;
    spec.keyFile = connect.tls.keyFile;
    spec.startRevision = 1;
    spec.watchCache = watchCache;
    EtcdSource source(spec, std::nullopt);
    QString error;
    if (!source.prepare(&error) || !source.open(pipeline, &error)) {
        std::fprintf(stderr, "ws-bench-etcd: %s\n", qPrintable(error));
        return false;
    }
    while (source.stats().lastRevision < head && source.failure().isEmpty()) {
        const TimeUs idle = source.poll(pipeline);
        if (idle > 0)
            std::this_thread::sleep_for(std::chrono::microseconds(idle));
    }
    row->wall = std::chrono::duration<double>(Clock::now() - start).count();
    source.close(pipeline);
    getrusage(RUSAGE_SELF, &after);
    row->cpu = cpuOf(after) - cpuOf(before);
    std::fprintf(stderr, "  WatchScope user %.3f s, sys %.3f s\n",
                 seconds(after.ru_utime) - seconds(before.ru_utime),
                 seconds(after.ru_stime) - seconds(before.ru_stime));
    row->maxRssMb = after.ru_maxrss / 1024;
    const EtcdProcessorStats st = source.stats();
    row->events = st.events;
    const qint64 anomalies = pipeline.anomalyStore().added(); // memory keeps the newest only
    if (anomalies > 0) {
        for (const Anomaly& a : pipeline.anomalies())
            std::fprintf(stderr, "anomaly: %s %s\n", qPrintable(kindName(a.kind)),
                         qPrintable(a.message));
    }
    std::fprintf(stderr,
                 "  WatchScope: %lld events, %lld revisions, %lld protobuf + %lld JSON values "
                 "decoded, %lld anomalies, %lld responses\n",
                 (long long)st.events, (long long)st.revisions, (long long)st.protobufValues,
                 (long long)st.jsonValues, (long long)anomalies, (long long)st.responses);
    return true;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    long long revisions = 500000;
    int valueBytes = 500;
    int objects = 5000;
    bool watchCache = false;
    bool skipEtcdctl = false;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--revisions") && i + 1 < args.size())
            revisions = args[++i].toLongLong();
        else if (args[i] == QLatin1String("--value-bytes") && i + 1 < args.size())
            valueBytes = args[++i].toInt();
        else if (args[i] == QLatin1String("--objects") && i + 1 < args.size())
            objects = args[++i].toInt();
        else if (args[i] == QLatin1String("--skip-etcdctl"))
            skipEtcdctl = true;
        else if (args[i] == QLatin1String("--watch-cache"))
            watchCache = true;
        else {
            std::fprintf(stderr, "ws-bench-etcd: unknown argument %s\n", qPrintable(args[i]));
            return 2;
        }
    }
    if (test::etcdBinary().isEmpty()) {
        std::fprintf(stderr, "ws-bench-etcd: etcd not found (install etcd-server)\n");
        return 2;
    }
    // tmpfs keeps etcd's fsyncs from dominating the fill.
    test::EtcdTestCluster cluster(
        1, std::nullopt,
        QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm") : QString());
    QString error;
    if (!cluster.startAll(&error) || !cluster.waitReady(30000, &error)) {
        std::fprintf(stderr, "ws-bench-etcd: %s\n", qPrintable(error));
        return 1;
    }
    const EtcdConnectOptions connect = cluster.connectOptions();

    std::fprintf(stderr, "filling etcd with %lld revisions of ~%d B values...\n", revisions,
                 valueBytes);
    const auto fillStart = Clock::now();
    EtcdLoadOptions lo;
    lo.connect = connect;
    lo.rate = 0;
    lo.duration = std::chrono::milliseconds(0);
    lo.maxWrites = revisions;
    lo.objects = objects;
    lo.valueBytes = valueBytes;
    lo.concurrency = 32;
    EtcdLoadGenerator load(lo);
    load.onProgress = [&](const EtcdLoadStats& s) {
        std::fprintf(stderr, "\r  %lld writes", (long long)s.writes());
    };
    if (!load.run(&error)) {
        std::fprintf(stderr, "ws-bench-etcd: %s\n", qPrintable(error));
        return 1;
    }
    EtcdClient client(connect);
    const auto st = client.status(&error);
    if (!st) {
        std::fprintf(stderr, "ws-bench-etcd: %s\n", qPrintable(error));
        return 1;
    }
    const ResourceVersion head = st->revision;
    std::fprintf(stderr, "\n  filled in %.1f s: head revision %lld, db %lld MB\n",
                 std::chrono::duration<double>(Clock::now() - fillStart).count(), (long long)head,
                 (long long)(st->dbSize >> 20));

    Row ctl{"etcdctl watch --prefix --rev=1 --prev-kv -w json /"};
    std::string err;
    std::fprintf(stderr, "draining with etcdctl...\n");
    if (!skipEtcdctl && !runEtcdctl(cluster.clientUrl(0), head, &ctl, &err)) {
        std::fprintf(stderr, "ws-bench-etcd: %s\n", err.c_str());
        return 1;
    }
    std::fprintf(stderr, "draining with WatchScope...\n");
    Row wsRow{watchCache ? "WatchScope decode + validate + watch cache"
                         : "WatchScope decode + validate"};
    runWatchScope(connect, head, watchCache, &wsRow);

    std::printf("\netcd 3.4.23, %lld revisions (head %lld), values ~%d B, %d objects\n\n",
                (long long)(head - 1), (long long)head, valueBytes, objects);
    std::printf("| %-52s | %10s | %8s | %8s | %9s |\n", "drain of the whole history", "CPU s",
                "wall s", "µs/rev", "max RSS MB");
    std::printf("|%s|%s|%s|%s|%s|\n", std::string(54, '-').c_str(), std::string(12, '-').c_str(),
                std::string(10, '-').c_str(), std::string(10, '-').c_str(),
                std::string(11, '-').c_str());
    for (const Row* r : {&ctl, &wsRow})
        std::printf("| %-52s | %10.2f | %8.2f | %8.2f | %9ld |\n", r->name.c_str(), r->cpu, r->wall,
                    r->cpu * 1e6 / double(head - 1), r->maxRssMb);
    const double ratio = ctl.cpu > 0 ? wsRow.cpu / ctl.cpu : 0;
    std::printf("\nWatchScope CPU / etcdctl CPU = %.3f (1/%.1f); target <= 0.200: %s\n", ratio,
                ratio > 0 ? 1 / ratio : 0, ratio <= 0.2 ? "met" : "NOT met");
    return 0;
}
