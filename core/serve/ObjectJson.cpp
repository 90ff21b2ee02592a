#include "ObjectJson.h"

#include "model/WatchEventTypeText.h"
#include "util/JsonText.h"

#include <string_view>

namespace ws::ObjectJson {

namespace {
constexpr std::string_view kEmptyRv = R"("resourceVersion":"")";

} // namespace

void appendObject(std::string& out, const KeyValue& kv, ResourceVersion rv) {
    const std::string_view v = kv.value();
    // Stored values keep an empty resourceVersion as the first one in metadata (ObjectWriter,
    // ServedCluster::write); anything else is served as stored.
    const std::size_t at = v.find(kEmptyRv);
    if (at == std::string_view::npos) {
        out += v;
        return;
    }
    out.append(v.data(), at);
    out += R"("resourceVersion":")";
    out += std::to_string(rv);
    out += '"';
    const std::size_t rest = at + kEmptyRv.size();
    out.append(v.data() + rest, v.size() - rest);
}

void appendEvent(std::string& out, WatchEventType type, const KeyValue& kv, ResourceVersion rv) {
    out += R"({"type":")";
    out += watchEventTypeText(type);
    out += R"(","object":)";
    appendObject(out, kv, rv);
    out += "}\n";
}

void appendBookmark(std::string& out, const ResourceInfo& info, ResourceVersion rv,
                    bool initialEventsEnd, bool zeroCreationTimestamp) {
    out += R"({"type":"BOOKMARK","object":{"kind":)";
    appendJsonString(out, info.kind);
    out += R"(,"apiVersion":)";
    appendJsonString(out, info.groupVersion());
    out += R"(,"metadata":{"resourceVersion":")";
    out += std::to_string(rv);
    out += '"';
    if (zeroCreationTimestamp)
        out += R"(,"creationTimestamp":null)";
    if (initialEventsEnd)
        out += R"(,"annotations":{"k8s.io/initial-events-end":"true"})";
    out += "}}}\n";
}

void appendError(std::string& out, const ApiStatus& status) {
    out += R"({"type":"ERROR","object":)";
    out += status.toJson().toStdString();
    out += "}\n";
}

void openList(std::string& out, const ResourceInfo& info, ResourceVersion rv,
              const std::string& continueToken, std::int64_t remaining) {
    out += R"({"kind":)";
    appendJsonString(out, info.kind + QStringLiteral("List"));
    out += R"(,"apiVersion":)";
    appendJsonString(out, info.groupVersion());
    out += R"(,"metadata":{"resourceVersion":")";
    out += std::to_string(rv);
    out += '"';
    if (!continueToken.empty()) {
        out += R"(,"continue":)";
        appendJsonString(out, std::string_view(continueToken));
        if (remaining > 0)
            out += R"(,"remainingItemCount":)" + std::to_string(remaining);
    }
    out += R"(},"items":[)";
}

void closeList(std::string& out) {
    out += "]}\n";
}

std::string deleteSuccess(const ResourceInfo& info, const QString& name, const QString& uid) {
    std::string out =
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":)";
    appendJsonString(out, name);
    if (!info.group.isEmpty()) {
        out += R"(,"group":)";
        appendJsonString(out, info.group);
    }
    out += R"(,"kind":)";
    appendJsonString(out, info.plural);
    out += R"(,"uid":)";
    appendJsonString(out, uid);
    out += "}}\n";
    return out;
}

} // namespace ws::ObjectJson
