#include "ScenarioNote.h"

#include <QStringList>
#include <utility>

namespace ws {

QString reflowScenarioNote(const QString& note) {
    QString text;
    bool blankBefore = false;
    for (const QString& line : note.split(QLatin1Char('\n'))) {
        const QString t = line.trimmed();
        if (t.isEmpty()) {
            blankBefore = true; // a blank line ends a paragraph too
            continue;
        }
        const int colon = int(t.indexOf(QLatin1Char(':')));
        const bool heading = colon > 0 && colon < 24 &&
                             t.left(colon).count(QLatin1Char(' ')) <= 3 && t.at(0).isUpper();
        const bool afterBlank = std::exchange(blankBefore, false);
        const bool paragraph = heading || afterBlank;
        if (paragraph && !text.isEmpty())
            text += QStringLiteral("\n\n");
        else if (!text.isEmpty())
            text += QLatin1Char(' ');
        text += t;
    }
    return text;
}

} // namespace ws
