#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <optional>
#include <string>

namespace ws {

// metav1's list continue token (apiserver/pkg/storage/continue.go, etcd3/store.go before
// 1.27): base64url without padding of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key>"},
// where start is the key after the page's last one (its last key plus "\0"), relative to the
// list's key prefix. rv -1 continues at the latest revision (the fresh token of an expired one).
struct ContinueToken {
    ResourceVersion rv = 0;
    std::string start; // relative to the list's prefix: "ns/name\0"

    // The token that continues after `lastKey` (relative) at `rv`.
    static QString after(ResourceVersion rv, const std::string& lastKey);
    QString encode() const;
    // Nullopt with *why set ("incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    // for a token the apiserver rejects.
    static std::optional<ContinueToken> decode(const QString& token, QString* why);
};

} // namespace ws
