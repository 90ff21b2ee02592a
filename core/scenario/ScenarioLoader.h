#pragma once

#include "Scenario.h"

#include <QString>
#include <optional>

namespace ws {

// Reads scenario files with yaml-cpp, strictly: an unknown key, a bad value or a missing field
// is an error naming the file, the line and what was wrong.
class ScenarioLoader {
public:
    // A built-in name ("healthy") or a path to a .yaml file ("./my.yaml").
    static std::optional<Scenario> load(const QString& nameOrPath, QString* error);
    static std::optional<Scenario> parse(const QByteArray& yaml, const QString& fileName,
                                         QString* error);
    static QStringList builtinNames();
};

} // namespace ws
