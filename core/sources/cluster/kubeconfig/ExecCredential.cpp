#include "ExecCredential.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace ws {

namespace {

QDateTime parseRfc3339(const QString& s) {
    QDateTime t = QDateTime::fromString(s, Qt::ISODateWithMs);
    if (!t.isValid())
        t = QDateTime::fromString(s, Qt::ISODate);
    return t;
}

} // namespace

std::optional<ExecCredential> ExecCredential::fromPluginOutput(const QByteArray& output,
                                                               const QString& apiVersion,
                                                               const QString& plugin,
                                                               QString* error) {
    auto fail = [&](const QString& message) {
        *error = message;
        return std::nullopt;
    };
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(output, &parse);
    if (parse.error != QJsonParseError::NoError)
        return fail(QStringLiteral("%1 printed invalid JSON (%2 at offset %3)")
                        .arg(plugin, parse.errorString(), QString::number(parse.offset)));
    const QJsonObject o = doc.object();
    if (!doc.isObject() ||
        o.value(QLatin1String("kind")).toString() != QLatin1String("ExecCredential"))
        return fail(QStringLiteral("%1 did not print an ExecCredential").arg(plugin));
    const QString answered = o.value(QLatin1String("apiVersion")).toString();
    if (answered != apiVersion) {
        // Only a well-formed group/version is echoed: the rest of stdout stays unseen. Anchored
        // with \z, not $: $ also matches before a final newline, which then reached the error
        // line (found by tests/fuzz/fuzz_exec_credential).
        static const QRegularExpression gv(QRegularExpression::anchoredPattern(
            QStringLiteral("[a-z0-9.-]{1,80}/v[a-z0-9]{1,20}")));
        return fail(QStringLiteral("%1 answered with %2, the kubeconfig asks for %3")
                        .arg(plugin,
                             gv.match(answered).hasMatch() ? answered
                                                           : QStringLiteral("another apiVersion"),
                             apiVersion));
    }
    const QJsonValue statusValue = o.value(QLatin1String("status"));
    if (!statusValue.isObject())
        return fail(QStringLiteral("%1 returned no status").arg(plugin));
    const QJsonObject status = statusValue.toObject();
    ExecCredential c;
    c.token = status.value(QLatin1String("token")).toString();
    c.clientCertificatePem =
        status.value(QLatin1String("clientCertificateData")).toString().toUtf8();
    c.clientKeyPem = status.value(QLatin1String("clientKeyData")).toString().toUtf8();
    if (c.token.isEmpty() && c.clientCertificatePem.isEmpty() && c.clientKeyPem.isEmpty())
        return fail(QStringLiteral("%1 returned neither a token nor a client certificate and key")
                        .arg(plugin));
    if (c.clientCertificatePem.isEmpty() != c.clientKeyPem.isEmpty())
        return fail(QStringLiteral("%1 returned a client certificate without its key (or a key "
                                   "without its certificate)")
                        .arg(plugin));
    if (const QJsonValue expiry = status.value(QLatin1String("expirationTimestamp"));
        !expiry.isUndefined() && !expiry.isNull()) {
        c.expiry = parseRfc3339(expiry.toString());
        if (!c.expiry.isValid())
            return fail(QStringLiteral("%1 returned an invalid expirationTimestamp (not RFC 3339)")
                            .arg(plugin));
    }
    return c;
}

} // namespace ws
