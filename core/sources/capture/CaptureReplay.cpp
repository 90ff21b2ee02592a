#include "CaptureReplay.h"

#include "CaptureExtent.h"
#include "CaptureSource.h"
#include "capture/CaptureReader.h"
#include "scenario/ScenarioLoader.h"
#include "sources/sim/SimSource.h"

namespace ws {

std::optional<CaptureHeader> CaptureReplay::header(const QString& path, QString* error) {
    CaptureReader reader;
    if (!reader.open(path, error))
        return std::nullopt;
    return reader.header();
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
    if (head->sourceKind == QLatin1String("etcd") || head->sourceKind == QLatin1String("cluster")) {
        if (spec.whatIf.any()) {
            *error = QStringLiteral("%1: what-if on a capture of %2 is not available yet (it "
                                    "is for captures of scenarios)")
                         .arg(spec.capture, head->sourceKind);
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
