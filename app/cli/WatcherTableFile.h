#pragma once

#include "engine/EngineUpdate.h"

#include <QString>
#include <QVector>

namespace ws {

// `--watchers FILE.jsonl`: the watcher table as the session ended, one JSON object per watcher
// (id, resource, apiserver, selector, profile, state, detail, rv, lag, events, relists, errors,
// HTTP retries, objects), so a script can compare an informer's final store with `kubectl get`.
class WatcherTableFile {
public:
    // Whether `path` can be written (its folder exists and takes files); *error says why not.
    static bool writable(const QString& path, QString* error);
    // False with *error ("cannot write F: reason") when the file cannot be written whole.
    static bool write(const QString& path, const QVector<WatcherSnapshot>& watchers,
                      QString* error);
};

} // namespace ws
