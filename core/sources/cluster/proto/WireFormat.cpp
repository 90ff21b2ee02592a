#include "WireFormat.h"

namespace ws::wire {

bool isBuiltIn(const ResourceInfo& resource) {
    const QString& g = resource.group;
    return g.isEmpty() || !g.contains(u'.') || g.endsWith(QLatin1String(".k8s.io"));
}

QByteArray accept(WireFormat format, const ResourceInfo& resource) {
    const bool secrets = resource.group.isEmpty() && resource.plural == QLatin1String("secrets");
    if (format == WireFormat::Protobuf && isBuiltIn(resource) && !secrets)
        return QByteArray(kProtobuf) + ", application/json";
    return "application/json";
}

bool isProtobuf(const QByteArray& contentType) {
    const QByteArray type = contentType.split(';').value(0).trimmed().toLower();
    return type == kProtobuf;
}

} // namespace ws::wire
