#pragma once

#include "JournalEntry.h"
#include "JournalRecord.h"

#include <QHash>
#include <QString>
#include <QVector>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace ws {

// Default: off (maxEntries 0), so that a session nobody reads the events of (the CLI, serve,
// What If) records nothing; the window asks for window().
struct EventJournalLimits {
    std::int64_t maxEntries = 0; // metadata of the newest; 0: record nothing
    std::int64_t byteBudget = 0; // object bytes of the newest

    // The window's: 1 M events (48 MB of metadata) and 64 MiB of objects, so that a 50,000
    // events/s stream levels off near 150 MB instead of growing for minutes (ws-bench-gui);
    // at a cluster's usual hundreds of events a second that is an hour of events.
    static constexpr EventJournalLimits window() { return {1'000'000, std::int64_t(64) << 20}; }
};

// What the journal holds now (one consistent snapshot).
struct JournalStats {
    std::int64_t total = 0;           // entries ever appended; the next one's index
    std::int64_t first = 0;           // index of the oldest held; entries before it are dropped
    std::int64_t contentsDropped = 0; // objects dropped by the byte budget (and never held)
    std::int64_t contentFloor = 0;    // no entry before this index holds its object any more
    std::int64_t bytesHeld = 0;       // object bytes held (≤ the budget)
    std::int64_t keys = 0;            // keys described and not forgotten since

    std::int64_t held() const { return total - first; }
    std::int64_t droppedEntries() const { return first; }
};

// A key as the journal names it.
struct JournalKey {
    QString key;
    QString resource;
    QString ns;
    QString name;
    std::uint64_t hash = 0; // contentHash of the key's UTF-8 bytes (EventJournal::markOf)
    bool hidden = false;    // outside the session's --resources: its events are not recorded
};

// The engine's bounded record of every event the session's sources received (Wireshark's frame
// list): time, type, key, RV, size, watcher, and the object's bytes when the source has them,
// linked to the previous event of the same key so that a version can be diffed against the one
// before it. One per Pipeline.
//
// Bounds: the metadata of the newest maxEntries events (48 bytes each, in chunks allocated as
// the journal fills and reused once it is full), and the object bytes of the newest byteBudget
// bytes (a byte stream in blocks; whole blocks go as it moves on). An entry older than that
// keeps its metadata and says its content was dropped; the number of entries dropped is
// first(). Appending allocates nothing once the journal is full, except a byte block now and
// then (one spare is kept).
//
// Threads: one writer (the session thread: describeKey, addWatcher, append) and any number of
// readers. Every call takes one mutex for a short time: appending copies one record and the
// object bytes; reads copy out what they return (a page of entries, a chunk of records) and
// build nothing but shared strings inside it.
class EventJournal {
public:
    explicit EventJournal(EventJournalLimits limits = {});
    ~EventJournal();
    EventJournal(const EventJournal&) = delete;
    EventJournal& operator=(const EventJournal&) = delete;

    const EventJournalLimits& limits() const { return m_limits; }
    bool enabled() const { return m_limits.maxEntries > 0; }

    // --- the writer (session thread) ---

    // The table the sources' KeyIds come from: while held entries name a key, the journal
    // holds its id, so that rows outliving the key's object keep their name; when the table
    // forgets a key, so does the journal (its id may then name another key). Before the first
    // append(); `keys` outlives every append() (the GUI may keep reading after it is gone).
    void setKeyTable(KeyTable* keys);
    // Keys whose resource this rejects are described as hidden and never recorded (the
    // session's --resources). Before the first describeKey().
    void setResourceFilter(std::function<bool(const QString& resource)> shows);
    // A source that meets a key names it once; `name` empty: the key is the name. Writer only.
    bool hasKey(KeyId key) const {
        return key < m_keys.size() && m_keys[key].described; // writer thread: no lock needed
    }
    void describeKey(KeyId key, std::string_view keyText, const QString& resource,
                     const QString& ns, const QString& name);
    // A watcher (a source's stream) events are recorded against; at most 65,535.
    std::uint16_t addWatcher(const QString& name);

