#include "TimelineFormat.h"

namespace ws {

std::optional<TimelineFormat> timelineFormatForPath(const QString& path, QString* error) {
    if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
        return TimelineFormat::Csv;
    if (path.endsWith(QLatin1String(".jsonl"), Qt::CaseInsensitive))
        return TimelineFormat::Jsonl;
    if (path.endsWith(QLatin1String(".trace.json"), Qt::CaseInsensitive))
        return TimelineFormat::ChromeTrace;
    if (error)
        *error = QStringLiteral("unsupported timeline file '%1': use .csv, .jsonl or .trace.json")
                     .arg(path);
    return std::nullopt;
}

} // namespace ws
