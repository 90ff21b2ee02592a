#pragma once

#include "engine/SourceSpec.h"
#include "kube/ResourceCatalog.h"

#include <QString>
#include <QStringList>
#include <atomic>
#include <vector>

namespace ws {

// What connecting to a cluster source spec would find, without watching anything: each
// apiserver's version and the resources it serves (the first one's), or the one line that says
// why it cannot be reached (bad kubeconfig, refused, TLS, 401, 403, a failing exec plugin). The
// connect dialog runs it on a worker thread before it starts a session; run() blocks.
struct ClusterProbeResult {
    bool ok = false;
    QString error;              // one line, no secrets, when !ok
    QString description;        // "context kind (cluster kind, user admin) at https://…"
    QStringList serverVersions; // per apiserver: "v1.31.2"
    std::vector<ResourceInfo> resources;
    QStringList warnings; // how the cluster is reached that the user should know
};

class ClusterProbe {
public:
    // Gives up after `timeoutMs` without an exec plugin running (one line says so), or soon
    // after `cancelled` becomes true.
    static ClusterProbeResult run(const SourceSpec& spec, const std::atomic<bool>& cancelled,
                                  const QString& version = QStringLiteral("dev"),
                                  int timeoutMs = 30000);
};

} // namespace ws
