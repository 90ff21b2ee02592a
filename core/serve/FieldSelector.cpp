#include "FieldSelector.h"

#include <QRegularExpression>
#include <QStringList>

namespace ws {

namespace {

// The core resources whose field selectors go through a conversion of their own, which words an
// unknown field its own way; every other resource has only metadata.name and metadata.namespace.
bool hasOwnFieldLabels(const QString& resource) {
    static const QStringList own = {
        QStringLiteral("pods"),       QStringLiteral("events"),
        QStringLiteral("nodes"),      QStringLiteral("secrets"),
        QStringLiteral("namespaces"), QStringLiteral("replicationcontrollers")};
    return own.contains(resource);
}

} // namespace

std::optional<FieldSelector> FieldSelector::parse(const QString& text, const QString& resource,
                                                  QString* error) {
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
        else if (field == QLatin1String("spec.nodeName") && !negated &&
                 resource == QLatin1String("pods")) {
            static const QRegularExpression node(QStringLiteral("^node-(\\d+)$"));
            const auto m = node.match(value);
            // A node no simulated object runs on matches nothing.
            s.selectorGroup = m.hasMatch() ? m.captured(1).toInt() : 1 << 30;
        } else {
            *error = hasOwnFieldLabels(resource)
                         ? QStringLiteral("field label not supported: %1").arg(field)
                         : QStringLiteral("\"%1\" is not a known field selector: only "
                                          "\"metadata.name\", \"metadata.namespace\"")
                               .arg(field);
            return std::nullopt;
        }
    }
    return s;
}

} // namespace ws
