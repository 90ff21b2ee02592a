#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace ws {

// What a capture says about itself (the JSON of the file header): who wrote it, when, and what
// the source was — its kind, its one-line description and what a replay needs to run it again
// (a scenario's YAML and seed, an etcd prefix, a client-go version), never a credential.
struct CaptureHeader {
    QString creator;       // "WatchScope 0.9.0"
    QString createdUtc;    // ISO 8601
    QString sourceKind;    // "simulator", "etcd", "cluster"
    QString description;   // the session's description
    QJsonObject replay;    // source-specific (docs/capture-format.md)
    QStringList resources; // the session's --resources (empty: every one)
    bool secretsRedacted = true;

    QByteArray toJson() const;
    // nullopt-like: false and one line when `json` is not a capture header.
    static bool fromJson(const QByteArray& json, CaptureHeader* header, QString* error);
};

} // namespace ws
