#include "FieldSelector.h"

#include <QRegularExpression>

namespace ws {

std::optional<FieldSelector> FieldSelector::parse(const QString& text, QString* error) {
    FieldSelector s;
    for (const QString& raw : text.split(u',', Qt::SkipEmptyParts)) {
        const QString term = raw.trimmed();
        qsizetype op = term.indexOf(QLatin1String("!="));
        bool negated = op >= 0;
        qsizetype valueAt = op + 2;
        if (!negated) {
            op = term.indexOf(QLatin1String("=="));
            valueAt = op + 2;
            if (op < 0) {
                op = term.indexOf(u'=');
                valueAt = op + 1;
            }
        }
        if (op <= 0) {
            *error =
                QStringLiteral("invalid selector: '%1'; can't understand '%2'").arg(text, term);
            return std::nullopt;
        }
        const QString field = term.left(op).trimmed();
        const QString value = term.mid(valueAt).trimmed();
        if (field == QLatin1String("metadata.name"))
            (negated ? s.notName : s.name) = value;
        else if (field == QLatin1String("metadata.namespace"))
            (negated ? s.notNs : s.ns) = value;
        else if (field == QLatin1String("spec.nodeName") && !negated) {
            static const QRegularExpression node(QStringLiteral("^node-(\\d+)$"));
            const auto m = node.match(value);
            // A node no simulated object runs on matches nothing.
            s.selectorGroup = m.hasMatch() ? m.captured(1).toInt() : 1 << 30;
        } else {
            *error = QStringLiteral("field label not supported: %1").arg(field);
            return std::nullopt;
        }
    }
    return s;
}

} // namespace ws
