#pragma once

#include "EtcdFrameKind.h"
#include "kube/JsonSecretRedactor.h"
#include "kube/SecretDigest.h"

#include <QByteArray>

#include <cstdint>
#include <string>
#include <string_view>

namespace ws {

// Redacts the Secrets in etcd responses as received (SPEC §4), before they are recorded: in an
// etcdserverpb.WatchResponse or RangeResponse, the value of every kv and prev_kv whose key is
// under <prefix>secrets/ is rewritten, everything else is kept byte for byte:
//
//  - the k8s protobuf envelope ("k8s\0" + runtime.Unknown whose raw is a v1.Secret): each data
//    and stringData value and the kubectl.kubernetes.io/last-applied-configuration annotation
//    value become SecretDigest text; lengths are re-encoded, the rest of the object is copied;
//  - JSON: as JsonSecretRedactor does;
//  - encrypted ("k8s:enc:<provider>:..."): the provider prefix stays (the value still reads as
//    encrypted by that provider), the rest becomes the digest of the whole value;
//  - anything that does not decode: the digest of the whole value.
//
// The result decodes as the original does (KubernetesKeyDecoder: same kind, name, namespace,
// uid; the etcd readers: same keys, revisions, versions, events). Most messages hold no Secret:
// a byte search for "secrets/" returns them untouched before any parsing. A message that does
// not parse is returned unchanged (and counted): it would not decode either.
// Not thread-safe; one per session (one salt: equal values keep equal digests).
class EtcdSecretRedactor {
public:
    explicit EtcdSecretRedactor(QByteArray salt, std::string prefix = "/registry/");
    // A redactor with SecretDigest::randomSalt().
    static EtcdSecretRedactor withRandomSalt(std::string prefix = "/registry/");

    // `message` itself (shared, not copied) when it holds no Secret kv or is neither a
    // WatchResponse nor a RangeResponse; else the message with the Secrets' values redacted.
    QByteArray redact(EtcdFrameKind kind, const QByteArray& message);
    // The same on a RawMessage's bytes: true when *message was rewritten.
    bool redact(EtcdFrameKind kind, std::string* message);

    // One stored value of a Secret, redacted as above.
    std::string redactValue(std::string_view value);

    // Messages that held "secrets/" but did not parse (returned unchanged).
    std::uint64_t malformedMessages() const { return m_malformed; }
    // Values rewritten so far.
    std::uint64_t redactedValues() const { return m_redactedValues; }

    const std::string& prefix() const { return m_prefix; }
    const QByteArray& salt() const { return m_digest.salt(); }

private:
    // Writes the rewritten message to *out; false when nothing changed (or on malformed input).
    bool rewrite(EtcdFrameKind kind, std::string_view message, std::string* out);
    // -1: malformed, 0: no secret (unchanged), 1: rewritten into *out.
    int rewriteEvent(std::string_view event, std::string* out);
    int rewriteKeyValue(std::string_view kv, std::string* out);
    bool rewriteProtobuf(std::string_view value, std::string* out);
    std::string digestText(std::string_view value);

    std::string m_prefix;
    std::string m_secretsPrefix; // <prefix>secrets/
    SecretDigest m_digest;
    JsonSecretRedactor m_json;
    std::uint64_t m_malformed = 0;
    std::uint64_t m_redactedValues = 0;
};

} // namespace ws
