#include "ScenarioOverrides.h"

#include "kube/FeatureGates.h"

namespace ws {

namespace {

// A gate the scenario's (final) kube-apiserver version does not accept is an error, as it is
// for kube-apiserver itself; a bad version is reported when the simulation is built.
bool applyFeatureGate(ServerSpec& server, const QString& gate, QString* error) {
    QString name, why;
    bool on = false;
    if (!FeatureGates::parse(gate, &name, &on, &why)) {
        *error = QStringLiteral("--feature-gates: ") + why;
        return false;
    }
    if (const auto profile = ServerProfile::fromVersion(server.version, nullptr))
        if (auto rejected = FeatureGates::rejection(*profile, name, on)) {
            *error = QStringLiteral("--feature-gates: ") + *rejected;
            return false;
        }
    server.featureGates.insert(name, on);
    return true;
}

} // namespace

bool ScenarioOverrides::apply(Scenario& scenario, QString* error) const {
    if (!serverVersion.isEmpty())
        scenario.server.version = serverVersion;
    if (!clientGo.isEmpty())
        for (ClientSpec& c : scenario.clients)
            c.clientGo = clientGo;
    for (const QString& gate : featureGates)
        if (!applyFeatureGate(scenario.server, gate, error))
            return false;
    if (!etcdVersion.isEmpty()) {
        const QStringList parts = etcdVersion.split(u'.');
        bool ok = parts.size() >= 2 && parts.size() <= 3;
        for (const QString& p : parts) {
            bool number = false;
            p.toInt(&number);
            ok = ok && number;
        }
        if (!ok || parts[0] != QLatin1String("3")) {
            *error = QStringLiteral("--etcd-version: '%1' is not an etcd 3.x version (3.4.23, "
                                    "3.5.13)")
                         .arg(etcdVersion);
            return false;
        }
        scenario.etcd.version = etcdVersion;
    }
    if (compactionInterval)
        scenario.etcd.compactionInterval = *compactionInterval;
    return true;
}

QString ScenarioOverrides::describe() const {
    QStringList parts;
    if (!serverVersion.isEmpty())
        parts << QStringLiteral("kube-apiserver %1").arg(serverVersion);
    if (!clientGo.isEmpty())
        parts << QStringLiteral("client-go %1").arg(clientGo);
    parts += featureGates;
    if (!etcdVersion.isEmpty())
        parts << QStringLiteral("etcd %1").arg(etcdVersion);
    if (compactionInterval)
        parts << (*compactionInterval > 0 ? QStringLiteral("compaction every %1 s")
                                                .arg(*compactionInterval / kUsPerSecond)
                                          : QStringLiteral("no compaction"));
    if (!cluster.isEmpty())
        parts << QStringLiteral("cluster of %1").arg(cluster);
    return parts.join(QStringLiteral(", "));
}

} // namespace ws
