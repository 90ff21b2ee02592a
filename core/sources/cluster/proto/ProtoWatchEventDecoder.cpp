#include "ProtoWatchEventDecoder.h"

#include "model/ResourceVersionText.h"
#include "sources/cluster/json/WatchEventDecoder.h"
#include "util/OneLine.h"
#include "util/ProtoWireReader.h"

#include <limits>

namespace ws {

namespace {

constexpr std::string_view kMagic("k8s\0", 4);
constexpr std::uint32_t kVarint = 0;
constexpr std::uint32_t kBytes = 2;

// Reads one message's fields; `where` names it in errors. The reader's position says how far
// into the frame a failure was.
class Reader {
public:
    Reader(std::string_view frame, QString* error) : m_start(frame.data()), m_error(error) {}

    bool fail(const char* where, QString what, const char* at) {
        if (m_error)
            *m_error = QStringLiteral("protobuf watch event: %1 %2 (byte %3)")
                           .arg(QLatin1String(where), what)
                           .arg(at - m_start);
        return false;
    }
    bool truncated(const char* where, const ProtoWireReader& r) {
        return fail(where, QStringLiteral("is truncated or malformed"), r.p);
    }

    // Calls field(number, wireType, reader) for each field; it reads the field or returns
    // false after fail(). Fields it does not read (returns true without consuming) are skipped.
    template <typename Field>
    bool fields(std::string_view message, const char* where, Field&& field) {
        ProtoWireReader r{message.data(), message.data() + message.size()};
        while (!r.atEnd()) {
            const char* at = r.p;
            const std::uint64_t tag = r.varint();
            if (!r.ok)
                return truncated(where, r);
            const auto number = static_cast<std::uint32_t>(tag >> 3);
            const auto wireType = static_cast<std::uint32_t>(tag & 7);
            if (number == 0 || tag > std::numeric_limits<std::uint32_t>::max())
                return fail(where, QStringLiteral("has a bad field tag %1").arg(tag), at);
            const char* before = r.p;
            bool consumed = false;
            if (!field(number, wireType, r, consumed))
                return false;
            if (!consumed) {
                r.p = before;
                r.skip(wireType);
            }
            if (!r.ok)
                return truncated(where, r);
        }
        return true;
    }

