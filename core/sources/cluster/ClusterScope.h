#pragma once

#include <QString>

namespace ws {

// Where the informers list and watch. Cluster-wide unless `onlyNamespace` is set (--namespace,
// as kubectl -n: namespaced resources there, cluster-scoped ones left out). `forbiddenFallback`
// is the kubeconfig context's own namespace: a resource whose cluster-wide LIST is forbidden is
// listed and watched there instead, as a user whose rights end at that namespace can.
struct ClusterScope {
    QString onlyNamespace;
    QString forbiddenFallback;
};

} // namespace ws
