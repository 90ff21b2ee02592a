#include "SourceSpec.h"

#include <QRegularExpression>

namespace ws {

QString SourceSpec::kindName(Kind kind) {
    switch (kind) {
    case Kind::Scenario:
        return QStringLiteral("scenario");
    case Kind::Etcd:
        return QStringLiteral("etcd");
    case Kind::Kubeconfig:
        return QStringLiteral("kubeconfig");
    case Kind::Server:
        return QStringLiteral("server");
    case Kind::AuditLog:
        return QStringLiteral("audit log");
    case Kind::Capture:
        return QStringLiteral("capture");
    }
    return {};
}

QString SourceSpec::namespaceProblem(const QString& ns) {
    static const QRegularExpression label(QStringLiteral("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"));
    if (label.match(ns).hasMatch())
        return {};
    return QStringLiteral("'%1' is not a namespace name (lower-case letters, digits and '-', at "
                          "most 63)")
        .arg(ns);
}

QString SourceSpec::describe() const {
    switch (kind) {
    case Kind::Scenario: {
        const QString speed =
            scenario.speed <= 0 ? QStringLiteral("max") : QStringLiteral("%1x").arg(scenario.speed);
        QString d = QStringLiteral("scenario %1").arg(scenario.scenario);
        if (scenario.seed)
            d += QStringLiteral(", seed %1").arg(*scenario.seed);
        return d + QStringLiteral(", speed %1").arg(speed);
    }
    case Kind::Etcd: {
        QString d = QStringLiteral("etcd %1, prefix %2")
                        .arg(etcd.endpoints.join(QLatin1Char(',')), etcd.prefix);
        if (etcd.tls())
            d += QStringLiteral(", TLS");
        return d;
    }
    case Kind::Kubeconfig:
        return QStringLiteral("kubeconfig %1%2%3")
            .arg(kubeconfig, context.isEmpty() ? QString() : QStringLiteral(", context ") + context,
                 namespaceScope.isEmpty() ? QString()
                                          : QStringLiteral(", namespace ") + namespaceScope);
    case Kind::Server:
        return QStringLiteral("apiserver %1%2")
            .arg(servers.join(QLatin1Char(',')),
                 namespaceScope.isEmpty() ? QString()
                                          : QStringLiteral(", namespace ") + namespaceScope);
    case Kind::AuditLog:
        return QStringLiteral("audit log %1").arg(auditLogs.join(QLatin1Char(',')));
    case Kind::Capture:
        return QStringLiteral("capture %1").arg(capture);
    }
    return {};
}

} // namespace ws
