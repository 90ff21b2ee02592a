#include "WatcherTableFile.h"

#include "model/WatcherState.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace ws {

bool WatcherTableFile::writable(const QString& path, QString* error) {
    const QFileInfo dir(QFileInfo(path).absolutePath());
    if (dir.isDir() && dir.isWritable() && !QFileInfo(path).isDir())
        return true;
    *error = QStringLiteral("cannot write %1: %2")
                 .arg(path, !dir.isDir()              ? QStringLiteral("no such directory")
                            : QFileInfo(path).isDir() ? QStringLiteral("it is a directory")
                                                      : QStringLiteral("permission denied"));
    return false;
}

bool WatcherTableFile::write(const QString& path, const QVector<WatcherSnapshot>& watchers,
                             QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    for (const WatcherSnapshot& w : watchers) {
        QJsonObject o{
            {QStringLiteral("id"), w.id},
            {QStringLiteral("resource"), w.resource},
            {QStringLiteral("state"), watcherStateName(w.state)},
            {QStringLiteral("rv"), QString::number(w.rv)},
            {QStringLiteral("events"), w.eventsReceived},
            {QStringLiteral("relists"), w.relists},
            {QStringLiteral("errors"), w.errors},
            {QStringLiteral("http_retries"), w.httpRetries},
        };
        // Empty and unknown values are left out rather than written as "" or -1.
        if (!w.apiserver.isEmpty())
            o.insert(QStringLiteral("apiserver"), w.apiserver);
        if (!w.selector.isEmpty())
            o.insert(QStringLiteral("selector"), w.selector);
        if (!w.profile.isEmpty())
            o.insert(QStringLiteral("profile"), w.profile);
        if (!w.detail.isEmpty())
            o.insert(QStringLiteral("detail"), w.detail);
        if (w.lagKnown()) {
            o.insert(QStringLiteral("lag_revisions"), w.lagRevisions);
            o.insert(QStringLiteral("lag_seconds"), w.lagSeconds);
        }
        if (w.objects != WatcherSnapshot::kUnknown)
            o.insert(QStringLiteral("objects"), w.objects);
        file.write(QJsonDocument(o).toJson(QJsonDocument::Compact));
        file.write("\n");
    }
    if (!file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace ws
