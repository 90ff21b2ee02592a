#include "CaptureHeader.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace ws {

QByteArray CaptureHeader::toJson() const {
    QJsonObject o;
    o.insert(QStringLiteral("format"), QStringLiteral("wscap"));
    o.insert(QStringLiteral("creator"), creator);
    o.insert(QStringLiteral("createdUtc"), createdUtc);
    QJsonObject source;
    source.insert(QStringLiteral("kind"), sourceKind);
    source.insert(QStringLiteral("description"), description);
    source.insert(QStringLiteral("replay"), replay);
    o.insert(QStringLiteral("source"), source);
    o.insert(QStringLiteral("resources"), QJsonArray::fromStringList(resources));
    o.insert(QStringLiteral("secretsRedacted"), secretsRedacted);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

bool CaptureHeader::fromJson(const QByteArray& json, CaptureHeader* header, QString* error) {
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parse);
    if (!doc.isObject()) {
        *error = QStringLiteral("its header is not JSON (%1)").arg(parse.errorString());
        return false;
    }
    const QJsonObject o = doc.object();
    if (o.value(QLatin1String("format")).toString() != QLatin1String("wscap")) {
        *error = QStringLiteral("its header does not say format \"wscap\"");
        return false;
    }
    const QJsonObject source = o.value(QLatin1String("source")).toObject();
    header->creator = o.value(QLatin1String("creator")).toString();
    header->createdUtc = o.value(QLatin1String("createdUtc")).toString();
    header->sourceKind = source.value(QLatin1String("kind")).toString();
    header->description = source.value(QLatin1String("description")).toString();
    header->replay = source.value(QLatin1String("replay")).toObject();
    header->secretsRedacted = o.value(QLatin1String("secretsRedacted")).toBool(true);
    header->resources.clear();
    for (const QJsonValue& r : o.value(QLatin1String("resources")).toArray())
        header->resources << r.toString();
    if (header->sourceKind.isEmpty()) {
        *error = QStringLiteral("its header names no source kind");
        return false;
    }
    return true;
}

} // namespace ws
