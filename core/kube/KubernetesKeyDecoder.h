#pragma once

#include <QString>
#include <memory>
#include <string>
#include <string_view>

namespace ws {

// A storage key split the way kube-apiserver lays them out (reference/etcd-watch.md §4).
struct DecodedKey {
    std::string
        resource; // plural, with the group for group-prefixed keys: "crontabs.stable.example.com"
    std::string namespace_; // empty for cluster-scoped objects
    std::string name;
    bool kubernetes = false; // false: not a /registry/<resource>/... object key
};

enum class ValueEncoding { Protobuf, Json, Encrypted, Empty, Undecodable };

// What a stored value says about itself. Views point into the decoder's scratch space or the
// value itself and stay valid until the next decodeValue() call.
struct DecodedValue {
    ValueEncoding encoding = ValueEncoding::Undecodable;
    std::string apiVersion;
    std::string kind;
    std::string name;
    std::string namespace_;
    std::string uid;
    std::string provider; // Encrypted: "aescbc", "kms", ...
    std::string error;    // Undecodable: why, with the evidence (offset, leading bytes)
};

// Decodes keys into resource/namespace/name and values into kind/apiVersion/name/namespace/uid:
// the "k8s\0" protobuf envelope (runtime.Unknown, ObjectMeta in raw field 1) read with protobuf's
// wire-format reader, JSON values with simdjson, "k8s:enc:" values classified as encrypted.
// Not thread-safe (reuses a JSON parser and scratch buffers); one per thread.
class KubernetesKeyDecoder {
public:
    explicit KubernetesKeyDecoder(std::string prefix = "/registry/");
    ~KubernetesKeyDecoder();
    KubernetesKeyDecoder(const KubernetesKeyDecoder&) = delete;
    KubernetesKeyDecoder& operator=(const KubernetesKeyDecoder&) = delete;

    const std::string& prefix() const { return m_prefix; }

    DecodedKey decodeKey(std::string_view key) const;
    // Fills *out; returns false (and out->error) when the value is neither protobuf, JSON,
    // encrypted nor empty.
    bool decodeValue(std::string_view value, DecodedValue* out);

    // "6b 38 73 00 0a 12 ..." of the first bytes, for evidence in messages.
    static std::string hexPrefix(std::string_view bytes, std::size_t max = 24);

private:
    bool decodeProtobuf(std::string_view value, DecodedValue* out);
    bool decodeJson(std::string_view value, DecodedValue* out);

    struct Json;
    std::string m_prefix;
    std::unique_ptr<Json> m_json;
};

} // namespace ws
