#include "AnomalyExplanation.h"

namespace ws {

QString AnomalyExplanation::toPlainText() const {
    QStringList parts;
    const auto section = [&](const QString& title, const QString& body) {
        if (!body.isEmpty())
            parts << title + QLatin1Char('\n') + body;
    };
    section(QStringLiteral("What happened"), what);
    section(QStringLiteral("Why"), why);
    section(QStringLiteral("Fix"), fix);
    section(QStringLiteral("Versions involved"), versions.join(QLatin1Char('\n')));
    section(QStringLiteral("References"), references.join(QLatin1Char('\n')));
    return parts.join(QStringLiteral("\n\n"));
}

} // namespace ws
