#include "KubernetesKeyDecoder.h"

#include "util/OneLine.h"

#include <google/protobuf/io/coded_stream.h>
#include <simdjson.h>

#include <array>
#include <cstring>
#include <vector>

namespace ws {

namespace {

constexpr std::string_view kProtobufMagic("k8s\0", 4);
constexpr std::string_view kEncryptedPrefix("k8s:enc:");

using google::protobuf::io::CodedInputStream;

// Reads a length-delimited field's length and pushes it as the stream's limit.
bool enterMessage(CodedInputStream& in, CodedInputStream::Limit* limit) {
    std::uint32_t len = 0;
    if (!in.ReadVarint32(&len))
        return false;
    if (len > static_cast<std::uint32_t>(INT32_MAX))
        return false;
    *limit = in.PushLimit(static_cast<int>(len));
    return true;
}

bool readString(CodedInputStream& in, std::string* out) {
    std::uint32_t len = 0;
    if (!in.ReadVarint32(&len))
        return false;
    return in.ReadString(out, static_cast<int>(len));
}

bool skip(CodedInputStream& in, std::uint32_t tag) {
    const auto wireType = tag & 7u;
    switch (wireType) {
    case 0: {
        std::uint64_t v = 0;
        return in.ReadVarint64(&v);
    }
    case 1: {
        std::uint64_t v = 0;
        return in.ReadLittleEndian64(&v);
    }
    case 2: {
        std::uint32_t len = 0;
        return in.ReadVarint32(&len) && in.Skip(static_cast<int>(len));
    }
    case 5: {
        std::uint32_t v = 0;
        return in.ReadLittleEndian32(&v);
    }
    default:
        return false; // groups (3/4) are not used by Kubernetes; anything else is corrupt
    }
}

// ObjectMeta: name=1, generateName=2, namespace=3, uid=5.
bool parseObjectMeta(CodedInputStream& in, DecodedValue* out) {
    while (std::uint32_t tag = in.ReadTag()) {
        const auto field = tag >> 3;
        const bool lengthDelimited = (tag & 7u) == 2;
        if (lengthDelimited && field == 1) {
            if (!readString(in, &out->name))
                return false;
        } else if (lengthDelimited && field == 3) {
            if (!readString(in, &out->namespace_))
                return false;
        } else if (lengthDelimited && field == 5) {
            if (!readString(in, &out->uid))
                return false;
        } else if (!skip(in, tag)) {
            return false;
        }
    }
    return in.BytesUntilLimit() == 0;
}

// The object inside runtime.Unknown.raw: ObjectMeta is field 1 of every built-in kind.
bool parseRaw(CodedInputStream& in, DecodedValue* out) {
    while (std::uint32_t tag = in.ReadTag()) {
        if ((tag >> 3) == 1 && (tag & 7u) == 2) {
            CodedInputStream::Limit limit;
            if (!enterMessage(in, &limit) || !parseObjectMeta(in, out))
                return false;
            in.PopLimit(limit);
        } else if (!skip(in, tag)) {
            return false;
        }
    }
    return in.BytesUntilLimit() == 0;
}

bool parseTypeMeta(CodedInputStream& in, DecodedValue* out) {
    while (std::uint32_t tag = in.ReadTag()) {
        const auto field = tag >> 3;
        const bool lengthDelimited = (tag & 7u) == 2;
        if (lengthDelimited && field == 1) {
            if (!readString(in, &out->apiVersion))
                return false;
        } else if (lengthDelimited && field == 2) {
            if (!readString(in, &out->kind))
                return false;
        } else if (!skip(in, tag)) {
            return false;
        }
    }
    return in.BytesUntilLimit() == 0;
}

std::string_view nextSegment(std::string_view& rest) {
    const auto slash = rest.find('/');
    std::string_view seg = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    return seg;
}

} // namespace

struct KubernetesKeyDecoder::Json {
    simdjson::dom::parser parser;
    std::vector<char> buffer;
};

KubernetesKeyDecoder::KubernetesKeyDecoder(std::string prefix)
    : m_prefix(std::move(prefix)), m_json(std::make_unique<Json>()) {}

KubernetesKeyDecoder::~KubernetesKeyDecoder() = default;

DecodedKey KubernetesKeyDecoder::decodeKey(std::string_view key) const {
    DecodedKey out;
    // Keys are always under /registry/ in Kubernetes; a watch on a narrower prefix
    // (/registry/pods/) still decodes from the /registry/ root.
    constexpr std::string_view root("/registry/");
    if (key.substr(0, root.size()) != root)
        return out;
    std::string_view rest = key.substr(root.size());
    std::string_view first = nextSegment(rest);
    if (first.empty())
        return out;
    if (first == "services" && !rest.empty()) {
        std::string_view probe = rest;
        const std::string_view sub = nextSegment(probe);
        if (sub == "endpoints" || sub == "specs") {
            out.resource = sub == "endpoints" ? "endpoints" : "services";
            rest = probe;
        }
    }
    if (out.resource.empty()) {
        if (first.find('.') != std::string_view::npos) {
            // /registry/<group>/<plural>/...: CRDs, APIServices and custom resources.
            const std::string_view plural = nextSegment(rest);
            if (plural.empty())
                return out;
            out.resource.reserve(plural.size() + 1 + first.size());
            out.resource.append(plural).append(".").append(first);
        } else if (first == "controllers") {
            out.resource = "replicationcontrollers";
        } else if (first == "minions") {
            out.resource = "nodes";
        } else if (first == "ingress") {
            out.resource = "ingresses";
        } else {
            out.resource.assign(first);
        }
    }
    const std::string_view a = nextSegment(rest);
    if (a.empty())
        return out;
    if (rest.empty()) {
        out.name.assign(a);
    } else {
        const std::string_view b = nextSegment(rest);
        if (!rest.empty() || b.empty())
            return out; // deeper than <ns>/<name>: not an object key
        out.namespace_.assign(a);
        out.name.assign(b);
    }
    out.kubernetes = true;
    return out;
}

std::string KubernetesKeyDecoder::hexPrefix(std::string_view bytes, std::size_t max) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    const std::size_t n = std::min(bytes.size(), max);
    out.reserve(n * 3 + 4);
    for (std::size_t i = 0; i < n; ++i) {
        if (i)
            out.push_back(' ');
        const auto c = static_cast<unsigned char>(bytes[i]);
        out.push_back(digits[c >> 4]);
        out.push_back(digits[c & 15]);
    }
    if (bytes.size() > n)
        out += " ...";
    return out;
}

