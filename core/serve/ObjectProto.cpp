#include "ObjectProto.h"

#include "model/WatchEventTypeText.h"
#include "util/ProtoWireWriter.h"

#include <QByteArray>
#include <QDateTime>
#include <simdjson.h>

#include <algorithm>
#include <vector>

namespace ws::ObjectProto {

namespace dom = simdjson::dom;

namespace {

constexpr std::string_view kMagic("k8s\0", 4);

std::string toUtf8(const QString& s) {
    return s.toStdString();
}

// What the JSON-to-protobuf conversion of one stored object needs: where it failed.
struct Converter {
    std::string* error;

    bool fail(std::string message) {
        *error = std::move(message);
        return false;
    }
    // Built by append: GCC 12's -Warray-bounds misfires on std::string(what) + "...".
    bool fail(std::string_view what, std::string_view problem) {
        std::string message;
        message.reserve(what.size() + problem.size());
        message.append(what).append(problem);
        return fail(std::move(message));
    }

    bool string(dom::element e, const char* what, std::string_view* out) {
        if (e.is_null()) {
            *out = {};
            return true;
        }
        if (e.get_string().get(*out) != simdjson::SUCCESS)
            return fail(what, " is not a string");
        return true;
    }

    bool int64(dom::element e, const char* what, std::int64_t* out) {
        if (e.get_int64().get(*out) != simdjson::SUCCESS)
            return fail(what, " is not an integer");
        return true;
    }

    bool boolean(dom::element e, const char* what, bool* out) {
        if (e.get_bool().get(*out) != simdjson::SUCCESS)
            return fail(what, " is not a boolean");
        return true;
    }

    // metav1.Time: RFC 3339 in JSON, {seconds=1, nanos=2} in protobuf. null: absent.
    bool time(ProtoWireWriter& w, std::uint32_t field, dom::element e, const char* what) {
        if (e.is_null())
            return true;
        std::string_view text;
        if (!string(e, what, &text))
            return false;
        const QDateTime t = QDateTime::fromString(
            QString::fromUtf8(text.data(), qsizetype(text.size())), Qt::ISODateWithMs);
        if (!t.isValid())
            return fail(what, " is not an RFC 3339 time");
        std::string sub;
        ProtoWireWriter s{&sub};
        const std::int64_t ms = t.toMSecsSinceEpoch();
        const std::int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
        s.tag(1, 0);
        s.varint(static_cast<std::uint64_t>(secs));
        if (const auto nanos = (ms - secs * 1000) * 1000000) {
            s.tag(2, 0);
            s.varint(static_cast<std::uint64_t>(nanos));
        }
        w.bytes(field, sub);
        return true;
    }

    // map<string,string> (or bytes, base64 in JSON): one entry {key=1, value=2} per member, in
    // key order as Go's generated marshallers write them.
    bool map(ProtoWireWriter& w, std::uint32_t field, dom::element e, const char* what,
             bool base64 = false) {
        if (e.is_null())
            return true;
        dom::object o;
        if (e.get_object().get(o) != simdjson::SUCCESS)
            return fail(what, " is not an object");
        std::vector<std::pair<std::string_view, std::string_view>> entries;
        for (const dom::key_value_pair kv : o) {
            std::string_view v;
            if (!string(kv.value, what, &v))
                return false;
            entries.emplace_back(kv.key, v);
        }
        std::sort(entries.begin(), entries.end());
        std::string entry;
        for (const auto& [key, value] : entries) {
            entry.clear();
            ProtoWireWriter s{&entry};
            s.bytes(1, key);
            if (base64) {
                const auto decoded = QByteArray::fromBase64Encoding(
                    QByteArray::fromRawData(value.data(), qsizetype(value.size())),
                    QByteArray::AbortOnBase64DecodingErrors);
                if (!decoded)
                    return fail(what, " holds a value that is not base64");
                s.bytes(2, std::string_view(decoded.decoded.constData(),
                                            std::size_t(decoded.decoded.size())));
            } else {
                s.bytes(2, value);
            }
            w.bytes(field, entry);
        }
        return true;
    }

    bool strings(ProtoWireWriter& w, std::uint32_t field, dom::element e, const char* what) {
        if (e.is_null())
            return true;
        dom::array a;
        if (e.get_array().get(a) != simdjson::SUCCESS)
            return fail(what, " is not an array");
        for (const dom::element item : a) {
            std::string_view v;
            if (!string(item, what, &v))
                return false;
            w.bytes(field, v);
        }
        return true;
    }

