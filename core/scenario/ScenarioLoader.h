#pragma once

#include "Scenario.h"

#include <QString>
#include <optional>
#include <vector>

namespace ws {

// A built-in scenario as a list shows it: `watchscope-cli scenarios` and the GUI's picker.
struct ScenarioSummary {
    QString name;
    QString description; // one line
};

// Reads scenario files with yaml-cpp, strictly: an unknown key, a bad value or a missing field
// is an error naming the file, the line and what was wrong.
class ScenarioLoader {
public:
    // A built-in name ("healthy") or a path to a .yaml file ("./my.yaml").
    static std::optional<Scenario> load(const QString& nameOrPath, QString* error);
    static std::optional<Scenario> parse(const QByteArray& yaml, const QString& fileName,
                                         QString* error);
    static QStringList builtinNames();
    // Every built-in scenario in builtinNames() order; empty with *error if one fails to load.
    static std::vector<ScenarioSummary> builtinSummaries(QString* error);
};

} // namespace ws
