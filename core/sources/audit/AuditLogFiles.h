#pragma once

#include <QString>
#include <QStringList>
#include <vector>

namespace ws {

// The files of one apiserver's audit log in the order they were written.
struct AuditLogGroup {
    QString apiserver; // shown as the watchers' apiserver: "audit.log", "master-1/audit.log"
    QStringList files; // oldest first; the live file (which --follow tails) last
};

// Turns --audit-log PATH[,PATH...] into one group per apiserver. kube-apiserver rotates its log
// with lumberjack (gopkg.in/natefinch/lumberjack.v2, lumberjack.go backupName): audit.log is
// the live file, audit-2026-11-26T10-00-00.000.log[.gz] the backups, stamped with the rotation
// time. Files that are one log's backups and live file (same folder, same name around the
// stamp) are one apiserver; a folder holds one log per name. Any other file is an apiserver of
// its own.
class AuditLogFiles {
public:
    static std::vector<AuditLogGroup> expand(const QStringList& paths, QString* error);
};

} // namespace ws