    // OwnerReference: kind=1, name=3, uid=4, apiVersion=5, controller=6, blockOwnerDeletion=7.
    bool ownerReference(ProtoWireWriter& w, dom::element e) {
        dom::object o;
        if (e.get_object().get(o) != simdjson::SUCCESS)
            return fail("metadata.ownerReferences holds a non-object");
        std::string sub;
        ProtoWireWriter s{&sub};
        for (const dom::key_value_pair kv : o) {
            const std::uint32_t n = kv.key == "kind"                 ? 1
                                    : kv.key == "name"               ? 3
                                    : kv.key == "uid"                ? 4
                                    : kv.key == "apiVersion"         ? 5
                                    : kv.key == "controller"         ? 6
                                    : kv.key == "blockOwnerDeletion" ? 7
                                                                     : 0;
            if (n >= 6) {
                bool b = false;
                if (!boolean(kv.value, "metadata.ownerReferences flag", &b))
                    return false;
                s.tag(n, 0);
                s.varint(b ? 1 : 0);
            } else if (n) {
                std::string_view v;
                if (!string(kv.value, "metadata.ownerReferences field", &v))
                    return false;
                s.bytes(n, v);
            }
        }
        w.bytes(13, sub);
        return true;
    }

    // ManagedFieldsEntry: manager=1, operation=2, apiVersion=3, time=4, fieldsType=6,
    // fieldsV1=7 (FieldsV1{raw=1}: the JSON of the field set), subresource=8.
    bool managedFields(ProtoWireWriter& w, dom::element e) {
        dom::object o;
        if (e.get_object().get(o) != simdjson::SUCCESS)
            return fail("metadata.managedFields holds a non-object");
        std::string sub;
        ProtoWireWriter s{&sub};
        for (const dom::key_value_pair kv : o) {
            const std::uint32_t n = kv.key == "manager"       ? 1
                                    : kv.key == "operation"   ? 2
                                    : kv.key == "apiVersion"  ? 3
                                    : kv.key == "fieldsType"  ? 6
                                    : kv.key == "subresource" ? 8
                                                              : 0;
            if (n) {
                std::string_view v;
                if (!string(kv.value, "metadata.managedFields field", &v))
                    return false;
                s.bytes(n, v);
            } else if (kv.key == "time") {
                if (!time(s, 4, kv.value, "metadata.managedFields time"))
                    return false;
            } else if (kv.key == "fieldsV1") {
                std::string fields;
                ProtoWireWriter f{&fields};
                f.bytes(1, simdjson::minify(kv.value));
                s.bytes(7, fields);
            }
        }
        w.bytes(17, sub);
        return true;
    }

    bool objectMeta(ProtoWireWriter& w, dom::element e, ResourceVersion rv) {
        dom::object o;
        if (e.get_object().get(o) != simdjson::SUCCESS)
            return fail("metadata is not an object");
        for (const dom::key_value_pair kv : o) {
            const std::string_view k = kv.key;
            const std::uint32_t n = k == "name"           ? 1
                                    : k == "generateName" ? 2
                                    : k == "namespace"    ? 3
                                    : k == "selfLink"     ? 4
                                    : k == "uid"          ? 5
                                                          : 0;
            if (n) {
                std::string_view v;
                if (!string(kv.value, "metadata string field", &v))
                    return false;
                w.bytes(n, v);
            } else if (k == "generation" || k == "deletionGracePeriodSeconds") {
                std::int64_t v = 0;
                if (!int64(kv.value, "metadata integer field", &v))
                    return false;
                w.tag(k == "generation" ? 7 : 10, 0);
                w.varint(static_cast<std::uint64_t>(v));
            } else if (k == "creationTimestamp" || k == "deletionTimestamp") {
                if (!time(w, k == "creationTimestamp" ? 8 : 9, kv.value, "metadata timestamp"))
                    return false;
            } else if (k == "labels" || k == "annotations") {
                if (!map(w, k == "labels" ? 11 : 12, kv.value, "metadata labels/annotations"))
                    return false;
            } else if (k == "finalizers") {
                if (!strings(w, 14, kv.value, "metadata.finalizers"))
                    return false;
            } else if (k == "ownerReferences" || k == "managedFields") {
                dom::array a;
                if (kv.value.get_array().get(a) != simdjson::SUCCESS)
                    return fail(k, " (metadata) is not an array");
                for (const dom::element item : a)
                    if (!(k == "ownerReferences" ? ownerReference(w, item)
                                                 : managedFields(w, item)))
                        return false;
            }
            // resourceVersion is written below: the served one, not the stored "".
        }
        w.bytes(6, std::to_string(rv));
        return true;
    }

