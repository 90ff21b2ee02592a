#pragma once

#include "TimelineSample.h"

#include <QString>
#include <optional>
#include <vector>

namespace ws {

// Reads a timeline written by TimelineWriter back (for tests, and for tools that post-process
// exports). The format follows the file name as for the writer; from a trace only the counter
// samples come back, with the resource taken from the process_name metadata. Errors name the
// file and line: "t.csv:7: expected 4 fields, got 3".
class TimelineFileReader {
public:
    static std::optional<std::vector<TimelineSample>> read(const QString& path, QString* error);
};

} // namespace ws