    const char* start() const { return m_start; }

private:
    const char* m_start;
    QString* m_error;
};

// A known field with the wrong wire type is corrupt, not something to skip.
bool expect(Reader& in, const char* where, std::uint32_t number, std::uint32_t wireType,
            std::uint32_t wanted, const ProtoWireReader& r) {
    if (wireType == wanted)
        return true;
    return in.fail(
        where,
        QStringLiteral("field %1 has wire type %2, not %3").arg(number).arg(wireType).arg(wanted),
        r.p);
}

QString quoted(std::string_view text) {
    return QString::fromStdString(oneLine(text.substr(0, 64)));
}

QString toQString(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

bool readAnnotation(Reader& in, std::string_view entry, bool* initialEventsEnd) {
    std::string_view key, value;
    const bool ok =
        in.fields(entry, "metadata.annotations entry",
                  [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r, bool& consumed) {
                      if (n != 1 && n != 2)
                          return true;
                      if (!expect(in, "metadata.annotations entry", n, wt, kBytes, r))
                          return false;
                      (n == 1 ? key : value) = r.bytes();
                      consumed = true;
                      return true;
                  });
    if (ok && key == "k8s.io/initial-events-end")
        *initialEventsEnd = value == "true";
    return ok;
}

bool readObjectMeta(Reader& in, std::string_view meta, WatchEventJson* out) {
    const bool bookmark = out->type == WatchEventType::Bookmark;
    return in.fields(
        meta, "metadata",
        [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r, bool& consumed) {
            if (n != 1 && n != 3 && n != 5 && n != 6 && !(n == 12 && bookmark))
                return true;
            if (!expect(in, "metadata", n, wt, kBytes, r))
                return false;
            const char* at = r.p;
            const std::string_view v = r.bytes();
            consumed = true;
            if (!r.ok)
                return true; // reported as truncated by fields()
            switch (n) {
            case 1:
                out->name.assign(v);
                break;
            case 3:
                out->ns.assign(v);
                break;
            case 5:
                out->uid.assign(v);
                break;
            case 6:
                if (!parseResourceVersion(v, &out->resourceVersion))
                    return in.fail("metadata",
                                   QStringLiteral("resourceVersion \"%1\" is not a decimal number")
                                       .arg(quoted(v)),
                                   at);
                break;
            case 12:
                return readAnnotation(in, v, &out->initialEventsEnd);
            }
            return true;
        });
}

bool readCause(Reader& in, std::string_view cause, ApiStatus* status) {
    status->hasCause = true;
    return in.fields(cause, "Status.details.causes",
                     [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r, bool& consumed) {
                         if (n != 1 && n != 2)
                             return true;
                         if (!expect(in, "Status.details.causes", n, wt, kBytes, r))
                             return false;
                         const QString v = toQString(r.bytes());
                         consumed = true;
                         (n == 1 ? status->causeReason : status->causeMessage) = v;
                         return true;
                     });
}

bool readDetails(Reader& in, std::string_view details, ApiStatus* status) {
    bool firstCause = true;
    return in.fields(details, "Status.details",
                     [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r, bool& consumed) {
                         if (n == 4) {
                             if (!expect(in, "Status.details", n, wt, kBytes, r))
                                 return false;
                             const std::string_view cause = r.bytes();
                             consumed = true;
                             // The first cause is kept, as the JSON reader does.
                             if (r.ok && firstCause) {
                                 firstCause = false;
                                 return readCause(in, cause, status);
                             }
                             return true;
                         }
                         if (n == 5) {
                             if (!expect(in, "Status.details", n, wt, kVarint, r))
                                 return false;
                             status->retryAfterSeconds = static_cast<std::int32_t>(r.varint());
                             consumed = true;
                         }
                         return true;
                     });
}

bool readStatus(Reader& in, std::string_view object, ApiStatus* status) {
    return in.fields(object, "Status",
                     [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r, bool& consumed) {
                         switch (n) {
                         case 3:
                         case 4: {
                             if (!expect(in, "Status", n, wt, kBytes, r))
                                 return false;
                             const QString v = toQString(r.bytes());
                             consumed = true;
                             (n == 3 ? status->message : status->reason) = v;
                             return true;
                         }
                         case 5: {
                             if (!expect(in, "Status", n, wt, kBytes, r))
                                 return false;
                             const std::string_view details = r.bytes();
                             consumed = true;
                             return !r.ok || readDetails(in, details, status);
                         }
                         case 6:
                             if (!expect(in, "Status", n, wt, kVarint, r))
                                 return false;
                             // int32 on the wire: a negative code is sign-extended to 64 bits.
                             status->code = static_cast<std::int32_t>(r.varint());
                             consumed = true;
                             return true;
                         default:
                             return true;
                         }
                     });
}

// The embedded object: "k8s\0" + runtime.Unknown.
bool readEnvelope(Reader& in, std::string_view raw, WatchEventJson* out) {
    if (raw.substr(0, kMagic.size()) != kMagic) {
        return in.fail("object",
                       QStringLiteral("does not start with the k8s\\0 protobuf prefix (%1 bytes)")
                           .arg(raw.size()),
                       raw.data());
    }
    std::string_view typed;
    bool haveRaw = false;
    std::string_view contentEncoding, contentType;
    const std::string_view unknown = raw.substr(kMagic.size());
    const bool ok = in.fields(
        unknown, "runtime.Unknown",
        [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r, bool& consumed) {
            if (n < 1 || n > 4)
                return true;
            if (!expect(in, "runtime.Unknown", n, wt, kBytes, r))
                return false;
            const std::string_view v = r.bytes();
            consumed = true;
            if (!r.ok)
                return true;
            switch (n) {
            case 1:
                return in.fields(
                    v, "runtime.Unknown.typeMeta",
                    [&](std::uint32_t tn, std::uint32_t twt, ProtoWireReader& tr, bool& tconsumed) {
                        if (tn != 2)
                            return true;
                        if (!expect(in, "runtime.Unknown.typeMeta", tn, twt, kBytes, tr))
                            return false;
                        out->kind.assign(tr.bytes());
                        tconsumed = true;
                        return true;
                    });
            case 2:
                typed = v;
                haveRaw = true;
                return true;
            case 3:
                contentEncoding = v;
                return true;
            case 4:
                contentType = v;
                return true;
            }
            return true;
        });
    if (!ok)
        return false;
    if (!contentEncoding.empty())
        return in.fail("runtime.Unknown",
                       QStringLiteral("has contentEncoding \"%1\", which no apiserver writes")
                           .arg(quoted(contentEncoding)),
                       raw.data());
    if (!contentType.empty() && contentType != "application/vnd.kubernetes.protobuf")
        return in.fail("runtime.Unknown",
                       QStringLiteral("holds \"%1\", not protobuf").arg(quoted(contentType)),
                       raw.data());
    if (!haveRaw)
        return in.fail("runtime.Unknown", QStringLiteral("has no raw object"), raw.data());
    if (out->kind == "Status") {
        ApiStatus status;
        if (!readStatus(in, typed, &status))
            return false;
        if (out->type == WatchEventType::Error)
            out->status = std::move(status);
        return true;
    }
    // Field 1 of every built-in kind is its ObjectMeta.
    // "object", not the kind: the kind is the sender's bytes (fuzz_proto_watch_stream found
    // a NUL and control bytes in it breaking the error line, regress-kind-control-bytes).
    return in.fields(typed, "object",
                     [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r, bool& consumed) {
                         if (n != 1)
                             return true;
                         if (!expect(in, "object", n, wt, kBytes, r))
                             return false;
                         const std::string_view meta = r.bytes();
                         consumed = true;
                         return !r.ok || readObjectMeta(in, meta, out);
                     });
}

} // namespace

bool ProtoWatchEventDecoder::decode(std::string_view frame, WatchEventJson* out, QString* error) {
    out->clear();
    Reader in(frame, error);
    std::string_view type, raw;
    bool haveType = false, haveObject = false;
    const bool ok = in.fields(
        frame, "WatchEvent",
        [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r, bool& consumed) {
            if (n != 1 && n != 2)
                return true;
            if (!expect(in, "WatchEvent", n, wt, kBytes, r))
                return false;
            const std::string_view v = r.bytes();
            consumed = true;
            if (n == 1) {
                type = v;
                haveType = true;
                return true;
            }
            haveObject = true;
            // RawExtension: raw=1.
            return !r.ok || in.fields(v, "WatchEvent.object",
                                      [&](std::uint32_t rn, std::uint32_t rwt, ProtoWireReader& rr,
                                          bool& rconsumed) {
                                          if (rn != 1)
                                              return true;
                                          if (!expect(in, "WatchEvent.object", rn, rwt, kBytes, rr))
                                              return false;
                                          raw = rr.bytes();
                                          rconsumed = true;
                                          return true;
                                      });
        });
    if (ok) {
        if (!haveType) {
            in.fail("WatchEvent", QStringLiteral("has no type"), frame.data());
        } else if (!watchEventTypeFromJson(type, &out->type)) {
            in.fail("WatchEvent", QStringLiteral("has an unknown type \"%1\"").arg(quoted(type)),
                    frame.data());
        } else if (!haveObject || raw.empty()) {
            in.fail("WatchEvent", QStringLiteral("has no object"), frame.data());
        } else if (readEnvelope(in, raw, out)) {
            out->object = raw;
            return true;
        }
    }
    out->clear();
    return false;
}

std::optional<ApiStatus> ProtoWatchEventDecoder::decodeStatus(std::string_view body,
                                                              QString* error) {
    Reader in(body, error);
    WatchEventJson event;
    event.type = WatchEventType::Error;
    if (!readEnvelope(in, body, &event))
        return std::nullopt;
    if (event.kind != "Status") {
        in.fail("body", QStringLiteral("is a %1, not a Status").arg(quoted(event.kind)),
                body.data());
        return std::nullopt;
    }
    return event.status;
}

} // namespace ws
