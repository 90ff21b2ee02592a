#include "AuditLog.h"

#include "util/JsonText.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <chrono>
#include <cstring>
#include <ctime>

namespace ws {

namespace {

void appendString(std::string& out, const QString& s) {
    appendJsonString(out, s.toStdString());
}

const char* stageName(AuditLog::Stage stage) {
    switch (stage) {
    case AuditLog::Stage::RequestReceived:
        return "RequestReceived";
    case AuditLog::Stage::ResponseStarted:
        return "ResponseStarted";
    case AuditLog::Stage::ResponseComplete:
        return "ResponseComplete";
    }
    return "";
}

// responseStatus: a metav1.Status body's bounded fields (status, message, reason, details, code:
// audit/context.go LogResponseObject copies them), else only the code the response was written
// with (filters/audit.go processCode).
void appendResponseStatus(std::string& out, int code, std::string_view statusBody) {
    out += R"("responseStatus":{"metadata":{})";
    if (!statusBody.empty()) {
        const QJsonObject s =
            QJsonDocument::fromJson(QByteArray(statusBody.data(), qsizetype(statusBody.size())))
                .object();
        if (s.value(QLatin1String("kind")).toString() == QLatin1String("Status")) {
            for (const char* field : {"status", "message", "reason"}) {
                const QString v = s.value(QLatin1String(field)).toString();
                if (v.isEmpty())
                    continue;
                out += ",\"";
                out += field;
                out += "\":";
                appendString(out, v);
            }
            const QJsonObject details = s.value(QLatin1String("details")).toObject();
            if (!details.isEmpty()) {
                out += R"(,"details":)";
                out += QJsonDocument(details).toJson(QJsonDocument::Compact).toStdString();
            }
        }
    }
    out += R"(,"code":)";
    out += std::to_string(code);
    out += '}';
}

} // namespace

AuditLog::~AuditLog() {
    if (m_file)
        std::fclose(m_file);
}

bool AuditLog::open(const QString& path, QString* error) {
    m_file = std::fopen(QFile::encodeName(path).constData(), "a");
    if (!m_file) {
        *error = QStringLiteral("--audit-log-path %1: %2")
                     .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

std::int64_t AuditLog::nowUnixUs() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string AuditLog::microTime(std::int64_t unixUs) {
    const std::time_t secs = static_cast<std::time_t>(unixUs / 1000000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[40];
    const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(buf + n, sizeof buf - n, ".%06dZ", static_cast<int>(unixUs % 1000000));
    return buf;
}

std::string AuditLog::eventJson(const AuditRecord& r, Stage stage, int code,
                                std::string_view statusBody, std::int64_t nowUnixUs) {
    // Field order of audit.k8s.io/v1 Event as encoding/json writes it.
    std::string out;
    out.reserve(768);
    out += R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":)";
    appendJsonString(out, r.auditId);
    out += R"(,"stage":")";
    out += stageName(stage);
    out += R"(","requestURI":)";
    appendJsonString(out, r.requestUri);
    out += R"(,"verb":)";
    appendJsonString(out, r.verb);
    if (r.failedAuthentication) {
        out += R"(,"user":{})"; // no user: every field of UserInfo is omitempty
    } else if (r.user.isEmpty()) {
        out += R"(,"user":{"username":)";
        out += R"("system:anonymous","groups":["system:unauthenticated"]})";
    } else {
        out += R"(,"user":{"username":)";
        appendString(out, r.user);
        out += R"(,"groups":[)";
        for (qsizetype i = 0; i < r.groups.size(); ++i) {
            if (i)
                out += ',';
            appendString(out, r.groups[i]);
        }
        out += "]}";
    }
    out += R"(,"sourceIPs":[)";
    appendJsonString(out, r.sourceIp);
    out += ']';
    if (!r.userAgent.empty()) {
        out += R"(,"userAgent":)";
        appendJsonString(out, r.userAgent);
    }
    if (r.resourceRequest) {
        // ObjectReference: empty fields are omitted (omitempty), the core group included.
        out += R"(,"objectRef":{)";
        bool first = true;
        for (const auto& [key, value] : {std::pair{"resource", &r.resource},
                                         {"namespace", &r.ns},
                                         {"name", &r.name},
                                         {"apiGroup", &r.apiGroup},
                                         {"apiVersion", &r.apiVersion},
                                         {"subresource", &r.subresource}}) {
            if (value->isEmpty())
                continue;
            if (!first)
                out += ',';
            first = false;
            out += '"';
            out += key;
            out += "\":";
            appendString(out, *value);
        }
        out += '}';
    }
    if (stage != Stage::RequestReceived) {
        out += ',';
        appendResponseStatus(out, code, statusBody);
    }
    out += R"(,"requestReceivedTimestamp":")";
    out += microTime(r.receivedUnixUs);
    // RequestReceived carries the received time as its stage time (processAuditEvent).
    out += R"(","stageTimestamp":")";
    out += microTime(stage == Stage::RequestReceived ? r.receivedUnixUs : nowUnixUs);
    out += '"';
    if (stage != Stage::RequestReceived && !r.failedAuthentication) {
        // The authorizer runs inside the audit filter: its annotations are on the later stages
        // only. AlwaysAllow and this server's group check give no reason.
        out += R"(,"annotations":{"authorization.k8s.io/decision":")";
        out += code == 403 ? "forbid" : "allow";
        out += R"(","authorization.k8s.io/reason":""})";
    }
    out += '}';
    return out;
}

void AuditLog::write(const AuditRecord& record, Stage stage, int code, std::string_view statusBody,
                     std::int64_t nowUnixUs) {
    if (!m_file)
        return;
    std::string line = eventJson(record, stage, code, statusBody, nowUnixUs);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), m_file);
    std::fflush(m_file);
}

} // namespace ws
