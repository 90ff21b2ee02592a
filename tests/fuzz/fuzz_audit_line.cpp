// libFuzzer target for the audit-log line parser (core/sources/audit/AuditLineParser): any bytes
// as one line must neither crash nor trip ASan/UBSan, and end in an event, an ignored line, or
// one error line. An event's requestURI then goes through the URL parser the source uses.
#include "kube/ApiRequest.h"
#include "sources/audit/AuditLineParser.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static ws::AuditLineParser parser; // reused line after line, as the source does
    // The parser may read 64 bytes past the line; their content must not matter.
    std::vector<char> line(data, data + size);
    line.resize(size + 64, '{');
    ws::AuditEvent event;
    const auto result = parser.parse(std::string_view(line.data(), size), &event);
    using R = ws::AuditLineParser::Result;
    if (result == R::Event) {
        if (event.auditId.empty() || event.received == 0)
            __builtin_trap(); // an event always has what a request is put together by
        QString error;
        (void)ws::ApiRequest::parse(QStringLiteral("GET"), QString::fromStdString(event.requestUri),
                                    &error);
    } else if (result != R::Ignored) {
        if (parser.error().isEmpty() || parser.error().contains(u'\n'))
            __builtin_trap(); // a refusal is one line, always
    }
    return 0;
}
