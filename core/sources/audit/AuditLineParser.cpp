#include "AuditLineParser.h"

#include "AuditTimestamp.h"

#include <simdjson.h>

namespace ws {

namespace od = simdjson::ondemand;

struct AuditLineParser::Impl {
    od::parser parser;
};

AuditLineParser::AuditLineParser() : d(std::make_unique<Impl>()) {}
AuditLineParser::~AuditLineParser() = default;

namespace {

// Reads the string members of one nested object named by `keys` into `outs`; others skipped.
template <std::size_t N>
simdjson::error_code readStrings(od::value& value, const std::string_view (&keys)[N],
                                 std::string* const (&outs)[N]) {
    od::object object;
    if (auto e = value.get_object().get(object))
        return e;
    for (auto member : object) {
        od::field field;
        if (auto e = std::move(member).get(field))
            return e;
        std::string_view key;
        if (auto e = field.unescaped_key().get(key))
            return e;
        for (std::size_t i = 0; i < N; ++i) {
            if (key != keys[i])
                continue;
            std::string_view s;
            if (auto e = field.value().get_string().get(s))
                return e;
            outs[i]->assign(s);
            break;
        }
    }
    return simdjson::SUCCESS;
}

// A value from the line for a one-line message: quoted, control characters as '?', at most 64
// characters.
QString quoted(std::string_view value) {
    QString text =
        QString::fromUtf8(value.data(), qsizetype(std::min<std::size_t>(value.size(), 64)));
    for (QChar& c : text)
        if (c.category() == QChar::Other_Control || c == u'\n' || c == u'\r')
            c = u'?';
    return u'"' + text + (value.size() > 64 ? QStringLiteral("…\"") : QStringLiteral("\""));
}

simdjson::error_code readTime(od::value& value, TimeUs* out, bool* bad) {
    std::string_view s;
    if (auto e = value.get_string().get(s))
        return e;
    const auto t = parseAuditTimestamp(s);
    if (!t)
        *bad = true;
    else
        *out = *t;
    return simdjson::SUCCESS;
}

} // namespace

AuditLineParser::Result AuditLineParser::parse(std::string_view line, AuditEvent* out) {
    m_error.clear();
    auto broken = [this](simdjson::error_code e) {
        m_error = QStringLiteral("not a JSON audit event (%1)")
                      .arg(QString::fromUtf8(simdjson::error_message(e)));
        return Result::Broken;
    };
    od::document doc;
    if (auto e =
            d->parser.iterate(line.data(), line.size(), line.size() + simdjson::SIMDJSON_PADDING)
                .get(doc))
        return broken(e);
    od::object object;
    if (auto e = doc.get_object().get(object))
        return broken(e);

    out->clear();
    bool haveStage = false, haveVerb = false, badTime = false;
    TimeUs legacyTimestamp = 0; // v1beta1 `timestamp`: when the request reached the apiserver
    std::string_view apiVersion, kind;
    for (auto member : object) {
        od::field field;
        if (auto e = std::move(member).get(field))
            return broken(e);
        std::string_view key;
        if (auto e = field.unescaped_key().get(key))
            return broken(e);
        od::value value = field.value();
        simdjson::error_code e = simdjson::SUCCESS;
        if (key == "kind") {
            if ((e = value.get_string().get(kind)) == simdjson::SUCCESS && kind != "Event") {
                m_error = QStringLiteral("kind %1 is not an audit Event").arg(quoted(kind));
                return Result::UnknownKind;
            }
        } else if (key == "apiVersion") {
            if ((e = value.get_string().get(apiVersion)) == simdjson::SUCCESS &&
                apiVersion != "audit.k8s.io/v1" && apiVersion != "audit.k8s.io/v1beta1") {
                m_error = QStringLiteral("apiVersion %1 is not audit.k8s.io/v1 or v1beta1")
                              .arg(quoted(apiVersion));
                return Result::UnknownApiVersion;
            }
        } else if (key == "verb") {
            std::string_view verb;
            if ((e = value.get_string().get(verb)) == simdjson::SUCCESS) {
                if (verb != "list" && verb != "watch")
                    return Result::Ignored;
                out->watch = verb == "watch";
                haveVerb = true;
            }
        } else if (key == "stage") {
            std::string_view stage;
            if ((e = value.get_string().get(stage)) == simdjson::SUCCESS) {
                haveStage = true;
                if (stage == "RequestReceived")
                    out->stage = AuditStage::RequestReceived;
                else if (stage == "ResponseStarted")
                    out->stage = AuditStage::ResponseStarted;
                else if (stage == "ResponseComplete")
                    out->stage = AuditStage::ResponseComplete;
                else if (stage == "Panic")
                    out->stage = AuditStage::Panic;
                else
                    haveStage = false;
            }
        } else if (key == "auditID") {
            std::string_view s;
            if ((e = value.get_string().get(s)) == simdjson::SUCCESS)
                out->auditId.assign(s);
        } else if (key == "requestURI") {
            std::string_view s;
            if ((e = value.get_string().get(s)) == simdjson::SUCCESS)
                out->requestUri.assign(s);
        } else if (key == "userAgent") {
            std::string_view s;
            if ((e = value.get_string().get(s)) == simdjson::SUCCESS)
                out->userAgent.assign(s);
        } else if (key == "user") {
            static constexpr std::string_view keys[] = {"username"};
            std::string* const outs[] = {&out->username};
            e = readStrings(value, keys, outs);
        } else if (key == "objectRef") {
            static constexpr std::string_view keys[] = {"resource", "apiGroup"};
            std::string* const outs[] = {&out->resource, &out->apiGroup};
            e = readStrings(value, keys, outs);
        } else if (key == "annotations") {
            static constexpr std::string_view keys[] = {kAuditApiserverAnnotation};
            std::string* const outs[] = {&out->apiserver};
            e = readStrings(value, keys, outs);
        } else if (key == "responseStatus") {
            od::object status;
            if ((e = value.get_object().get(status)) != simdjson::SUCCESS)
                return broken(e);
            for (auto sm : status) {
                od::field sf;
                std::string_view skey;
                if ((e = std::move(sm).get(sf)) || (e = sf.unescaped_key().get(skey)))
                    return broken(e);
                std::string_view s;
                if (skey == "code") {
                    std::int64_t code = 0;
                    if ((e = sf.value().get_int64().get(code)))
                        return broken(e);
                    out->code = static_cast<int>(code);
                } else if (skey == "reason") {
                    if ((e = sf.value().get_string().get(s)))
                        return broken(e);
                    out->reason.assign(s);
                } else if (skey == "message") {
                    if ((e = sf.value().get_string().get(s)))
                        return broken(e);
                    out->message.assign(s);
                }
            }
        } else if (key == "requestReceivedTimestamp") {
            e = readTime(value, &out->received, &badTime);
        } else if (key == "stageTimestamp") {
            e = readTime(value, &out->stageTime, &badTime);
        } else if (key == "timestamp") {
            // v1beta1 only (removed in v1): the request's arrival, in whole seconds.
            e = readTime(value, &legacyTimestamp, &badTime);
        }
        if (e)
            return broken(e);
    }
    const char* trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS)
        return broken(simdjson::TRAILING_CONTENT);
    if (kind.empty() || apiVersion.empty()) {
        m_error = QStringLiteral("no %1: not an audit.k8s.io Event")
                      .arg(kind.empty() ? QStringLiteral("kind") : QStringLiteral("apiVersion"));
        return kind.empty() ? Result::UnknownKind : Result::UnknownApiVersion;
    }
    if (!haveVerb)
        return Result::Ignored; // no verb: a non-resource request of an odd writer
    // v1beta1 events of 1.8/1.9 have only `timestamp`; later ones have both (v1beta1/types.go).
    if (out->received == 0)
        out->received = legacyTimestamp;
    if (out->stageTime == 0)
        out->stageTime = out->received;
    const char* missing = badTime                ? "a timestamp that is not RFC 3339"
                          : !haveStage           ? "no known stage"
                          : out->auditId.empty() ? "no auditID"
                          : out->received == 0   ? "no requestReceivedTimestamp"
                                                 : nullptr;
    if (missing) {
        m_error = QStringLiteral("a %1 event with %2").arg(out->watch ? "watch" : "list", missing);
        return Result::Broken;
    }
    return Result::Event;
}

} // namespace ws
