#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <optional>
#include <string_view>
#include <vector>

namespace ws {

// A label selector (k=v, k==v, k!=v, k, !k, k in (a,b), k notin (a,b)) evaluated against an
// object's metadata.labels. Only parsed when a request carries one.
class LabelSelector {
public:
    static std::optional<LabelSelector> parse(const QString& text, QString* error);
    bool empty() const { return m_terms.empty(); }
    bool matches(const QHash<QString, QString>& labels) const;
    // The labels of a stored object (JSON).
    static QHash<QString, QString> labelsOf(std::string_view objectJson);

private:
    enum class Op { Equals, NotEquals, Exists, NotExists, In, NotIn };
    struct Term {
        QString key;
        Op op;
        QStringList values;
    };
    std::vector<Term> m_terms;
};

} // namespace ws
