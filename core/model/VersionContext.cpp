#include "VersionContext.h"

namespace ws {

QString VersionContext::clientGoFor(const QString& watcher) const {
    QString best;
    qsizetype bestLength = -1;
    for (auto it = clientGoByClient.constBegin(); it != clientGoByClient.constEnd(); ++it) {
        const QString& name = it.key();
        const bool belongs =
            watcher == name || (watcher.startsWith(name) && watcher.size() > name.size() + 1 &&
                                watcher.at(name.size()) == QLatin1Char('-'));
        if (belongs && name.size() > bestLength) {
            best = it.value();
            bestLength = name.size();
        }
    }
    return bestLength >= 0 ? best : clientGo;
}

void VersionContext::fillFrom(const VersionContext& other) {
    if (kubeApiserver.isEmpty())
        kubeApiserver = other.kubeApiserver;
    if (clientGo.isEmpty())
        clientGo = other.clientGo;
    if (etcd.isEmpty())
        etcd = other.etcd;
    for (auto it = other.clientGoByClient.constBegin(); it != other.clientGoByClient.constEnd();
         ++it)
        if (!clientGoByClient.contains(it.key()))
            clientGoByClient.insert(it.key(), it.value());
    for (auto it = other.featureGates.constBegin(); it != other.featureGates.constEnd(); ++it)
        if (!featureGates.contains(it.key()))
            featureGates.insert(it.key(), it.value());
}

QString VersionContext::describe() const {
    QStringList parts;
    if (!kubeApiserver.isEmpty())
        parts << QStringLiteral("kube-apiserver %1").arg(kubeApiserver);
    if (!clientGo.isEmpty())
        parts << QStringLiteral("client-go %1").arg(clientGo);
    for (auto it = clientGoByClient.constBegin(); it != clientGoByClient.constEnd(); ++it)
        parts << QStringLiteral("%1: client-go %2").arg(it.key(), it.value());
    if (!etcd.isEmpty())
        parts << QStringLiteral("etcd %1").arg(etcd);
    for (auto it = featureGates.constBegin(); it != featureGates.constEnd(); ++it)
        parts << QStringLiteral("%1=%2").arg(it.key(), it.value() ? QStringLiteral("true")
                                                                  : QStringLiteral("false"));
    return parts.join(QStringLiteral(", "));
}

VersionContext VersionContext::fromConnectionVersions(QStringView versions) {
    VersionContext out;
    for (QStringView part : versions.split(u',')) {
        part = part.trimmed();
        const qsizetype space = part.lastIndexOf(u' ');
        if (space <= 0)
            continue;
        const QStringView name = part.left(space).trimmed();
        const QString version = part.mid(space + 1).trimmed().toString();
        if (version.isEmpty())
            continue;
        if (name == QLatin1String("etcd"))
            out.etcd = version;
        else if (name == QLatin1String("kube-apiserver"))
            out.kubeApiserver = version;
        else if (name == QLatin1String("client-go"))
            out.clientGo = version;
    }
    return out;
}

} // namespace ws