bool KubernetesKeyDecoder::decodeValue(std::string_view value, DecodedValue* out) {
    out->apiVersion.clear();
    out->kind.clear();
    out->name.clear();
    out->namespace_.clear();
    out->uid.clear();
    out->provider.clear();
    out->error.clear();
    if (value.empty()) {
        out->encoding = ValueEncoding::Empty;
        return true;
    }
    if (value.substr(0, kEncryptedPrefix.size()) == kEncryptedPrefix) {
        out->encoding = ValueEncoding::Encrypted;
        std::string_view rest = value.substr(kEncryptedPrefix.size());
        const auto colon = rest.find(':');
        out->provider.assign(rest.substr(0, std::min<std::size_t>(colon, 32)));
        return true;
    }
    if (value.substr(0, kProtobufMagic.size()) == kProtobufMagic)
        return decodeProtobuf(value, out);
    std::size_t i = 0;
    while (i < value.size() &&
           (value[i] == ' ' || value[i] == '\n' || value[i] == '\t' || value[i] == '\r'))
        ++i;
    if (i < value.size() && value[i] == '{')
        return decodeJson(value, out);
    out->encoding = ValueEncoding::Undecodable;
    out->error = "neither the k8s protobuf envelope, JSON nor k8s:enc; " +
                 std::to_string(value.size()) + " bytes: " + hexPrefix(value);
    return false;
}

