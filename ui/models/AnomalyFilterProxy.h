#pragma once

#include "model/AnomalyKind.h"

#include <QSortFilterProxyModel>
#include <QStringList>
#include <optional>

namespace ws {

struct Anomaly;
class AnomalyListModel;

// The display filter over the anomaly list: a kind, a severity and a text expression.
// The text is whitespace-separated terms that must all match; a term is either `field:value`
// (fields: kind, severity, source, resource, key, watcher, rv, message) matched as a
// case-insensitive substring (rv exactly), or a bare word searched in every text field.
// A term starting with `!` must not match.
class AnomalyFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit AnomalyFilterProxy(QObject* parent = nullptr);

    void setSourceModel(QAbstractItemModel* model) override;

    void setKind(std::optional<AnomalyKind> kind);
    void setSeverity(std::optional<Severity> severity);
    void setText(const QString& text);
    std::optional<AnomalyKind> kind() const { return m_kind; }
    std::optional<Severity> severity() const { return m_severity; }
    QString text() const { return m_text; }

    // The same test the proxy applies, usable without a model (e.g. for chart markers).
    bool accepts(const Anomaly& anomaly) const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    struct Term {
        QString field; // empty: any field
        QString value;
        bool negated = false;
    };
    static bool termMatches(const Term& term, const Anomaly& anomaly);

    AnomalyListModel* m_anomalies = nullptr;
    std::optional<AnomalyKind> m_kind;
    std::optional<Severity> m_severity;
    QString m_text;
    QVector<Term> m_terms;
};

} // namespace ws
