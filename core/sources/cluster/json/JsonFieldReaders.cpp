#include "JsonFieldReaders.h"

#include "util/OneLine.h"

#include <limits>

namespace ws::jsonread {

namespace {

QString toQString(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

bool fail(QString* error, QString message) {
    if (error)
        *error = std::move(message);
    return false;
}

bool failAt(QString* error, std::string_view what, simdjson::error_code code) {
    return fail(error, QStringLiteral("%1: %2").arg(toQString(what), describe(code)));
}

bool readInt(od::value& value, std::string_view what, int* out, QString* error) {
    std::int64_t v = 0;
    if (const auto code = value.get_int64().get(v))
        return failAt(error, what, code);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        return fail(error, QStringLiteral("%1: %2 is out of range").arg(toQString(what)).arg(v));
    *out = static_cast<int>(v);
    return true;
}

bool readQString(od::value& value, std::string_view what, QString* out, QString* error) {
    std::string_view text;
    if (!readString(value, what, &text, error))
        return false;
    *out = toQString(text);
    return true;
}

// The first element of details.causes; the others are ignored (Status bodies about watch and
// list errors carry one cause).
bool readFirstCause(od::value& causes, ApiStatus* status, QString* error) {
    od::array array;
    if (const auto code = causes.get_array().get(array))
        return failAt(error, "details.causes", code);
    for (auto element : array) {
        od::object cause;
        if (const auto code = element.get_object().get(cause))
            return failAt(error, "details.causes[0]", code);
        status->hasCause = true;
        for (auto member : cause) {
            od::field field;
            std::string_view key;
            if (const auto code = std::move(member).get(field))
                return failAt(error, "details.causes[0]", code);
            if (const auto code = field.unescaped_key().get(key))
                return failAt(error, "details.causes[0]", code);
            if (key == "reason") {
                if (!readQString(field.value(), "details.causes[0].reason", &status->causeReason,
                                 error))
                    return false;
            } else if (key == "message") {
                if (!readQString(field.value(), "details.causes[0].message", &status->causeMessage,
                                 error))
                    return false;
            }
        }
        break;
    }
    return true;
}

bool readDetails(od::value& value, ApiStatus* status, QString* error) {
    od::object details;
    if (const auto code = value.get_object().get(details))
        return failAt(error, "details", code);
    for (auto member : details) {
        od::field field;
        std::string_view key;
        if (const auto code = std::move(member).get(field))
            return failAt(error, "details", code);
        if (const auto code = field.unescaped_key().get(key))
            return failAt(error, "details", code);
        if (key == "causes") {
            if (!readFirstCause(field.value(), status, error))
                return false;
        } else if (key == "retryAfterSeconds") {
            if (!readInt(field.value(), "details.retryAfterSeconds", &status->retryAfterSeconds,
                         error))
                return false;
        }
    }
    return true;
}

bool readAnnotations(od::value& value, bool* initialEventsEnd, QString* error) {
    od::object annotations;
    if (const auto code = value.get_object().get(annotations))
        return failAt(error, "metadata.annotations", code);
    for (auto member : annotations) {
        od::field field;
        std::string_view key;
        if (const auto code = std::move(member).get(field))
            return failAt(error, "metadata.annotations", code);
        if (const auto code = field.unescaped_key().get(key))
            return failAt(error, "metadata.annotations", code);
        if (key == "k8s.io/initial-events-end") {
            std::string_view text;
            if (!readString(field.value(), "metadata.annotations[k8s.io/initial-events-end]", &text,
                            error))
                return false;
            *initialEventsEnd = text == "true";
        }
    }
    return true;
}

} // namespace

QString describe(simdjson::error_code code) {
    return QStringLiteral("invalid JSON (%1)").arg(QLatin1String(simdjson::error_message(code)));
}

bool readString(od::value& value, std::string_view what, std::string_view* out, QString* error) {
    od::json_type type;
    if (const auto code = value.type().get(type))
        return failAt(error, what, code);
    if (type == od::json_type::null) {
        // type() only peeks at the first byte: is_null() checks the literal really is null.
        bool isNull = false;
        if (const auto code = value.is_null().get(isNull))
            return failAt(error, what, code);
        *out = {};
        return true;
    }
    if (type != od::json_type::string)
        return fail(error, QStringLiteral("%1 is not a string").arg(toQString(what)));
    if (const auto code = value.get_string().get(*out))
        return failAt(error, what, code);
    return true;
}

bool readObjectMeta(od::value& metadata, const ObjectMetaTarget& target, QString* error) {
    od::object object;
    if (const auto code = metadata.get_object().get(object))
        return failAt(error, "metadata", code);
    for (auto member : object) {
        od::field field;
        std::string_view key;
        if (const auto code = std::move(member).get(field))
            return failAt(error, "metadata", code);
        if (const auto code = field.unescaped_key().get(key))
            return failAt(error, "metadata", code);
        std::string* text = nullptr;
        std::string_view what;
        if (key == "name") {
            text = target.name;
            what = "metadata.name";
        } else if (key == "namespace") {
            text = target.ns;
            what = "metadata.namespace";
        } else if (key == "uid") {
            text = target.uid;
            what = "metadata.uid";
        }
        if (text) {
            std::string_view value;
            if (!readString(field.value(), what, &value, error))
                return false;
            text->assign(value);
        } else if (key == "resourceVersion" && target.resourceVersion) {
            std::string_view value;
            if (!readString(field.value(), "metadata.resourceVersion", &value, error))
                return false;
            if (!parseResourceVersion(value, target.resourceVersion)) {
                return fail(error, QStringLiteral("metadata.resourceVersion \"%1\" is not a "
                                                  "decimal number")
                                       .arg(toQString(oneLine(value.substr(0, 64)))));
            }
        } else if (key == "annotations" && target.initialEventsEnd) {
            if (!readAnnotations(field.value(), target.initialEventsEnd, error))
                return false;
        }
    }
    return true;
}

bool readStatusMember(std::string_view key, od::value& value, ApiStatus* status, QString* error) {
    if (key == "code")
        return readInt(value, "code", &status->code, error);
    if (key == "reason")
        return readQString(value, "reason", &status->reason, error);
    if (key == "message")
        return readQString(value, "message", &status->message, error);
    if (key == "details")
        return readDetails(value, status, error);
    return true;
}

} // namespace ws::jsonread
