#include "LabelSelector.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace ws {

std::optional<LabelSelector> LabelSelector::parse(const QString& text, QString* error) {
    LabelSelector s;
    // Split on commas outside parentheses.
    QStringList terms;
    int depth = 0;
    QString current;
    for (const QChar c : text) {
        if (c == u'(')
            ++depth;
        else if (c == u')')
            --depth;
        if (c == u',' && depth == 0) {
            terms << current;
            current.clear();
        } else {
            current += c;
        }
    }
    if (!current.trimmed().isEmpty())
        terms << current;
    static const QRegularExpression setRe(
        QStringLiteral("^\\s*([\\w./-]+)\\s+(in|notin)\\s*\\(([^)]*)\\)\\s*$"));
    static const QRegularExpression cmpRe(
        QStringLiteral("^\\s*([\\w./-]+)\\s*(==|!=|=)\\s*([\\w.-]*)\\s*$"));
    static const QRegularExpression existsRe(QStringLiteral("^\\s*(!?)\\s*([\\w./-]+)\\s*$"));
    for (const QString& t : terms) {
        if (auto m = setRe.match(t); m.hasMatch()) {
            QStringList values;
            for (const QString& v : m.captured(3).split(u',', Qt::SkipEmptyParts))
                values << v.trimmed();
            s.m_terms.push_back(
                {m.captured(1), m.captured(2) == QLatin1String("in") ? Op::In : Op::NotIn, values});
        } else if (auto c = cmpRe.match(t); c.hasMatch()) {
            s.m_terms.push_back({c.captured(1),
                                 c.captured(2) == QLatin1String("!=") ? Op::NotEquals : Op::Equals,
                                 {c.captured(3)}});
        } else if (auto e = existsRe.match(t); e.hasMatch()) {
            s.m_terms.push_back(
                {e.captured(2), e.captured(1).isEmpty() ? Op::Exists : Op::NotExists, {}});
        } else {
            *error = QStringLiteral("unable to parse requirement: '%1'").arg(t.trimmed());
            return std::nullopt;
        }
    }
    return s;
}

bool LabelSelector::matches(const QHash<QString, QString>& labels) const {
    for (const Term& t : m_terms) {
        const auto it = labels.constFind(t.key);
        const bool has = it != labels.constEnd();
        switch (t.op) {
        case Op::Equals:
        case Op::In:
            if (!has || !t.values.contains(*it))
                return false;
            break;
        case Op::NotEquals:
        case Op::NotIn:
            if (has && t.values.contains(*it))
                return false;
            break;
        case Op::Exists:
            if (!has)
                return false;
            break;
        case Op::NotExists:
            if (has)
                return false;
            break;
        }
    }
    return true;
}

QHash<QString, QString> LabelSelector::labelsOf(std::string_view objectJson) {
    QHash<QString, QString> out;
    const QJsonObject labels =
        QJsonDocument::fromJson(
            QByteArray(objectJson.data(), static_cast<qsizetype>(objectJson.size())))
            .object()
            .value(QLatin1String("metadata"))
            .toObject()
            .value(QLatin1String("labels"))
            .toObject();
    for (auto it = labels.begin(); it != labels.end(); ++it)
        out.insert(it.key(), it.value().toString());
    return out;
}

} // namespace ws
