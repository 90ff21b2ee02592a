#pragma once

#include "AuditEvent.h"

#include <QString>
#include <memory>
#include <string_view>

namespace ws {

// One JSON line of a kube-apiserver audit log (audit.k8s.io/v1 or v1beta1 Event) into an
// AuditEvent, with simdjson On-Demand and one parser reused line after line. Only list and
// watch requests are kept: any other verb is Ignored as soon as the verb is read.
class AuditLineParser {
public:
    enum class Result { Event, Ignored, Broken, UnknownApiVersion, UnknownKind };

    AuditLineParser();
    ~AuditLineParser();
    AuditLineParser(const AuditLineParser&) = delete;
    AuditLineParser& operator=(const AuditLineParser&) = delete;

    // `line` must be readable up to line.size() + simdjson's padding (64) bytes; what lies
    // there does not matter. On anything but Event, error() says why in one line.
    Result parse(std::string_view line, AuditEvent* out);
    const QString& error() const { return m_error; }

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    QString m_error;
};

} // namespace ws
