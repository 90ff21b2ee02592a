#include "CaptureExtent.h"

#include "capture/CaptureReader.h"
#include "scenario/ScenarioLoader.h"

namespace ws {

std::optional<CaptureExtent> CaptureExtent::measure(const QString& path, QString* error,
                                                    const std::atomic<bool>* cancel) {
    CaptureReader reader;
    if (!reader.open(path, error))
        return std::nullopt;
    CaptureExtent extent;
    extent.sourceKind = reader.header().sourceKind;
    CaptureRecord record;
    TimeUs last = 0;
    while (reader.next(&record)) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return std::nullopt;
        if (record.type == CaptureRecord::Type::Frame)
            last = std::max(last, record.frame.received);
        else if (record.type == CaptureRecord::Type::End)
            extent.duration = record.endTime;
    }
    extent.complete = reader.complete();
    if (extent.complete)
        return extent;
    extent.duration = last;
    if (extent.sourceKind == QLatin1String("simulator")) {
        // No End record (a capture still being written, or cut): the scenario runs its length.
        const QJsonObject r = reader.header().replay;
        if (r.contains(QLatin1String("durationUs"))) {
            extent.duration = r.value(QLatin1String("durationUs")).toString().toLongLong();
        } else {
            QString ignored;
            const auto scenario = ScenarioLoader::parse(
                r.value(QLatin1String("scenarioYaml")).toString().toUtf8(), path, &ignored);
            if (scenario)
                extent.duration = scenario->duration;
        }
    }
    return extent;
}

} // namespace ws
