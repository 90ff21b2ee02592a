#include "ContinueToken.h"

#include "util/JsonText.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ws {

QString ContinueToken::after(ResourceVersion rv, const std::string& lastKey) {
    return ContinueToken{rv, lastKey + std::string(1, '\0')}.encode();
}

QString ContinueToken::encode() const {
    std::string json = R"({"v":"meta.k8s.io/v1","rv":)" + std::to_string(rv) + R"(,"start":)";
    appendJsonString(json, std::string_view(start));
    json += '}';
    return QString::fromLatin1(QByteArray::fromStdString(json).toBase64(
        QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

std::optional<ContinueToken> ContinueToken::decode(const QString& token, QString* why) {
    const auto decoded = QByteArray::fromBase64Encoding(
        token.toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded) {
        *why = QStringLiteral("illegal base64 data");
        return std::nullopt;
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(*decoded, &error);
    if (!doc.isObject()) {
        *why = error.errorString();
        return std::nullopt;
    }
    const QJsonObject o = doc.object();
    // continue.go DecodeContinue: only meta.k8s.io/v1, a non-zero rv and a start key.
    if (o.value(QLatin1String("v")).toString() != QLatin1String("meta.k8s.io/v1")) {
        *why = QStringLiteral("server does not recognize this encoded version");
        return std::nullopt;
    }
    ContinueToken t;
    t.rv = static_cast<ResourceVersion>(o.value(QLatin1String("rv")).toDouble());
    t.start = o.value(QLatin1String("start")).toString().toStdString();
    if (t.rv == 0) {
        *why = QStringLiteral("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
        return std::nullopt;
    }
    if (t.start.empty()) {
        *why = QStringLiteral("encoded start key empty (version meta.k8s.io/v1)");
        return std::nullopt;
    }
    return t;
}

} // namespace ws