bool KubernetesKeyDecoder::decodeProtobuf(std::string_view value, DecodedValue* out) {
    out->encoding = ValueEncoding::Protobuf;
    const auto* data = reinterpret_cast<const std::uint8_t*>(value.data()) + kProtobufMagic.size();
    const int size = static_cast<int>(value.size() - kProtobufMagic.size());
    CodedInputStream in(data, size);
    bool sawRaw = false;
    const char* failed = nullptr;
    while (std::uint32_t tag = in.ReadTag()) {
        const auto field = tag >> 3;
        const bool lengthDelimited = (tag & 7u) == 2;
        if (lengthDelimited && field == 1) {
            CodedInputStream::Limit limit;
            if (!enterMessage(in, &limit) || !parseTypeMeta(in, out)) {
                failed = "runtime.Unknown.typeMeta";
                break;
            }
            in.PopLimit(limit);
        } else if (lengthDelimited && field == 2) {
            CodedInputStream::Limit limit;
            if (!enterMessage(in, &limit) || !parseRaw(in, out)) {
                failed = "runtime.Unknown.raw (ObjectMeta)";
                break;
            }
            in.PopLimit(limit);
            sawRaw = true;
        } else if (!skip(in, tag)) {
            failed = "runtime.Unknown";
            break;
        }
    }
    if (!failed && !in.ConsumedEntireMessage())
        failed = "runtime.Unknown (bad tag)";
    if (!failed && (out->kind.empty() || !sawRaw))
        failed = out->kind.empty() ? "runtime.Unknown without typeMeta.kind"
                                   : "runtime.Unknown without raw";
    if (failed) {
        out->encoding = ValueEncoding::Undecodable;
        out->error = std::string("k8s protobuf envelope: cannot read ") + failed + " at byte " +
                     std::to_string(in.CurrentPosition() + 4) + " of " +
                     std::to_string(value.size()) + ": " + hexPrefix(value);
        return false;
    }
    return true;
}

bool KubernetesKeyDecoder::decodeJson(std::string_view value, DecodedValue* out) {
    using namespace simdjson;
    out->encoding = ValueEncoding::Json;
    auto& buf = m_json->buffer;
    if (buf.size() < value.size() + SIMDJSON_PADDING)
        buf.resize(value.size() + SIMDJSON_PADDING);
    std::memcpy(buf.data(), value.data(), value.size());
    std::memset(buf.data() + value.size(), 0, SIMDJSON_PADDING);
    auto fail = [&](const char* what, error_code code) {
        out->encoding = ValueEncoding::Undecodable;
        out->error = std::string("JSON value: ") + what + " (" + error_message(code) + "); " +
                     std::to_string(value.size()) + " bytes: " + oneLine(value.substr(0, 48)) +
                     (value.size() > 48 ? "..." : "");
        return false;
    };
    // The DOM parser dispatches at run time to the best kernel of this CPU (the on-demand API
    // would be compiled for the baseline x86-64 only) and validates the whole document.
    dom::element doc;
    if (auto err = m_json->parser.parse(buf.data(), value.size(), false).get(doc))
        return fail("not JSON", err);
    dom::object obj;
    if (auto err = doc.get_object().get(obj))
        return fail("not an object", err);
    for (const dom::key_value_pair field : obj) {
        const std::string_view key = field.key;
        if (key == "apiVersion" || key == "kind") {
            std::string_view s;
            if (auto err = field.value.get_string().get(s))
                return fail("apiVersion/kind is not a string", err);
            (key == "kind" ? out->kind : out->apiVersion).assign(s);
        } else if (key == "metadata") {
            dom::object meta;
            if (auto err = field.value.get_object().get(meta))
                return fail("metadata is not an object", err);
            for (const dom::key_value_pair mf : meta) {
                const std::string_view mk = mf.key;
                std::string* target = mk == "name"        ? &out->name
                                      : mk == "namespace" ? &out->namespace_
                                      : mk == "uid"       ? &out->uid
                                                          : nullptr;
                if (!target)
                    continue;
                std::string_view s;
                if (auto err = mf.value.get_string().get(s))
                    return fail("metadata field is not a string", err);
                target->assign(s);
            }
        }
    }
    if (out->kind.empty())
        return fail("no kind", NO_SUCH_FIELD);
    return true;
}

} // namespace ws
