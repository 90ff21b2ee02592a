#include "ResourceCatalog.h"

#include <array>

namespace ws {

namespace {

struct Known {
    const char* plural;
    const char* singular;
    const char* kind;
    const char* group;
    const char* version;
    bool namespaced;
    const char* shortNames; // comma-separated
    // The categories discovery lists ("all": what `kubectl get all` shows).
    const char* categories = ""; // comma-separated
};

constexpr std::array kKnown = {
    Known{"configmaps", "configmap", "ConfigMap", "", "v1", true, "cm"},
    Known{"pods", "pod", "Pod", "", "v1", true, "po", "all"},
    Known{"secrets", "secret", "Secret", "", "v1", true, ""},
    Known{"services", "service", "Service", "", "v1", true, "svc", "all"},
    Known{"endpoints", "endpoints", "Endpoints", "", "v1", true, "ep"},
    Known{"events", "event", "Event", "", "v1", true, "ev"},
    Known{"nodes", "node", "Node", "", "v1", false, "no"},
    Known{"namespaces", "namespace", "Namespace", "", "v1", false, "ns"},
    Known{"serviceaccounts", "serviceaccount", "ServiceAccount", "", "v1", true, "sa"},
    Known{"persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", "", "v1",
          true, "pvc"},
    Known{"persistentvolumes", "persistentvolume", "PersistentVolume", "", "v1", false, "pv"},
    Known{"deployments", "deployment", "Deployment", "apps", "v1", true, "deploy", "all"},
    Known{"replicasets", "replicaset", "ReplicaSet", "apps", "v1", true, "rs", "all"},
    Known{"statefulsets", "statefulset", "StatefulSet", "apps", "v1", true, "sts", "all"},
    Known{"daemonsets", "daemonset", "DaemonSet", "apps", "v1", true, "ds", "all"},
    Known{"leases", "lease", "Lease", "coordination.k8s.io", "v1", true, ""},
    Known{"endpointslices", "endpointslice", "EndpointSlice", "discovery.k8s.io", "v1", true, ""},
    Known{"jobs", "job", "Job", "batch", "v1", true, "", "all"},
    // node.k8s.io/v1 from 1.20 (v1beta1 before): cluster-scoped.
    Known{"runtimeclasses", "runtimeclass", "RuntimeClass", "node.k8s.io", "v1", false, ""},
};

ResourceInfo toInfo(const Known& k) {
    ResourceInfo r;
    r.plural = QString::fromLatin1(k.plural);
    r.singular = QString::fromLatin1(k.singular);
    r.kind = QString::fromLatin1(k.kind);
    r.group = QString::fromLatin1(k.group);
    r.version = QString::fromLatin1(k.version);
    r.namespaced = k.namespaced;
    r.shortNames = QString::fromLatin1(k.shortNames).split(u',', Qt::SkipEmptyParts);
    r.categories = QString::fromLatin1(k.categories).split(u',', Qt::SkipEmptyParts);
    return r;
}

const Known* find(const QString& name) {
    const qsizetype dot = name.indexOf(u'.');
    const QString plural = dot < 0 ? name : name.left(dot);
    const QString group = dot < 0 ? QString() : name.mid(dot + 1);
    for (const Known& k : kKnown)
        if (plural == QLatin1String(k.plural) && (dot < 0 || group == QLatin1String(k.group)))
            return &k;
    return nullptr;
}

} // namespace

QString ResourceInfo::storagePrefix() const {
    // pkg/registry/*/storage: the resource prefixes that differ from the plural (the inverse of
    // KubernetesKeyDecoder::decodeKey).
    if (plural == QLatin1String("services") && group.isEmpty())
        return QStringLiteral("/services/specs");
    if (plural == QLatin1String("endpoints") && group.isEmpty())
        return QStringLiteral("/services/endpoints");
    if (plural == QLatin1String("nodes") && group.isEmpty())
        return QStringLiteral("/minions");
    if (plural == QLatin1String("replicationcontrollers") && group.isEmpty())
        return QStringLiteral("/controllers");
    if (plural == QLatin1String("ingresses"))
        return QStringLiteral("/ingress");
    // Custom resources, APIServices and CRDs keep their group in the key.
    if ((group.contains(u'.') && !group.endsWith(QLatin1String(".k8s.io"))) ||
        group == QLatin1String("apiregistration.k8s.io") ||
        group == QLatin1String("apiextensions.k8s.io"))
        return QStringLiteral("/%1/%2").arg(group, plural);
    return u'/' + plural;
}

QString ResourceInfo::collectionPath(const QString& ns) const {
    QString path = group.isEmpty() ? QStringLiteral("/api/") + version
                                   : QStringLiteral("/apis/") + group + u'/' + version;
    if (namespaced && !ns.isEmpty())
        path += QStringLiteral("/namespaces/") + ns;
    return path + u'/' + plural;
}

ResourceInfo ResourceCatalog::lookup(const QString& name) {
    if (const Known* k = find(name))
        return toInfo(*k);
    // Unknown: a core-group, namespaced resource whose kind is its singular, capitalised.
    ResourceInfo r;
    const qsizetype dot = name.indexOf(u'.');
    r.plural = dot < 0 ? name : name.left(dot);
    r.group = dot < 0 ? QString() : name.mid(dot + 1);
    r.version = QStringLiteral("v1");
    r.singular = r.plural.endsWith(u's') ? r.plural.chopped(1) : r.plural;
    r.kind = r.singular;
    if (!r.kind.isEmpty())
        r.kind[0] = r.kind[0].toUpper();
    return r;
}

bool ResourceCatalog::isKnown(const QString& name) {
    return find(name) != nullptr;
}

} // namespace ws
