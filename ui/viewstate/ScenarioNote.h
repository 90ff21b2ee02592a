#pragma once

#include <QString>

namespace ws {

// A scenario's explanation, hard-wrapped in its YAML, as paragraphs for the window's Scenario
// tab: lines are joined, and a new paragraph starts at each heading line ("What happens:",
// "Why it matters:" — a capitalised label of at most four words before a colon) and after a
// blank line.
QString reflowScenarioNote(const QString& note);

} // namespace ws
