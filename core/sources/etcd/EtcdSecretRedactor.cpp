#include "EtcdSecretRedactor.h"

#include "util/ProtoWireReader.h"
#include "util/ProtoWireWriter.h"

namespace ws {

namespace {

constexpr std::string_view kProtobufMagic("k8s\0", 4);
constexpr std::string_view kEncryptedPrefix("k8s:enc:");
constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";
// A provider name longer than this is not one (the decoder shows at most 32 bytes of it).
constexpr std::size_t kMaxProvider = 32;

ProtoWireReader readerOf(std::string_view bytes) {
    return ProtoWireReader{bytes.data(), bytes.data() + bytes.size()};
}

struct Field {
    std::uint32_t number = 0;
    std::uint32_t wireType = 0;
    std::string_view wire;  // the whole field as read: tag, length and content
    std::string_view bytes; // the content of a length-delimited field
};

// Reads the next field of r into *f; false at the end or on malformed input (r.ok says which).
bool nextField(ProtoWireReader& r, Field* f) {
    if (!r.ok || r.atEnd())
        return false;
    const char* start = r.p;
    const std::uint64_t tag = r.varint();
    f->number = static_cast<std::uint32_t>(tag >> 3);
    f->wireType = static_cast<std::uint32_t>(tag & 7);
    f->bytes = {};
    if (f->wireType == 2)
        f->bytes = r.bytes();
    else
        r.skip(f->wireType);
    if (!r.ok)
        return false;
    f->wire = std::string_view(start, static_cast<std::size_t>(r.p - start));
    return true;
}

// A map entry {1 key, 2 value} with its value replaced by the digest of the value.
bool rewriteMapEntry(std::string_view entry, SecretDigest& digest, std::string* out) {
    ProtoWireReader r = readerOf(entry);
    ProtoWireWriter w{out};
    Field f;
    while (nextField(r, &f)) {
        if (f.number == 2 && f.wireType == 2) {
            char text[SecretDigest::kTextSize];
            digest.begin();
            digest.add(f.bytes.data(), f.bytes.size());
            digest.finish(text);
            w.bytes(2, std::string_view(text, sizeof(text)));
        } else {
            w.raw(f.wire);
        }
    }
    return r.ok;
}

// The key (field 1) of a map entry; false on malformed input.
bool mapEntryKey(std::string_view entry, std::string_view* key) {
    ProtoWireReader r = readerOf(entry);
    Field f;
    *key = {};
    while (nextField(r, &f)) {
        if (f.number == 1 && f.wireType == 2)
            *key = f.bytes;
    }
    return r.ok;
}

// Writes a length-delimited field whose content is built by `build` into a scratch string.
template <typename Build> bool writeNested(ProtoWireWriter& w, std::uint32_t field, Build&& build) {
    std::string nested;
    if (!build(&nested))
        return false;
    w.bytes(field, nested);
    return true;
}

// ObjectMeta (apimachinery meta/v1): annotations = 12, map<string, string>.
bool rewriteObjectMeta(std::string_view meta, SecretDigest& digest, std::string* out) {
    ProtoWireReader r = readerOf(meta);
    ProtoWireWriter w{out};
    Field f;
    while (nextField(r, &f)) {
        std::string_view key;
        if (f.number == 12 && f.wireType == 2 && mapEntryKey(f.bytes, &key) &&
            key == kLastApplied) {
            if (!writeNested(w, 12,
                             [&](std::string* o) { return rewriteMapEntry(f.bytes, digest, o); }))
                return false;
        } else {
            w.raw(f.wire);
        }
    }
    return r.ok;
}

// v1.Secret (k8s.io/api core/v1): metadata = 1, data = 2 (map<string, bytes>), type = 3,
// stringData = 4 (map<string, string>), immutable = 5.
bool rewriteSecret(std::string_view secret, SecretDigest& digest, std::string* out) {
    ProtoWireReader r = readerOf(secret);
    ProtoWireWriter w{out};
    Field f;
    while (nextField(r, &f)) {
        if (f.wireType == 2 && f.number == 1) {
            if (!writeNested(w, 1,
                             [&](std::string* o) { return rewriteObjectMeta(f.bytes, digest, o); }))
                return false;
        } else if (f.wireType == 2 && (f.number == 2 || f.number == 4)) {
            if (!writeNested(w, f.number,
                             [&](std::string* o) { return rewriteMapEntry(f.bytes, digest, o); }))
                return false;
        } else {
            w.raw(f.wire);
        }
    }
    return r.ok;
}

} // namespace

EtcdSecretRedactor::EtcdSecretRedactor(QByteArray salt, std::string prefix)
    : m_prefix(std::move(prefix)), m_secretsPrefix(m_prefix + "secrets/"), m_digest(salt),
      m_json(salt) {}

EtcdSecretRedactor EtcdSecretRedactor::withRandomSalt(std::string prefix) {
    return EtcdSecretRedactor(SecretDigest::randomSalt(), std::move(prefix));
}

QByteArray EtcdSecretRedactor::redact(EtcdFrameKind kind, const QByteArray& message) {
    std::string out;
    if (!rewrite(kind,
                 std::string_view(message.constData(), static_cast<std::size_t>(message.size())),
                 &out))
        return message;
    return QByteArray(out.data(), static_cast<qsizetype>(out.size()));
}

bool EtcdSecretRedactor::redact(EtcdFrameKind kind, std::string* message) {
    std::string out;
    if (!rewrite(kind, *message, &out))
        return false;
    *message = std::move(out);
    return true;
}

std::string EtcdSecretRedactor::digestText(std::string_view value) {
    char text[SecretDigest::kTextSize];
    m_digest.begin();
    m_digest.add(value.data(), value.size());
    m_digest.finish(text);
    return std::string(text, sizeof(text));
}

bool EtcdSecretRedactor::rewrite(EtcdFrameKind kind, std::string_view message, std::string* out) {
    if (kind != EtcdFrameKind::WatchResponse && kind != EtcdFrameKind::RangeResponse)
        return false;
    // The cheap check: most messages hold no Secret at all.
    if (message.find("secrets/") == std::string_view::npos)
        return false;
    // WatchResponse.events = 11 (mvccpb.Event); RangeResponse.kvs = 2 (mvccpb.KeyValue).
    const bool watch = kind == EtcdFrameKind::WatchResponse;
    const std::uint32_t itemField = watch ? 11 : 2;
    out->clear();
    out->reserve(message.size() + 64);
    ProtoWireReader r = readerOf(message);
    ProtoWireWriter w{out};
    bool changed = false;
    Field f;
    std::string item;
    while (nextField(r, &f)) {
        if (f.number == itemField && f.wireType == 2) {
            item.clear();
            const int result =
                watch ? rewriteEvent(f.bytes, &item) : rewriteKeyValue(f.bytes, &item);
            if (result < 0) {
                ++m_malformed;
                return false;
            }
            if (result > 0) {
                w.bytes(itemField, item);
                changed = true;
                continue;
            }
        }
        w.raw(f.wire);
    }
    if (!r.ok) {
        ++m_malformed;
        return false;
    }
    return changed;
}

// mvccpb.Event: type = 1, kv = 2, prev_kv = 3.
int EtcdSecretRedactor::rewriteEvent(std::string_view event, std::string* out) {
    ProtoWireReader r = readerOf(event);
    ProtoWireWriter w{out};
    bool changed = false;
    Field f;
    std::string kv;
    while (nextField(r, &f)) {
        if ((f.number == 2 || f.number == 3) && f.wireType == 2) {
            kv.clear();
            const int result = rewriteKeyValue(f.bytes, &kv);
            if (result < 0)
                return -1;
            if (result > 0) {
                w.bytes(f.number, kv);
                changed = true;
                continue;
            }
        }
        w.raw(f.wire);
    }
    if (!r.ok)
        return -1;
    return changed ? 1 : 0;
}

// mvccpb.KeyValue: key = 1, value = 5.
int EtcdSecretRedactor::rewriteKeyValue(std::string_view kv, std::string* out) {
    ProtoWireReader r = readerOf(kv);
    Field f;
    bool secret = false;
    bool hasValue = false;
    while (nextField(r, &f)) {
        if (f.number == 1 && f.wireType == 2)
            secret = f.bytes.substr(0, m_secretsPrefix.size()) == m_secretsPrefix;
        else if (f.number == 5 && f.wireType == 2)
            hasValue = hasValue || !f.bytes.empty();
    }
    if (!r.ok)
        return -1;
    if (!secret || !hasValue)
        return 0;
    r = readerOf(kv);
    ProtoWireWriter w{out};
    while (nextField(r, &f)) {
        if (f.number == 5 && f.wireType == 2 && !f.bytes.empty()) {
            w.bytes(5, redactValue(f.bytes));
            ++m_redactedValues;
        } else {
            w.raw(f.wire);
        }
    }
    return 1;
}

bool EtcdSecretRedactor::rewriteProtobuf(std::string_view value, std::string* out) {
    // runtime.Unknown: typeMeta = 1, raw = 2 (the v1.Secret), contentEncoding = 3,
    // contentType = 4.
    ProtoWireReader r = readerOf(value.substr(kProtobufMagic.size()));
    out->assign(kProtobufMagic);
    ProtoWireWriter w{out};
    Field f;
    bool sawRaw = false;
    while (nextField(r, &f)) {
        if (f.number == 2 && f.wireType == 2) {
            if (!writeNested(w, 2,
                             [&](std::string* o) { return rewriteSecret(f.bytes, m_digest, o); }))
                return false;
            sawRaw = true;
        } else {
            w.raw(f.wire);
        }
    }
    return r.ok && sawRaw;
}

std::string EtcdSecretRedactor::redactValue(std::string_view value) {
    if (value.empty())
        return {};
    if (value.substr(0, kEncryptedPrefix.size()) == kEncryptedPrefix) {
        const std::string_view rest = value.substr(kEncryptedPrefix.size());
        const std::size_t colon = rest.find(':');
        std::string out(kEncryptedPrefix);
        if (colon != std::string_view::npos && colon > 0 && colon <= kMaxProvider)
            out.append(rest.substr(0, colon + 1));
        out += digestText(value);
        return out;
    }
    if (value.substr(0, kProtobufMagic.size()) == kProtobufMagic) {
        std::string out;
        if (rewriteProtobuf(value, &out))
            return out;
        return digestText(value);
    }
    const std::size_t first = value.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && value[first] == '{') {
        m_json.reset();
        QByteArray json;
        json.reserve(static_cast<qsizetype>(value.size()));
        m_json.feedInto(value.data(), value.size(), &json);
        if (!m_json.failed() && m_json.atTopLevel())
            return std::string(json.constData(), static_cast<std::size_t>(json.size()));
    }
    return digestText(value);
}

} // namespace ws