    bool configMap(ProtoWireWriter& w, dom::element root, ResourceVersion rv) {
        dom::object o;
        if (root.get_object().get(o) != simdjson::SUCCESS)
            return fail("the stored value is not a JSON object");
        dom::element metadata;
        if (o["metadata"].get(metadata) != simdjson::SUCCESS)
            return fail("the stored object has no metadata");
        std::string meta;
        ProtoWireWriter m{&meta};
        if (!objectMeta(m, metadata, rv))
            return false;
        w.bytes(1, meta);
        dom::element e;
        if (o["data"].get(e) == simdjson::SUCCESS && !map(w, 2, e, "data"))
            return false;
        if (o["binaryData"].get(e) == simdjson::SUCCESS && !map(w, 3, e, "binaryData", true))
            return false;
        if (o["immutable"].get(e) == simdjson::SUCCESS && !e.is_null()) {
            bool b = false;
            if (!boolean(e, "immutable", &b))
                return false;
            w.tag(4, 0);
            w.varint(b ? 1 : 0);
        }
        return true;
    }
};

// "k8s\0" + runtime.Unknown{typeMeta, raw, contentEncoding "", contentType ""}: Go's generated
// marshaller writes the empty strings too.
void appendEnvelope(std::string& out, std::string_view apiVersion, std::string_view kind,
                    std::string_view raw) {
    out += kMagic;
    std::string typeMeta;
    ProtoWireWriter t{&typeMeta};
    t.bytes(1, apiVersion);
    t.bytes(2, kind);
    ProtoWireWriter w{&out};
    w.bytes(1, typeMeta);
    w.bytes(2, raw);
    w.bytes(3, {});
    w.bytes(4, {});
}

// Frames `event` (metav1.WatchEvent{type, object=RawExtension{raw=envelope}}) into out.
void appendFrame(std::string& out, const char* type, std::string_view envelope) {
    std::string raw;
    ProtoWireWriter r{&raw};
    r.bytes(1, envelope);
    std::string event;
    ProtoWireWriter e{&event};
    e.bytes(1, type);
    e.bytes(2, raw);
    const auto n = static_cast<std::uint32_t>(event.size());
    out += static_cast<char>(n >> 24);
    out += static_cast<char>(n >> 16);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(n);
    out += event;
}

} // namespace

bool encodes(const ResourceInfo& info) {
    return info.group.isEmpty() && info.version == QLatin1String("v1") &&
           info.kind == QLatin1String("ConfigMap");
}

namespace {

// The typed object (a ConfigMap message, no envelope) appended to out.
bool appendTyped(std::string& out, const ResourceInfo& info, const KeyValue& kv, ResourceVersion rv,
                 std::string* error) {
    if (!encodes(info)) {
        *error = "no protobuf encoding for " + toUtf8(info.kind);
        return false;
    }
    // The serve thread's parser, reused: it keeps its buffers between objects.
    thread_local dom::parser parser;
    const std::string_view stored = kv.value();
    dom::element root;
    if (const auto code = parser.parse(stored.data(), stored.size(), true).get(root)) {
        *error = std::string("the stored value is not JSON: ") + simdjson::error_message(code);
        return false;
    }
    ProtoWireWriter w{&out};
    Converter c{error};
    return c.configMap(w, root, rv);
}

} // namespace

bool appendObject(std::string& out, const ResourceInfo& info, const KeyValue& kv,
                  ResourceVersion rv, std::string* error) {
    std::string typed;
    if (!appendTyped(typed, info, kv, rv, error))
        return false;
    appendEnvelope(out, toUtf8(info.groupVersion()), toUtf8(info.kind), typed);
    return true;
}

bool appendList(std::string& out, const ResourceInfo& info, ResourceVersion rv,
                const std::string& continueToken, std::int64_t remaining,
                const std::vector<KeyValuePtr>& items, std::string* error) {
    std::string listMeta;
    ProtoWireWriter l{&listMeta};
    l.bytes(2, std::to_string(rv));
    if (!continueToken.empty()) {
        l.bytes(3, continueToken);
        if (remaining > 0) {
            l.tag(4, 0);
            l.varint(static_cast<std::uint64_t>(remaining));
        }
    }
    std::string typed;
    ProtoWireWriter w{&typed};
    w.bytes(1, listMeta);
    std::string item;
    for (const KeyValuePtr& kv : items) {
        item.clear();
        if (!appendTyped(item, info, *kv, kv->modRev, error)) {
            *error = "item at resourceVersion " + std::to_string(kv->modRev) + ": " + *error;
            return false;
        }
        w.bytes(2, item);
    }
    appendEnvelope(out, toUtf8(info.groupVersion()), toUtf8(info.kind + QStringLiteral("List")),
                   typed);
    return true;
}

bool appendEvent(std::string& out, WatchEventType type, const ResourceInfo& info,
                 const KeyValue& kv, ResourceVersion rv, std::string* error) {
    std::string envelope;
    if (!appendObject(envelope, info, kv, rv, error))
        return false;
    appendFrame(out, watchEventTypeText(type), envelope);
    return true;
}

void appendBookmark(std::string& out, const ResourceInfo& info, ResourceVersion rv,
                    bool initialEventsEnd) {
    std::string meta;
    ProtoWireWriter m{&meta};
    m.bytes(6, std::to_string(rv));
    if (initialEventsEnd) {
        std::string entry;
        ProtoWireWriter e{&entry};
        e.bytes(1, "k8s.io/initial-events-end");
        e.bytes(2, "true");
        m.bytes(12, entry);
    }
    std::string typed;
    ProtoWireWriter w{&typed};
    w.bytes(1, meta);
    std::string envelope;
    appendEnvelope(envelope, toUtf8(info.groupVersion()), toUtf8(info.kind), typed);
    appendFrame(out, "BOOKMARK", envelope);
}

void appendError(std::string& out, const ApiStatus& status) {
    // metav1.Status: metadata=1 (ListMeta continue=3), status=2, message=3, reason=4,
    // details=5, code=6; the same members ApiStatus::toJson writes.
    std::string listMeta;
    ProtoWireWriter l{&listMeta};
    if (!status.listContinue.isEmpty())
        l.bytes(3, toUtf8(status.listContinue));
    std::string typed;
    ProtoWireWriter w{&typed};
    w.bytes(1, listMeta);
    w.bytes(2, "Failure");
    w.bytes(3, toUtf8(status.message));
    w.bytes(4, toUtf8(status.reason));
    const bool hasCauses = status.hasCause || !status.fieldCauses.empty();
    if (hasCauses || status.retryAfterSeconds > 0 || !status.detailsKind.isEmpty() ||
        !status.detailsName.isEmpty()) {
        std::string details;
        ProtoWireWriter d{&details};
        if (!status.detailsName.isEmpty())
            d.bytes(1, toUtf8(status.detailsName));
        if (!status.detailsGroup.isEmpty())
            d.bytes(2, toUtf8(status.detailsGroup));
        if (!status.detailsKind.isEmpty())
            d.bytes(3, toUtf8(status.detailsKind));
        const auto cause = [&](const QString& reason, const QString& message,
                               const QString& field) {
            std::string c;
            ProtoWireWriter cw{&c};
            if (!reason.isEmpty())
                cw.bytes(1, toUtf8(reason));
            cw.bytes(2, toUtf8(message));
            if (!field.isEmpty())
                cw.bytes(3, toUtf8(field));
            d.bytes(4, c);
        };
        if (status.hasCause)
            cause(status.causeReason, status.causeMessage, QString());
        for (const ApiStatus::FieldCause& f : status.fieldCauses)
            cause(f.reason, f.message, f.field);
        if (status.retryAfterSeconds > 0) {
            d.tag(5, 0);
            d.varint(static_cast<std::uint64_t>(status.retryAfterSeconds));
        }
        w.bytes(5, details);
    }
    w.tag(6, 0);
    // int32 on the wire: negative values sign-extend to ten bytes.
    w.varint(static_cast<std::uint64_t>(static_cast<std::int64_t>(status.code)));
    std::string envelope;
    appendEnvelope(envelope, "v1", "Status", typed);
    appendFrame(out, "ERROR", envelope);
}

} // namespace ws::ObjectProto
