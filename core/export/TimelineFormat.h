#pragma once

#include <QString>
#include <optional>

namespace ws {

// Timeline export formats (SPEC §3), chosen by file name.
enum class TimelineFormat { Csv, Jsonl, ChromeTrace };

// `.csv`, `.jsonl`, `.trace.json` (case-insensitive). Anything else: nullopt and
// "unsupported timeline file 'x.txt': use .csv, .jsonl or .trace.json".
std::optional<TimelineFormat> timelineFormatForPath(const QString& path, QString* error);

} // namespace ws
