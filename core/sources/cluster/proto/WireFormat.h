#pragma once

#include "kube/ResourceCatalog.h"

#include <QByteArray>
#include <QString>

namespace ws {

// The wire format of the cluster source's watches: JSON (the default), or protobuf for built-in
// resources as client-go's typed clients ask for it (rest.Config.ContentType).
enum class WireFormat { Json, Protobuf };

namespace wire {

inline constexpr const char* kProtobuf = "application/vnd.kubernetes.protobuf";

// Whether a resource has protobuf encodings at all: the built-in API groups (core, the
// unqualified ones like apps, and *.k8s.io). Custom resources are JSON only; client-go's
// dynamic clients ask them for JSON.
bool isBuiltIn(const ResourceInfo& resource);

// The Accept header of a list or watch of `resource`: with protobuf,
// "application/vnd.kubernetes.protobuf, application/json" (client-go's AcceptContentTypes, so a
// server without it for the type answers JSON), for built-in resources but Secrets, whose bodies
// are redacted as JSON before anything decodes or records them. Otherwise application/json.
QByteArray accept(WireFormat format, const ResourceInfo& resource);

// A response Content-Type of the protobuf stream (`application/vnd.kubernetes.protobuf`, with
// or without `;stream=watch`); false for JSON and anything else.
bool isProtobuf(const QByteArray& contentType);

} // namespace wire

} // namespace ws
