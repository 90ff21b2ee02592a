#include "ListOptionsValidation.h"

#include "ServerProfile.h"

#include <QStringList>
#include <vector>

namespace ws {

namespace {

const QString kNotOlderThan = QStringLiteral("NotOlderThan");
const QString kExact = QStringLiteral("Exact");

// One field.Error: Error() is "<field>: <body>", the cause message is the body alone.
struct FieldError {
    QString type; // FieldValueForbidden, FieldValueNotSupported
    QString field;
    QString body;
    QString text() const { return field + QStringLiteral(": ") + body; }
};

FieldError forbidden(const QString& field, const QString& detail) {
    return {QStringLiteral("FieldValueForbidden"), field, QStringLiteral("Forbidden: ") + detail};
}

// field.NotSupported with a string value: Unsupported value: "X": supported values: "A", "B".
FieldError notSupported(const QString& field, const QString& value, const QStringList& valid) {
    QStringList quoted;
    for (const QString& v : valid)
        quoted << QLatin1Char('"') + v + QLatin1Char('"');
    return {QStringLiteral("FieldValueNotSupported"), field,
            QStringLiteral("Unsupported value: \"%1\": supported values: %2")
                .arg(value, quoted.join(QStringLiteral(", ")))};
}

// errors.NewInvalid(schema.GroupKind{"meta.k8s.io", "ListOptions"}, "", errs).
ApiStatus invalid(const std::vector<FieldError>& errors) {
    ApiStatus s;
    s.code = 422;
    s.reason = QStringLiteral("Invalid");
    s.detailsGroup = QStringLiteral("meta.k8s.io");
    s.detailsKind = QStringLiteral("ListOptions");
    // utilerrors aggregate: one error as is; several, deduplicated, as "[a, b]".
    QStringList texts;
    for (const FieldError& e : errors) {
        s.fieldCauses.push_back({e.type, e.body, e.field});
        if (!texts.contains(e.text()))
            texts << e.text();
    }
    const QString aggregate =
        texts.size() == 1 ? texts.front()
                          : QLatin1Char('[') + texts.join(QStringLiteral(", ")) + QLatin1Char(']');
    s.message = QStringLiteral("ListOptions.meta.k8s.io \"\" is invalid: ") + aggregate;
    return s;
}

const QString kMatch = QStringLiteral("resourceVersionMatch");
const QString kInitial = QStringLiteral("sendInitialEvents");

// ValidateListOptions' resourceVersionMatch rules for a list (1.19+, a match is set).
void appendListMatchErrors(const WatchQuery& q, std::vector<FieldError>& errs) {
    const QString& match = q.resourceVersionMatch;
    if (q.resourceVersion.isEmpty())
        errs.push_back(forbidden(kMatch, QStringLiteral("resourceVersionMatch is forbidden unless "
                                                        "resourceVersion is provided")));
    if (q.hasContinue)
        errs.push_back(forbidden(
            kMatch, QStringLiteral("resourceVersionMatch is forbidden when continue is provided")));
    if (match != kExact && match != kNotOlderThan)
        errs.push_back(notSupported(kMatch, match, {kExact, kNotOlderThan, QString()}));
    if (match == kExact && q.resourceVersion == QLatin1String("0"))
        errs.push_back(forbidden(kMatch, QStringLiteral("resourceVersionMatch \"exact\" is "
                                                        "forbidden for resourceVersion \"0\"")));
}

// 1.19-1.26 (ResourceVersionMatch added in 1.19): the list checks run for watches too.
std::vector<FieldError> validateBefore127(const WatchQuery& q) {
    std::vector<FieldError> errs;
    if (q.resourceVersionMatch.isEmpty())
        return errs;
    errs.push_back(
        forbidden(kMatch, QStringLiteral("resourceVersionMatch is forbidden for watch")));
    appendListMatchErrors(q, errs);
    return errs;
}

// 1.27+ validateWatchOptions.
std::vector<FieldError> validateFrom127(const WatchQuery& q, bool watchListGate) {
    std::vector<FieldError> errs;
    const QString& match = q.resourceVersionMatch;
    if (q.sendInitialEvents) {
        if (match != kNotOlderThan)
            errs.push_back(
                forbidden(kMatch, QStringLiteral("sendInitialEvents requires setting "
                                                 "resourceVersionMatch to NotOlderThan")));
        if (!watchListGate)
            errs.push_back(forbidden(kInitial, QStringLiteral("sendInitialEvents is forbidden for "
                                                              "watch unless the WatchList feature "
                                                              "gate is enabled")));
    }
    if (!match.isEmpty()) {
        if (!q.sendInitialEvents)
            errs.push_back(forbidden(kMatch, QStringLiteral("resourceVersionMatch is forbidden for "
                                                            "watch unless sendInitialEvents is "
                                                            "provided")));
        if (match != kNotOlderThan)
            errs.push_back(notSupported(kMatch, match, {kNotOlderThan}));
        if (q.hasContinue)
            errs.push_back(forbidden(kMatch, QStringLiteral("resourceVersionMatch is forbidden "
                                                            "when continue is provided")));
    }
    return errs;
}

} // namespace

WatchQuery WatchQuery::watchList(const QString& resourceVersion) {
    WatchQuery q;
    q.resourceVersion = resourceVersion;
    q.resourceVersionMatch = kNotOlderThan;
    q.sendInitialEvents = true;
    return q;
}

std::optional<ApiStatus> invalidListOptions(const ServerProfile& profile, const WatchQuery& query) {
    if (profile.minor < 19)
        return std::nullopt;
    std::vector<FieldError> errs;
    if (!query.resourceVersionMatch.isEmpty())
        appendListMatchErrors(query, errs);
    if (profile.minor >= 27 && query.sendInitialEvents)
        errs.push_back(
            forbidden(kInitial, QStringLiteral("sendInitialEvents is forbidden for list")));
    if (errs.empty())
        return std::nullopt;
    return invalid(errs);
}

std::optional<ApiStatus> invalidWatchOptions(const ServerProfile& profile,
                                             const WatchQuery& query) {
    if (profile.minor < 19)
        return std::nullopt;
    const std::vector<FieldError> errs =
        profile.minor < 27 ? validateBefore127(query) : validateFrom127(query, profile.watchList);
    if (errs.empty())
        return std::nullopt;
    return invalid(errs);
}

WatchQuery defaultWatchQuery(const ServerProfile& profile, WatchQuery query) {
    const bool legacy =
        query.resourceVersion.isEmpty() || query.resourceVersion == QLatin1String("0");
    if (profile.servesWatchList() && legacy && !query.sendInitialEvents &&
        query.resourceVersionMatch.isEmpty()) {
        query.sendInitialEvents = true;
        query.resourceVersionMatch = kNotOlderThan;
    }
    return query;
}

} // namespace ws
