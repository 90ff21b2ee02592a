#include "StatusJson.h"

#include "JsonFieldReaders.h"
#include "PaddedJsonBuffer.h"

#include <exception>

namespace ws {

using namespace jsonread;

namespace {

std::optional<ApiStatus> fail(QString* error, QString message) {
    if (error)
        *error = std::move(message);
    return std::nullopt;
}

std::optional<ApiStatus> parse(std::string_view body, QString* error) {
    // Error bodies are rare and small: a parser per call keeps this free of shared state.
    PaddedJsonBuffer buffer;
    buffer.assign(body);
    od::parser parser;
    od::document doc;
    if (const auto code = parser.iterate(buffer.data(), buffer.size(), buffer.capacity()).get(doc))
        return fail(error, QStringLiteral("Status body: %1").arg(describe(code)));
    od::object root;
    if (const auto code = doc.get_object().get(root))
        return fail(error,
                    QStringLiteral("Status body is not a JSON object: %1").arg(describe(code)));
    ApiStatus status;
    bool isStatus = false;
    QString memberError;
    for (auto member : root) {
        od::field field;
        std::string_view key;
        if (const auto code = std::move(member).get(field))
            return fail(error, QStringLiteral("Status body: %1").arg(describe(code)));
        if (const auto code = field.unescaped_key().get(key))
            return fail(error, QStringLiteral("Status body: %1").arg(describe(code)));
        if (key == "kind") {
            std::string_view kind;
            if (!readString(field.value(), "kind", &kind, &memberError))
                return fail(error, QStringLiteral("Status body: %1").arg(memberError));
            isStatus = kind == "Status";
        } else if (!readStatusMember(key, field.value(), &status, &memberError)) {
            return fail(error, QStringLiteral("Status body: %1").arg(memberError));
        }
    }
    const char* trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS)
        return fail(error, QStringLiteral("Status body: unexpected bytes after the object"));
    if (!isStatus)
        return fail(error, QStringLiteral("the body is JSON but not a metav1.Status"));
    return status;
}

} // namespace

std::optional<ApiStatus> parseStatusJson(std::string_view body, QString* error) {
    try {
        return parse(body, error);
    } catch (const std::exception& e) {
        return fail(error, QStringLiteral("Status body: %1").arg(QString::fromUtf8(e.what())));
    }
}

} // namespace ws
