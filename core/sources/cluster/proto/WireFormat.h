#pragma once

#include "kube/ResourceCatalog.h"

#include <QByteArray>
#include <QString>

namespace ws {

// The wire format of the cluster source's lists and watches: protobuf for the resources of
// client-go's typed clientset (the default from client-go 0.32, ClientProfile::protobufWire), or
// JSON.
enum class WireFormat { Json, Protobuf };

namespace wire {

inline constexpr const char* kProtobuf = "application/vnd.kubernetes.protobuf";

// Whether client-go's typed clientset (k8s.io/client-go/kubernetes) has a client for the
// resource's group: the built-in groups, whose typed clients prefer protobuf from 0.32
// (gentype.PrefersProtobuf). Custom resources (a CRD's group may end in .k8s.io too) and
// aggregated APIs have their own clientsets, or the dynamic client, which ask for JSON.
bool hasTypedClient(const ResourceInfo& resource);

// The Accept header of a list or watch of `resource`: with protobuf,
// "application/vnd.kubernetes.protobuf,application/json" (what rest.Request's
// UseProtobufAsDefault sets, so a server without protobuf for the type answers JSON), for the
// typed clientset's resources but Secrets, whose bodies are redacted as JSON before anything
// decodes or records them. Otherwise application/json.
QByteArray accept(WireFormat format, const ResourceInfo& resource);

// A response Content-Type of the protobuf stream (`application/vnd.kubernetes.protobuf`, with
// or without `;stream=watch`); false for JSON and anything else.
bool isProtobuf(const QByteArray& contentType);

} // namespace wire

} // namespace ws
