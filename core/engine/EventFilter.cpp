#include "EventFilter.h"

#include <QRegularExpression>
#include <QStringList>

namespace ws {

bool EventFilter::isEmpty() const {
    return types == 0 && resource.isEmpty() && ns.isEmpty() && nameRegex.isEmpty() && minRv <= 0 &&
           maxRv <= 0 && !anomalyOnly;
}

QString EventFilter::error() const {
    if (!nameRegex.isEmpty()) {
        const QRegularExpression re(nameRegex);
        if (!re.isValid())
            return QStringLiteral("name: %1 at offset %2")
                .arg(re.errorString())
                .arg(re.patternErrorOffset());
    }
    if (minRv > 0 && maxRv > 0 && minRv > maxRv)
        return QStringLiteral("RV range %1..%2 is empty").arg(minRv).arg(maxRv);
    return {};
}

QString EventFilter::describe() const {
    QStringList parts;
    if (types != 0) {
        QStringList names;
        for (const WatchEventType t :
             {WatchEventType::Added, WatchEventType::Modified, WatchEventType::Deleted,
              WatchEventType::Bookmark, WatchEventType::Error})
            if (types & typeBit(t))
                names << watchEventTypeName(t);
        parts << QStringLiteral("type %1").arg(names.join(u'|'));
    }
    if (!resource.isEmpty())
        parts << QStringLiteral("resource %1").arg(resource);
    if (!ns.isEmpty())
        parts << QStringLiteral("namespace %1").arg(ns);
    if (!nameRegex.isEmpty())
        parts << QStringLiteral("name ~ %1").arg(nameRegex);
    if (minRv > 0 || maxRv > 0)
        parts << QStringLiteral("RV %1..%2")
                     .arg(minRv > 0 ? QString::number(minRv) : QString(),
                          maxRv > 0 ? QString::number(maxRv) : QString());
    if (anomalyOnly)
        parts << QStringLiteral("anomalies only");
    return parts.join(QStringLiteral(", "));
}

} // namespace ws
