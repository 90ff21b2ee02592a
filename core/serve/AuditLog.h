#pragma once

#include "AuditRecord.h"

#include <QString>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace ws {

// `serve --audit-log-path`: kube-apiserver's log backend at level Metadata with a policy that
// omits no stage. One audit.k8s.io/v1 Event per JSON line and stage, as
// k8s.io/apiserver/pkg/endpoints/filters/audit.go writes them: RequestReceived when the request
// arrives, ResponseStarted when a long-running request (a watch) sends its headers, and
// ResponseComplete when the response is over. A request that fails authentication (401) is one
// ResponseStarted line and nothing else (filters/authn_audit.go WithFailedAuthenticationAudit:
// the authentication filter runs outside the audit filter, and its failed handler writes the
// event when the 401 header goes out). Each line is flushed when written, so a reader following
// the file sees every finished stage.
class AuditLog {
public:
    enum class Stage { RequestReceived, ResponseStarted, ResponseComplete };

    AuditLog() = default;
    ~AuditLog();
    AuditLog(const AuditLog&) = delete;
    AuditLog& operator=(const AuditLog&) = delete;

    // Appends to `path` (created if missing); false with one line when it cannot.
    bool open(const QString& path, QString* error);
    bool isOpen() const { return m_file != nullptr; }

    // `code` and `statusBody` (the response body when it is a metav1.Status, else empty) are
    // ignored for RequestReceived. `nowUnixUs` is the stageTimestamp.
    void write(const AuditRecord& record, Stage stage, int code, std::string_view statusBody,
               std::int64_t nowUnixUs);

    static std::int64_t nowUnixUs();
    // RFC 3339 with microseconds in UTC, as metav1.MicroTime marshals.
    static std::string microTime(std::int64_t unixUs);
    // The JSON line without its newline (tests and the writer).
    static std::string eventJson(const AuditRecord& record, Stage stage, int code,
                                 std::string_view statusBody, std::int64_t nowUnixUs);

private:
    std::FILE* m_file = nullptr;
};

} // namespace ws
