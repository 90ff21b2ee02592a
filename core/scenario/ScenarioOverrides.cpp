#include "ScenarioOverrides.h"

namespace ws {

namespace {

bool applyFeatureGate(ServerSpec& server, const QString& gate, QString* error) {
    const qsizetype eq = gate.indexOf(u'=');
    const QString name = eq < 0 ? gate : gate.left(eq);
    const QString value = eq < 0 ? QStringLiteral("true") : gate.mid(eq + 1).toLower();
    if (value != QLatin1String("true") && value != QLatin1String("false")) {
        *error = QStringLiteral("--feature-gates: '%1': the value must be true or false").arg(gate);
        return false;
    }
    const bool on = value == QLatin1String("true");
    if (name == QLatin1String("WatchList"))
        server.watchList = on;
    else if (name == QLatin1String("SeparateCacheWatchRPC"))
        server.separateCacheWatchRpc = on;
    else if (name == QLatin1String("ConsistentListFromCache"))
        server.consistentListFromCache = on;
    else {
        *error = QStringLiteral("--feature-gates: unknown gate '%1' (modelled: WatchList, "
                                "SeparateCacheWatchRPC, ConsistentListFromCache)")
                     .arg(name);
        return false;
    }
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
    return true;
}

QString ScenarioOverrides::describe() const {
    QStringList parts;
    if (!serverVersion.isEmpty())
        parts << QStringLiteral("kube-apiserver %1").arg(serverVersion);
    if (!clientGo.isEmpty())
        parts << QStringLiteral("client-go %1").arg(clientGo);
    parts += featureGates;
    return parts.join(QStringLiteral(", "));
}

} // namespace ws
