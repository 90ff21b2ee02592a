#include "WatchEventDecoder.h"

#include "JsonFieldReaders.h"
#include "PaddedJsonBuffer.h"
#include "util/OneLine.h"

#include <algorithm>
#include <exception>

namespace ws {

using namespace jsonread;

namespace {

constexpr std::size_t kKeptBufferBytes = std::size_t(1) << 20;

bool fail(QString* error, QString message) {
    if (error)
        *error = std::move(message);
    return false;
}

} // namespace

bool watchEventTypeFromJson(std::string_view text, WatchEventType* out) {
    if (text == "ADDED")
        *out = WatchEventType::Added;
    else if (text == "MODIFIED")
        *out = WatchEventType::Modified;
    else if (text == "DELETED")
        *out = WatchEventType::Deleted;
    else if (text == "BOOKMARK")
        *out = WatchEventType::Bookmark;
    else if (text == "ERROR")
        *out = WatchEventType::Error;
    else
        return false;
    return true;
}

struct WatchEventDecoder::Impl {
    od::parser parser;
    PaddedJsonBuffer buffer;

    bool decode(std::string_view json, WatchEventJson* out, QString* error);
    bool readObject(od::value& value, WatchEventJson* out, QString* error);
};

WatchEventDecoder::WatchEventDecoder() : m_impl(std::make_unique<Impl>()) {}
WatchEventDecoder::~WatchEventDecoder() = default;

bool WatchEventDecoder::decode(std::string_view json, WatchEventJson* out, QString* error) {
    out->clear();
    try {
        const bool ok = m_impl->decode(json, out, error);
        if (!ok)
            out->object = {};
        return ok;
    } catch (const std::exception& e) {
        // bad_alloc for an absurd size, or anything simdjson might throw: an undecodable event,
        // never a crash of the stream's thread.
        out->clear();
        return fail(
            error,
            QStringLiteral("cannot decode the watch event: %1").arg(QString::fromUtf8(e.what())));
    }
}

bool WatchEventDecoder::Impl::decode(std::string_view json, WatchEventJson* out, QString* error) {
    // One huge event must not pin its memory (buffer and parser grow to the largest document)
    // for the rest of the stream.
    if (json.size() < kKeptBufferBytes) {
        buffer.release(kKeptBufferBytes);
        if (parser.capacity() > kKeptBufferBytes)
            parser = od::parser();
    }
    buffer.assign(json);
    od::document doc;
    if (const auto code = parser.iterate(buffer.data(), buffer.size(), buffer.capacity()).get(doc))
        return fail(error, describe(code));
    od::object root;
    if (const auto code = doc.get_object().get(root))
        return fail(error,
                    QStringLiteral("the watch event is not a JSON object: %1").arg(describe(code)));

    bool haveType = false;
    bool haveObject = false;
    bool objectLater = false; // "object" came before "type": read it in a second pass
    for (auto member : root) {
        od::field field;
        std::string_view key;
        if (const auto code = std::move(member).get(field))
            return fail(error, describe(code));
        if (const auto code = field.unescaped_key().get(key))
            return fail(error, describe(code));
        if (key == "type") {
            std::string_view text;
            if (const auto code = field.value().get_string().get(text))
                return fail(error,
                            QStringLiteral("\"type\" is not a string: %1").arg(describe(code)));
            if (!watchEventTypeFromJson(text, &out->type)) {
                return fail(error, QStringLiteral("unknown watch event type \"%1\"")
                                       .arg(QString::fromStdString(oneLine(text.substr(0, 64)))));
            }
            haveType = true;
        } else if (key == "object") {
            haveObject = true;
            if (!haveType) {
                objectLater = true;
                continue;
            }
            objectLater = false;
            if (!readObject(field.value(), out, error))
                return false;
        }
    }
    // Iterating the root to its end leaves the iterator after its '}': anything still there is
    // a second value glued to this one.
    const char* trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS)
        return fail(error, QStringLiteral("unexpected bytes after the watch event"));
    if (!haveType)
        return fail(error, QStringLiteral("the watch event has no \"type\""));
    if (!haveObject)
        return fail(error, QStringLiteral("the watch event has no \"object\""));
    if (objectLater) {
        doc.rewind();
        od::value object;
        if (const auto code = doc.find_field_unordered("object").get(object))
            return fail(error, describe(code));
        if (!readObject(object, out, error))
            return false;
    }
    return true;
}

bool WatchEventDecoder::Impl::readObject(od::value& value, WatchEventJson* out, QString* error) {
    od::object object;
    if (const auto code = value.get_object().get(object))
        return fail(error,
                    QStringLiteral("\"object\" is not a JSON object: %1").arg(describe(code)));
    // Take the raw bytes (a skip over the structural index), then go back to read the members.
    if (const auto code = object.raw_json().get(out->object))
        return fail(error, describe(code));
    bool notEmpty = false;
    if (const auto code = object.reset().get(notEmpty))
        return fail(error, describe(code));

    const bool isError = out->type == WatchEventType::Error;
    ObjectMetaTarget meta;
    meta.name = &out->name;
    meta.ns = &out->ns;
    meta.uid = &out->uid;
    meta.resourceVersion = &out->resourceVersion;
    // Only a BOOKMARK carries the initial-events-end annotation: do not walk every object's
    // annotations (last-applied-configuration can be large) for it.
    if (out->type == WatchEventType::Bookmark)
        meta.initialEventsEnd = &out->initialEventsEnd;

    for (auto member : object) {
        od::field field;
        std::string_view key;
        if (const auto code = std::move(member).get(field))
            return fail(error, describe(code));
        if (const auto code = field.unescaped_key().get(key))
            return fail(error, describe(code));
        if (key == "kind") {
            std::string_view kind;
            if (!readString(field.value(), "object.kind", &kind, error))
                return false;
            out->kind.assign(kind);
        } else if (key == "metadata") {
            if (!readObjectMeta(field.value(), meta, error))
                return false;
        } else if (isError) {
            if (!readStatusMember(key, field.value(), &out->status, error))
                return false;
        }
    }
    return true;
}

} // namespace ws
