// libFuzzer target for API discovery (ApiDiscovery): the documents kube-apiserver answers to
// /version, /api/v1, /apis and /apis/<group>/<version>, as the cluster source reads them before
// its first list. The input is the server's side of the conversation: answers separated by NUL
// bytes, each "<3-digit status>" then its body (no status: 200), handed to the requests in the
// order discovery sent them; requests left without an answer end with a transport error.
#include "FuzzExpect.h"
#include "sources/cluster/discovery/ApiDiscovery.h"
#include "sources/cluster/http/HttpRequest.h"

#include <deque>
#include <string_view>

namespace {

ws::Frame frame(int connection, ws::HttpFrameKind kind, QByteArray bytes) {
    ws::Frame f;
    f.connection = connection;
    f.kind = static_cast<std::uint16_t>(kind);
    f.bytes = std::move(bytes);
    return f;
}

// "404{...}" -> 404 and the body; anything else is a 200 with all of it as the body.
int takeStatus(std::string_view* answer) {
    if (answer->size() >= 3 && answer->at(0) >= '1' && answer->at(0) <= '5' &&
        answer->at(1) >= '0' && answer->at(1) <= '9' && answer->at(2) >= '0' &&
        answer->at(2) <= '9') {
        const int status =
            (answer->at(0) - '0') * 100 + (answer->at(1) - '0') * 10 + (answer->at(2) - '0');
        answer->remove_prefix(3);
        return status;
    }
    return 200;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    std::deque<int> pending;
    int nextId = 1;
    ws::ApiDiscovery discovery(
        QStringLiteral("https://127.0.0.1:6443"), QStringLiteral("admin"), [&] { return nextId++; },
        [&](ws::HttpRequest request) { pending.push_back(request.id); });
    discovery.start();

    int answered = 0;
    while (!pending.empty() && !discovery.done()) {
        const int id = pending.front();
        pending.pop_front();
        if (input.empty() && answered > 0) {
            ws::HttpResponseEnd end;
            end.error = ws::HttpErrorKind::Timeout;
            end.message = QStringLiteral("https://127.0.0.1:6443: timed out");
            discovery.onFrame(frame(id, ws::HttpFrameKind::ResponseEnd, ws::encodeHttpRecord(end)));
            continue;
        }
        const std::size_t cut = input.find('\0');
        std::string_view answer = input.substr(0, cut);
        input = cut == std::string_view::npos ? std::string_view() : input.substr(cut + 1);
        ++answered;
        ws::HttpResponseHead head;
        head.status = takeStatus(&answer);
        head.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
        discovery.onFrame(frame(id, ws::HttpFrameKind::ResponseHead, ws::encodeHttpRecord(head)));
        discovery.onFrame(frame(id, ws::HttpFrameKind::BodyChunk,
                                QByteArray(answer.data(), static_cast<qsizetype>(answer.size()))));
        discovery.onFrame(
            frame(id, ws::HttpFrameKind::ResponseEnd, ws::encodeHttpRecord(ws::HttpResponseEnd())));
    }

    if (!discovery.done())
        __builtin_trap(); // every request ended, so discovery must have ended too
    if (!discovery.succeeded()) {
        ws::fuzz::expectOneLine(discovery.failure());
        return 0;
    }
    for (const ws::ResourceInfo& r : discovery.resources()) {
        // Only what can be listed and watched, and never a subresource.
        if (r.plural.isEmpty() || r.plural.contains(u'/'))
            __builtin_trap();
    }
    return 0;
}
