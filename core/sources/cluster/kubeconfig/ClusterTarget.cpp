#include "ClusterTarget.h"

namespace ws {

QList<QPair<QByteArray, QByteArray>> Impersonation::headers() const {
    QList<QPair<QByteArray, QByteArray>> out;
    if (!isSet())
        return out;
    out.append({"Impersonate-User", user.toUtf8()});
    if (!uid.isEmpty())
        out.append({"Impersonate-Uid", uid.toUtf8()});
    for (const QString& g : groups)
        out.append({"Impersonate-Group", g.toUtf8()});
    for (const auto& [key, values] : extra) {
        // client-go's headerKeyEscape: bytes that may not appear in a header name, and '%'
        // itself, become %XX.
        QByteArray name = "Impersonate-Extra-";
        for (const char c : key.toUtf8()) {
            const auto b = static_cast<unsigned char>(c);
            const bool alnum = (b >= '0' && b <= '9') || ((b | 0x20) >= 'a' && (b | 0x20) <= 'z');
            const bool token = alnum || (b != 0 && QByteArrayView("!#$&'*+-.^_`|~").contains(c));
            if (token)
                name += c;
            else
                name += '%' + QByteArray::number(b, 16).toUpper().rightJustified(2, '0');
        }
        for (const QString& v : values)
            out.append({name, v.toUtf8()});
    }
    return out;
}

QString ClusterTarget::describe() const {
    QString out;
    if (!context.isEmpty()) {
        out = QStringLiteral("context %1").arg(context);
        QStringList parts;
        if (!cluster.isEmpty())
            parts << QStringLiteral("cluster %1").arg(cluster);
        if (!user.isEmpty())
            parts << QStringLiteral("user %1").arg(user);
        if (!parts.isEmpty())
            out += QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
        out += QStringLiteral(" at ");
    }
    // The URL may carry userinfo (https://user:pass@host): never show it.
    out += server.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment);
    return out;
}

bool ClusterTarget::execPluginApplies() const {
    return exec && token.isEmpty() && tokenFile.isEmpty() && username.isEmpty() &&
           password.isEmpty() && clientCertificatePem.isEmpty() && clientKeyPem.isEmpty();
}

} // namespace ws