    struct Event {
        TimeUs time = 0;
        WatchEventType type = WatchEventType::Modified;
        KeyId key = kNoKey; // described before (describeKey); else recorded under its id
        ResourceVersion rv = 0;
        std::uint32_t size = 0; // bytes received
        std::uint16_t watcher = 0;
        bool hasObject = false;
        std::string_view object; // copied
    };
    void append(const Event& event);

    // --- readers (any thread) ---

    JournalStats stats() const;
    std::int64_t total() const;
    // The held entries of [from, from + count), without their object bytes.
    QVector<JournalEntry> entries(std::int64_t from, int count) const;
    // The held ones among `indices` (ascending or not), in their order, without objects.
    QVector<JournalEntry> entriesAt(const std::vector<std::int64_t>& indices) const;
    // One entry with its object's bytes when held; invalid (index -1) when not held.
    JournalEntry entry(std::int64_t index) const;
    // Copies the records of [from, to) that are still held into *out (cleared first) and
    // returns the index of (*out)[0] (≥ from).
    std::int64_t copyRecords(std::int64_t from, std::int64_t to,
                             std::vector<JournalRecord>* out) const;
    JournalKey key(KeyId key) const;
    // For a reader that keeps state by KeyId (EventMatcher): the ids forgotten after `since`
    // (a previous answer; 0 at first) go to *out, and the answer to pass next time is returned.
    // *all: more were forgotten than the journal remembers; drop everything kept by id.
    std::uint64_t forgottenKeys(std::uint64_t since, std::vector<KeyId>* out, bool* all) const;
    QString watcherName(std::uint16_t watcher) const;
    // The held entries of `key` at `rv`, newest last, looking back at most maxSteps events of
    // the key (following the previous-version links) and only at indices below `below`.
    std::vector<std::int64_t> find(const QString& key, ResourceVersion rv, std::int64_t below,
                                   int maxSteps = 4096) const;

    // The mark an anomaly naming (key, rv) leaves on the events of that key at that RV.
    static std::uint64_t markOf(std::uint64_t keyHash, ResourceVersion rv);
    static std::uint64_t keyHash(std::string_view key);

private:
    struct KeyState {
        JournalKey names;
        std::int64_t last = -1; // the newest entry of the key
        std::int64_t rows = 0;  // held entries naming it; the journal holds the id while > 0
        bool described = false;
    };
    using Lock = std::lock_guard<std::mutex>;

    JournalRecord* slot(std::int64_t index) const; // lock held; the chunk exists
    void forgetKey(KeyId key);                     // the key table forgot it
    void writeBytes(std::int64_t offset, std::string_view bytes);
    void readBytes(std::int64_t offset, std::uint32_t size, QByteArray* out) const;
    void dropOldBlocks();
    void advanceContentCursor();
    std::int64_t firstHeld() const; // lock held
    std::int64_t bytesFloor() const {
        return std::max<std::int64_t>(0, m_bytesTotal - m_limits.byteBudget);
    }
    JournalEntry entryOf(std::int64_t index, const JournalRecord& r) const; // lock held

    const EventJournalLimits m_limits;
    std::int64_t m_chunkSize = 1; // records per chunk, a power of 2
    int m_chunkShift = 0;
    std::int64_t m_blockSize = 1; // bytes per block

    mutable std::mutex m_mutex; // guards everything below
    std::function<bool(const QString&)> m_shows;
    std::vector<std::unique_ptr<JournalRecord[]>> m_chunks; // ring: chunk c at c % size()
    std::int64_t m_total = 0;
    std::vector<KeyState> m_keys; // by KeyId
    std::int64_t m_keyCount = 0;
    QHash<QString, KeyId> m_keyIds;
    KeyTable* m_keyTable = nullptr; // writer only
    static constexpr std::size_t kForgottenLog = 4096;
    std::vector<KeyId> m_forgotten; // ring of the newest kForgottenLog forgotten ids
    std::uint64_t m_forgottenCount = 0;
    QVector<QString> m_watchers;

    std::deque<std::unique_ptr<char[]>> m_blocks; // m_blocks[i] holds block m_firstBlock + i
    std::unique_ptr<char[]> m_spareBlock;
    std::int64_t m_firstBlock = 0;
    std::int64_t m_bytesTotal = 0; // the byte stream's length
    std::int64_t m_contentCursor = 0;
    std::int64_t m_contentsDropped = 0;
};

} // namespace ws
