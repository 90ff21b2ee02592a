#include "ClusterProbe.h"

#include "ClusterTargets.h"
#include "discovery/ApiDiscovery.h"
#include "engine/FrameQueue.h"
#include "http/ClusterHttpTransport.h"
#include "http/HttpRequest.h"
#include "kube/ClientProfile.h"
#include "kubeconfig/ExecCredentialRunner.h"

#include <QElapsedTimer>
#include <QThread>
#include <memory>

namespace ws {

ClusterProbeResult ClusterProbe::run(const SourceSpec& spec, const std::atomic<bool>& cancelled,
                                     const QString& version, int timeoutMs) {
    ClusterProbeResult result;
    QString error;
    if (!spec.clientGo.isEmpty() && !ClientProfile::fromName(spec.clientGo, &error)) {
        result.error = QStringLiteral("client-go: %1").arg(error);
        return result;
    }
    auto targets = resolveClusterTargets(spec, &error);
    if (!targets) {
        result.error = error;
        return result;
    }
    QStringList where;
    for (const ClusterTarget& t : *targets)
        where << t.describe();
    result.description = where.join(QStringLiteral("; "));

    QElapsedTimer clock;
    clock.start();
    QElapsedTimer waited;
    waited.start();
    FrameQueue queue;
    auto runner = std::make_shared<ExecCredentialRunner>();
    std::vector<std::unique_ptr<ClusterHttpTransport>> transports;
    std::vector<std::unique_ptr<ApiDiscovery>> discoveries;
    int nextId = 1;
    // Stops the transports before the queue they push into goes away, whatever path returns;
    // draining once more orders their last pushes before it for ThreadSanitizer.
    struct StopAll {
        std::vector<std::unique_ptr<ClusterHttpTransport>>& transports;
        FrameQueue& queue;
        ~StopAll() {
            queue.release();
            for (auto& t : transports)
                t->stop();
            std::vector<Frame> rest;
            queue.drain(rest);
        }
    } stopAll{transports, queue};

    for (const ClusterTarget& t : *targets) {
        auto transport = std::make_unique<ClusterHttpTransport>(
            t, queue, [&clock] { return clock.nsecsElapsed() / 1000; },
            credentialProviderFor(t, runner), version);
        if (!transport->start(&error)) {
            result.error = error;
            return result;
        }
        result.warnings << transport->warnings();
        ClusterHttpTransport* raw = transport.get();
        transports.push_back(std::move(transport));
        discoveries.push_back(std::make_unique<ApiDiscovery>(
            t.server.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash), t.user,
            [&nextId] { return nextId++; }, [raw](HttpRequest r) { raw->submit(std::move(r)); }));
        discoveries.back()->start();
    }

    std::vector<Frame> frames;
    for (;;) {
        queue.drain(frames);
        for (const Frame& f : frames)
            for (auto& d : discoveries)
                if (d->onFrame(f))
                    break;
        bool allDone = true;
        for (auto& d : discoveries) {
            if (d->done() && !d->succeeded()) {
                result.error = d->failure();
                return result;
            }
            allDone = allDone && d->done();
        }
        if (allDone)
            break;
        if (cancelled.load()) {
            result.error = QStringLiteral("cancelled");
            return result;
        }
        // A plugin waiting for the user (a device-code login) is not the cluster being slow: the
        // limit counts from when no plugin runs (the plugin has a limit of its own).
        if (runner->busy())
            waited.restart();
        if (waited.elapsed() > timeoutMs) {
            result.error = QStringLiteral("%1 did not finish discovery within %2 s")
                               .arg(targets->front().server.toString(QUrl::RemoveUserInfo))
                               .arg(timeoutMs / 1000);
            return result;
        }
        if (frames.empty())
            QThread::msleep(10);
    }
    for (auto& d : discoveries) {
        result.serverVersions << d->gitVersion();
        result.warnings << d->warnings();
    }
    result.resources = discoveries.front()->resources();
    result.ok = true;
    return result;
}

} // namespace ws
