#include "CaptureReplay.h"

#include "CaptureExtent.h"
#include "CaptureSource.h"
#include "EtcdCaptureStream.h"
#include "capture/CaptureReader.h"
#include "scenario/ScenarioLoader.h"
#include "sources/sim/ScriptedWriter.h"
#include "sources/sim/SimSource.h"
#include "sources/sim/Simulation.h"

#include <QFileInfo>

namespace ws {

std::optional<CaptureHeader> CaptureReplay::header(const QString& path, QString* error) {
    CaptureReader reader;
    if (!reader.open(path, error))
        return std::nullopt;
    return reader.header();
}

std::unique_ptr<Source> CaptureReplay::etcdWhatIf(const SourceSpec& spec, QString* error) {
    auto stream = EtcdCaptureStream::read(spec.capture, error);
    if (!stream)
        return nullptr;
    const ScenarioOverrides& what = spec.whatIf;
    Scenario scenario;
    TimeUs clusterDuration = 0;
    if (!what.cluster.isEmpty()) {
        auto cluster = ScenarioLoader::load(what.cluster, error);
        if (!cluster)
            return nullptr;
        scenario = std::move(*cluster);
        clusterDuration = scenario.duration;
    } else if (what.serverVersion.isEmpty()) {
        *error = QStringLiteral("%1: an etcd capture has no apiserver of its own: give "
                                "--server-version (or --cluster)")
                     .arg(spec.capture);
        return nullptr;
    } else {
        scenario.etcd.compactionInterval = seconds(300); // kube-apiserver's default
    }
    const QStringList resources = ScriptedWriter::resources(*stream);
    if (resources.isEmpty()) {
        *error = QStringLiteral("%1 holds no Kubernetes objects (keys under /registry/): "
                                "nothing for an apiserver to cache")
                     .arg(spec.capture);
        return nullptr;
    }
    scenario.resources.clear();
    for (const QString& r : resources) {
        ResourceSpec rs;
        rs.name = r;
        scenario.resources.push_back(rs);
    }
    if (what.cluster.isEmpty()) {
        for (const QString& r : resources) {
            ClientSpec c;
            c.name = QStringLiteral("informer-%1").arg(r);
            c.resource = r;
            scenario.clients.push_back(c);
        }
    }
    for (const ClientSpec& c : scenario.clients)
        if (!resources.contains(c.resource)) {
            *error = QStringLiteral("%1: client '%2' of %3 watches %4, which the capture never "
                                    "wrote (it has %5)")
                         .arg(spec.capture, c.name, what.cluster, c.resource,
                              resources.join(QStringLiteral(", ")));
            return nullptr;
        }
    if (!stream->etcdVersion.isEmpty())
        scenario.etcd.version = stream->etcdVersion;
    if (!what.apply(scenario, error))
        return nullptr;
    scenario.name = QStringLiteral("what if (%1)").arg(what.describe());
    scenario.description = QStringLiteral("%1 put through kube-apiserver %2 (etcd %3)")
                               .arg(QFileInfo(spec.capture).fileName(), scenario.server.version,
                                    scenario.etcd.version);
    scenario.explanation.clear();
    scenario.yaml.clear();
    // The recording's length, or the --cluster scenario's when longer: what queued up during
    // the recording still plays out after its last write (a starved stream draining, a retry).
    scenario.duration = std::max<TimeUs>(stream->duration, Simulation::kTick);
    if (!what.cluster.isEmpty())
        scenario.duration = std::max(scenario.duration, clusterDuration);
    scenario.recorded = std::make_shared<const RecordedEtcdStream>(std::move(*stream));
    ScenarioSourceSpec sim;
    sim.seed = scenario.seed;
    sim.speed = spec.captureSpeed;
    auto source = std::make_unique<SimSource>(std::move(scenario), sim, std::nullopt);
    if (const auto head = header(spec.capture, error))
        source->setWallStart(QDateTime::fromString(head->createdUtc, Qt::ISODateWithMs));
    if (spec.replayControl)
        source->setReplayControl(spec.replayControl);
    return source;
}

std::unique_ptr<Source> CaptureReplay::create(const SourceSpec& spec, QString* error) {
    const auto head = header(spec.capture, error);
    if (!head)
        return nullptr;
    if (head->sourceKind == QLatin1String("simulator")) {
        const QJsonObject r = head->replay;
        auto scenario = ScenarioLoader::parse(
            r.value(QLatin1String("scenarioYaml")).toString().toUtf8(),
            QStringLiteral("%1 (scenario %2)")
                .arg(spec.capture, r.value(QLatin1String("scenario")).toString()),
            error);
        if (!scenario)
            return nullptr;
        if (!spec.whatIf.cluster.isEmpty()) {
            *error = QStringLiteral("%1: a capture of a scenario runs on its own cluster "
                                    "(--cluster is for captures of etcd)")
                         .arg(spec.capture);
            return nullptr;
        }
        if (!spec.whatIf.apply(*scenario, error))
            return nullptr;
        bool ok = false;
        ScenarioSourceSpec sim;
        sim.seed = r.value(QLatin1String("seed")).toString().toULongLong(&ok);
        if (!ok) {
            *error = QStringLiteral("%1 is damaged: its scenario has no seed").arg(spec.capture);
            return nullptr;
        }
        sim.speed = spec.captureSpeed;
        std::optional<TimeUs> duration;
        if (r.contains(QLatin1String("durationUs")))
            duration = r.value(QLatin1String("durationUs")).toString().toLongLong();
        // Recorded from the window and stopped before the scenario's end: up to there, as seen.
        QString ignored;
        if (const auto extent = CaptureExtent::measure(spec.capture, &ignored);
            extent && extent->complete && extent->duration > 0 &&
            extent->duration < duration.value_or(scenario->duration))
            duration = extent->duration;
        auto source = std::make_unique<SimSource>(std::move(*scenario), sim, duration);
        source->setWallStart(QDateTime::fromString(head->createdUtc, Qt::ISODateWithMs));
        if (spec.replayControl)
            source->setReplayControl(spec.replayControl);
        return source;
    }
    if (head->sourceKind == QLatin1String("etcd") && spec.whatIf.any())
        return etcdWhatIf(spec, error);
    if (head->sourceKind == QLatin1String("etcd") || head->sourceKind == QLatin1String("cluster")) {
        if (spec.whatIf.any()) {
            // A cluster capture holds what the apiserver answered, not the etcd stream behind
            // it: there is nothing to put through other apiservers.
            *error = QStringLiteral("%1: what-if needs the etcd stream: record etcd (or a "
                                    "scenario), not a cluster")
                         .arg(spec.capture);
            return nullptr;
        }
        auto source = std::make_unique<CaptureSource>(spec.capture, spec.captureSpeed);
        if (spec.replayControl)
            source->setReplayControl(spec.replayControl);
        return source;
    }
    *error = QStringLiteral("%1: replaying a capture of a %2 source is not available yet")
                 .arg(spec.capture, head->sourceKind);
    return nullptr;
}

} // namespace ws
