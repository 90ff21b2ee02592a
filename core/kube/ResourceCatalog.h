#pragma once

#include <QString>
#include <QStringList>

namespace ws {

// What discovery says about a resource (metav1.APIResource plus its group/version): the served
// apiserver publishes it, the simulator names its objects' kinds with it.
struct ResourceInfo {
    QString plural;   // configmaps
    QString singular; // configmap
    QString kind;     // ConfigMap
    QString group;    // "" for the core group
    QString version;  // v1
    bool namespaced = true;
    QStringList shortNames;
    QStringList categories; // "all" for what `kubectl get all` lists

    QString groupVersion() const { return group.isEmpty() ? version : group + u'/' + version; }
    // "configmaps" or "deployments.apps": the name --resources and metrics use.
    QString qualifiedName() const { return group.isEmpty() ? plural : plural + u'.' + group; }
    // Where its objects live under /registry: "/pods", "/services/specs", "/minions" (nodes),
    // "/<group>/<plural>" for custom resources; the cacher's resourcePrefix and metric label.
    QString storagePrefix() const;
    // The URL path of the collection: /api/v1[/namespaces/NS]/configmaps.
    QString collectionPath(const QString& ns = {}) const;
};

// The built-in resources of a kube-apiserver that scenarios use; anything else is derived from
// its plural name (core group, v1, namespaced, kind from the singular).
class ResourceCatalog {
public:
    // "configmaps", "deployments.apps" or "deployments": known or derived, never fails.
    static ResourceInfo lookup(const QString& name);
    static bool isKnown(const QString& name);
};

} // namespace ws
