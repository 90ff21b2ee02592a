#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace ws {

// An event's object bytes as lines to read and to diff: JSON pretty-printed with its members in
// the order received (numbers as written, nothing re-encoded); a "k8s\0" protobuf value as what
// KubernetesKeyDecoder reads of it (apiVersion, kind, namespace, name, uid) and a hex dump of
// its first bytes; an encrypted value as its provider and a hex dump; other text as it is.
struct ObjectText {
    enum class Encoding { Empty, Json, Protobuf, Encrypted, Text, Binary };
    static constexpr int kHexDumpBytes = 512;

    Encoding encoding = Encoding::Empty;
    QString summary; // "JSON, 1,234 bytes"
    QStringList lines;

    static ObjectText of(const QByteArray& bytes);
    // `json` (valid) with one member or element a line, indented by two spaces a level.
    static QStringList prettyJson(const QByteArray& json);
    // "0000  6b 38 73 00 0a 0b …  |k8s.....|", 16 bytes a line, the first `max` bytes.
    static QStringList hexDump(const QByteArray& bytes, int max = kHexDumpBytes);
};

} // namespace ws
