#pragma once

#include "model/ResourceVersion.h"
#include "model/WatchEventType.h"

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <cstdint>

namespace ws {

// What the journal holds of an event's object.
enum class JournalContent : std::uint8_t {
    None,    // the event carried no object (an etcd DELETE) or the source has none
    Kept,    // held: JournalEntry::object (when asked for)
    Dropped, // was received, but the journal's byte budget has dropped it since
};

// One event a session's sources received, as the GUI reads it from the EventJournal: a value
// that owns its strings (shared with the journal's, so copying one costs a few counter
// increments) and, when asked for, a copy of the object's bytes.
struct JournalEntry {
    qint64 index = -1; // 0-based since the session started; shown as No. index + 1
    TimeUs time = 0;   // session time
    WatchEventType type = WatchEventType::Modified; // an etcd PUT is ADDED (create) or MODIFIED
    ResourceVersion rv = 0;                         // mod_revision / metadata.resourceVersion
    quint32 size = 0;                               // bytes received for the event
    QString key;                                    // "/registry/pods/default/web-0"
    QString resource;                               // plural ("crontabs.stable.example.com")
    QString ns;                                     // empty for cluster-scoped objects
    QString name;                                   // the key itself when it names no object
    QString watcher;                                // who received it
    // The previous event of the same key (any watcher), -1 when this is the first one seen.
    // It may be older than the journal's first entry (dropped).
    qint64 previous = -1;
    JournalContent content = JournalContent::None;
    quint32 objectSize = 0; // of the object as received, whether still held or not
    QByteArray object;      // empty unless asked for and content == Kept

    bool valid() const { return index >= 0; }
    // "default/web-0", or the name alone.
    QString objectName() const { return ns.isEmpty() ? name : ns + u'/' + name; }
};

} // namespace ws

Q_DECLARE_METATYPE(ws::JournalEntry)
