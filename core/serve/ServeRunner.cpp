#include "ServeRunner.h"

#include "ApiHandler.h"
#include "HttpServer.h"
#include "ServeMetrics.h"
#include "ServedCluster.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <sys/resource.h>

namespace ws {

namespace net = boost::asio;

int ServeRunner::run(const ServeOptions& options, const std::function<void(const QString&)>& out,
                     const std::function<void(const QString&)>& fail) {
    // Every watch is a socket: thousands of watchers need more than the default 1024 files.
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    QString error;
    auto cluster = ServedCluster::create(options, &error);
    if (!cluster) {
        fail(error);
        return 2;
    }
    if (!cluster->warning().isEmpty())
        fail(cluster->warning()); // one line on stderr; serve goes on from the lines before it
    net::io_context io(1);
    const QString host =
        options.listenHost.contains(u':') ? u'[' + options.listenHost + u']' : options.listenHost;
    ApiHandler handler(*cluster, options, {});
    HttpServer server(io, options, handler);
    if (!server.listen(&error)) {
        fail(error);
        return 2;
    }
    if (const QString w = options.exposureWarning(); !w.isEmpty())
        fail(QStringLiteral("warning: ") + w);
    handler.setServerAddress(QStringLiteral("%1:%2").arg(host).arg(server.port()).toStdString());
    ServeMetrics metrics(*cluster, handler);
    handler.setMetricsRenderer([&metrics] { return metrics.render(); });
    if (!options.stateDir.isEmpty())
        out(QStringLiteral("store in %1: %2")
                .arg(options.stateDir,
                     cluster->restoredRevisions() > 0
                         ? QStringLiteral("restored %1 revisions, now at revision %2, compacted "
                                          "to %3; watch caches start empty")
                               .arg(cluster->restoredRevisions())
                               .arg(cluster->etcd().currentRevision())
                               .arg(cluster->etcd().compactRevision())
                         : QStringLiteral("new, at revision %1")
                               .arg(cluster->etcd().currentRevision())));
    out(QStringLiteral("serving scenario %1 as kube-apiserver %2 (%3) on %4")
            .arg(cluster->scenario().name, cluster->profile().version, cluster->server().name(),
                 server.baseUrl()));

    int exitCode = 0;
    const auto start = std::chrono::steady_clock::now();
    net::steady_timer timer(io);
    std::function<void()> tick = [&] {
        const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
        const bool behind = cluster->advanceTo(elapsed, [&] { handler.pumpWatches(); });
        handler.pumpWatches();
        // Anomalies and samples of the served cluster's own detectors are not shown by serve:
        // drop them so a long run does not grow.
        cluster->pipeline().takeUpdate({}, false, elapsed);
        if (!cluster->failure().isEmpty()) {
            fail(cluster->failure());
            exitCode = 1;
            server.stop();
            io.stop();
            return;
        }
        if (cluster->finished()) {
            server.stop();
            io.stop();
            return;
        }
        // Behind: again as soon as the pending socket work has run.
        timer.expires_after(behind ? std::chrono::milliseconds(0) : std::chrono::milliseconds(10));
        timer.async_wait([&](const boost::system::error_code& ec) {
            if (!ec)
                tick();
        });
    };
    tick();
    net::signal_set stopSignals(io, SIGINT, SIGTERM);
    stopSignals.async_wait([&](const boost::system::error_code&, int) {
        server.stop();
        io.stop();
    });
    io.run();
    return exitCode;
}

} // namespace ws
