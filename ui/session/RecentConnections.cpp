#include "RecentConnections.h"

#include "MostRecentFirst.h"

#include <QDir>
#include <QSettings>

namespace ws {

namespace {
const QString kGroup = QStringLiteral("recentConnections");
} // namespace

RecentConnections::RecentConnections(QSettings* settings) : m_settings(settings) {
    if (!m_settings) {
        m_own = std::make_unique<QSettings>();
        m_settings = m_own.get();
    }
}

QList<SourceSpec> RecentConnections::load() const {
    QList<SourceSpec> out;
    const int n = m_settings->beginReadArray(kGroup);
    for (int i = 0; i < n && out.size() < kMax; ++i) {
        m_settings->setArrayIndex(i);
        SourceSpec s;
        const QString kind = m_settings->value(QStringLiteral("kind")).toString();
        if (kind == QLatin1String("kubeconfig"))
            s.kind = SourceSpec::Kind::Kubeconfig;
        else if (kind == QLatin1String("server"))
            s.kind = SourceSpec::Kind::Server;
        else
            continue; // written by a later version, or edited by hand
        s.kubeconfig = m_settings->value(QStringLiteral("kubeconfig")).toString();
        s.context = m_settings->value(QStringLiteral("context")).toString();
        s.servers = m_settings->value(QStringLiteral("servers")).toStringList();
        s.clientGo = m_settings->value(QStringLiteral("clientGo")).toString();
        s.namespaceScope = m_settings->value(QStringLiteral("namespace")).toString();
        s.resources = m_settings->value(QStringLiteral("resources")).toStringList();
        if (s.kind == SourceSpec::Kind::Server && s.servers.isEmpty())
            continue;
        out << s;
    }
    m_settings->endArray();
    return out;
}

void RecentConnections::remember(const SourceSpec& spec) {
    if (spec.kind != SourceSpec::Kind::Kubeconfig && spec.kind != SourceSpec::Kind::Server)
        return;
    QList<SourceSpec> list = load();
    rememberFirst(list, spec, &RecentConnections::samePlace, kMax);
    save(list);
}

void RecentConnections::clear() {
    save({});
}

void RecentConnections::save(const QList<SourceSpec>& list) {
    m_settings->remove(kGroup);
    m_settings->beginWriteArray(kGroup, int(list.size()));
    for (int i = 0; i < list.size(); ++i) {
        const SourceSpec& s = list[i];
        m_settings->setArrayIndex(i);
        m_settings->setValue(QStringLiteral("kind"), s.kind == SourceSpec::Kind::Server
                                                         ? QStringLiteral("server")
                                                         : QStringLiteral("kubeconfig"));
        m_settings->setValue(QStringLiteral("kubeconfig"), s.kubeconfig);
        m_settings->setValue(QStringLiteral("context"), s.context);
        m_settings->setValue(QStringLiteral("servers"), s.servers);
        m_settings->setValue(QStringLiteral("clientGo"), s.clientGo);
        m_settings->setValue(QStringLiteral("namespace"), s.namespaceScope);
        m_settings->setValue(QStringLiteral("resources"), s.resources);
    }
    m_settings->endArray();
    m_settings->sync();
}

QString RecentConnections::label(const SourceSpec& spec) {
    const QString file = spec.kubeconfig.isEmpty()
                             ? QStringLiteral("default kubeconfig")
                             : QDir::toNativeSeparators(spec.kubeconfig)
                                   .replace(QDir::homePath(), QStringLiteral("~"));
    if (spec.kind == SourceSpec::Kind::Server)
        return QStringLiteral("apiservers %1").arg(spec.servers.join(QStringLiteral(", ")));
    return QStringLiteral("context %1 — %2")
        .arg(spec.context.isEmpty() ? QStringLiteral("(current)") : spec.context, file);
}

bool RecentConnections::samePlace(const SourceSpec& a, const SourceSpec& b) {
    return a.kind == b.kind && a.kubeconfig == b.kubeconfig && a.context == b.context &&
           a.servers == b.servers && a.namespaceScope == b.namespaceScope;
}

} // namespace ws
