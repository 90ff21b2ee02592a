#include "WireFormat.h"

#include <algorithm>
#include <array>

namespace ws::wire {

bool hasTypedClient(const ResourceInfo& resource) {
    // The groups of k8s.io/client-go/kubernetes/typed/ in 0.32-0.36: "" is core; the
    // unqualified ones are the groups of 1.0-1.8; storagemigration.k8s.io is the newest.
    static constexpr std::array<QLatin1String, 22> kGroups{
        QLatin1String(""),
        QLatin1String("admissionregistration.k8s.io"),
        QLatin1String("internal.apiserver.k8s.io"),
        QLatin1String("apps"),
        QLatin1String("authentication.k8s.io"),
        QLatin1String("authorization.k8s.io"),
        QLatin1String("autoscaling"),
        QLatin1String("batch"),
        QLatin1String("certificates.k8s.io"),
        QLatin1String("coordination.k8s.io"),
        QLatin1String("discovery.k8s.io"),
        QLatin1String("events.k8s.io"),
        QLatin1String("extensions"),
        QLatin1String("flowcontrol.apiserver.k8s.io"),
        QLatin1String("networking.k8s.io"),
        QLatin1String("node.k8s.io"),
        QLatin1String("policy"),
        QLatin1String("rbac.authorization.k8s.io"),
        QLatin1String("resource.k8s.io"),
        QLatin1String("scheduling.k8s.io"),
        QLatin1String("storage.k8s.io"),
        QLatin1String("storagemigration.k8s.io"),
    };
    return std::find(kGroups.begin(), kGroups.end(), resource.group) != kGroups.end();
}

QByteArray accept(WireFormat format, const ResourceInfo& resource) {
    const bool secrets = resource.group.isEmpty() && resource.plural == QLatin1String("secrets");
    if (format == WireFormat::Protobuf && hasTypedClient(resource) && !secrets)
        return QByteArray(kProtobuf) + ",application/json";
    return "application/json";
}

bool isProtobuf(const QByteArray& contentType) {
    const QByteArray type = contentType.split(';').value(0).trimmed().toLower();
    return type == kProtobuf;
}

} // namespace ws::wire
