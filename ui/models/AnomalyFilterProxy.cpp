#include "AnomalyFilterProxy.h"

#include "AnomalyListModel.h"

namespace ws {

namespace {

bool contains(const QString& haystack, const QString& needle) {
    return haystack.contains(needle, Qt::CaseInsensitive);
}

} // namespace

AnomalyFilterProxy::AnomalyFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(AnomalyListModel::SortRole);
}

void AnomalyFilterProxy::setSourceModel(QAbstractItemModel* model) {
    // The filter reads Anomaly values directly instead of going through data() per cell.
    m_anomalies = qobject_cast<AnomalyListModel*>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

void AnomalyFilterProxy::setKind(std::optional<AnomalyKind> kind) {
    if (kind == m_kind)
        return;
    m_kind = kind;
    invalidateFilter();
}

void AnomalyFilterProxy::setSeverity(std::optional<Severity> severity) {
    if (severity == m_severity)
        return;
    m_severity = severity;
    invalidateFilter();
}

void AnomalyFilterProxy::setText(const QString& text) {
    if (text == m_text)
        return;
    m_text = text;
    m_terms.clear();
    static const QStringList fields = {QStringLiteral("kind"),   QStringLiteral("severity"),
                                       QStringLiteral("source"), QStringLiteral("resource"),
                                       QStringLiteral("key"),    QStringLiteral("watcher"),
                                       QStringLiteral("rv"),     QStringLiteral("message")};
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (QString word : words) {
        Term term;
        if (word.startsWith(QLatin1Char('!')) && word.size() > 1) {
            term.negated = true;
            word.remove(0, 1);
        }
        const qsizetype colon = word.indexOf(QLatin1Char(':'));
        if (colon > 0 && fields.contains(word.left(colon).toLower())) {
            term.field = word.left(colon).toLower();
            term.value = word.mid(colon + 1);
        } else {
            term.value = word; // "/registry/pods/a:b" and unknown fields stay plain text
        }
        if (!term.value.isEmpty())
            m_terms.append(term);
    }
    invalidateFilter();
}

bool AnomalyFilterProxy::termMatches(const Term& t, const Anomaly& a) {
    if (t.field.isEmpty()) {
        return contains(kindName(a.kind), t.value) || contains(a.resource, t.value) ||
               contains(a.key, t.value) || contains(a.watcher, t.value) ||
               contains(a.message, t.value) || contains(severityName(a.severity), t.value) ||
               (a.rv != 0 && QString::number(a.rv) == t.value);
    }
    if (t.field == QLatin1String("kind"))
        return contains(kindName(a.kind), t.value);
    if (t.field == QLatin1String("severity"))
        return contains(severityName(a.severity), t.value);
    if (t.field == QLatin1String("source"))
        return contains(sourceName(a.source), t.value);
    if (t.field == QLatin1String("resource"))
        return contains(a.resource, t.value);
    if (t.field == QLatin1String("key"))
        return contains(a.key, t.value);
    if (t.field == QLatin1String("watcher"))
        return contains(a.watcher, t.value);
    if (t.field == QLatin1String("rv"))
        return a.rv != 0 && QString::number(a.rv) == t.value;
    return contains(a.message, t.value);
}

bool AnomalyFilterProxy::accepts(const Anomaly& a) const {
    if (m_kind && a.kind != *m_kind)
        return false;
    if (m_severity && a.severity != *m_severity)
        return false;
    for (const Term& term : m_terms) {
        if (termMatches(term, a) == term.negated)
            return false;
    }
    return true;
}

bool AnomalyFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (sourceParent.isValid())
        return false;
    if (m_anomalies)
        return accepts(m_anomalies->anomaly(sourceRow));
    const QVariant v = sourceModel()->data(sourceModel()->index(sourceRow, 0, sourceParent),
                                           AnomalyListModel::AnomalyRole);
    return v.canConvert<Anomaly>() ? accepts(v.value<Anomaly>()) : true;
}

} // namespace ws
