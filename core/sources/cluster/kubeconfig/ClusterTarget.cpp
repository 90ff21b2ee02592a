#include "ClusterTarget.h"

namespace ws {

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
