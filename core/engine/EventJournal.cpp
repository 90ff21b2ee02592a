#include "EventJournal.h"

#include "model/Observation.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace ws {

namespace {

// Records per chunk: a power of 2, about a sixteenth of the cap, at most 65,536 (3 MiB).
std::int64_t chunkSizeFor(std::int64_t maxEntries) {
    const auto want = static_cast<std::uint64_t>(std::max<std::int64_t>(16, maxEntries / 16));
    return static_cast<std::int64_t>(std::min<std::uint64_t>(65536, std::bit_ceil(want)));
}

// Bytes per block: about a sixty-fourth of the budget, 4 KiB to 4 MiB.
std::int64_t blockSizeFor(std::int64_t budget) {
    const auto want = static_cast<std::uint64_t>(std::max<std::int64_t>(4096, budget / 64));
    return static_cast<std::int64_t>(std::min<std::uint64_t>(4u << 20, std::bit_ceil(want)));
}

} // namespace

EventJournal::EventJournal(EventJournalLimits limits) : m_limits(limits) {
    if (!enabled())
        return;
    m_chunkSize = chunkSizeFor(m_limits.maxEntries);
    m_chunkShift = std::countr_zero(static_cast<std::uint64_t>(m_chunkSize));
    // One chunk more than the cap needs: the chunk being written never holds a live entry of
    // the oldest one it replaces.
    const std::int64_t chunks = (m_limits.maxEntries + m_chunkSize - 1) / m_chunkSize + 1;
    m_chunks.resize(static_cast<std::size_t>(chunks));
    m_blockSize = blockSizeFor(m_limits.byteBudget);
    m_watchers.push_back(QString());
}

EventJournal::~EventJournal() = default;

std::uint64_t EventJournal::keyHash(std::string_view key) {
    return contentHash(key.data(), key.size());
}

std::uint64_t EventJournal::markOf(std::uint64_t keyHash, ResourceVersion rv) {
    std::uint64_t x = keyHash ^ (static_cast<std::uint64_t>(rv) * 0x9E3779B97F4A7C15ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return x ^ (x >> 29);
}

void EventJournal::setKeyTable(KeyTable* keys) {
    m_keyTable = keys;
    if (keys)
        keys->onForget([this](KeyId key) { forgetKey(key); });
}

void EventJournal::forgetKey(KeyId key) {
    const Lock lock(m_mutex);
    if (key < m_keys.size()) {
        KeyState& k = m_keys[key];
        if (k.described) {
            const auto it = m_keyIds.constFind(k.names.key);
            if (it != m_keyIds.constEnd() && *it == key)
                m_keyIds.erase(it);
            --m_keyCount;
        }
        k = KeyState();
    }
    if (m_forgotten.size() < kForgottenLog)
        m_forgotten.push_back(key);
    else
        m_forgotten[static_cast<std::size_t>(m_forgottenCount % kForgottenLog)] = key;
    ++m_forgottenCount;
}

std::uint64_t EventJournal::forgottenKeys(std::uint64_t since, std::vector<KeyId>* out,
                                          bool* all) const {
    out->clear();
    const Lock lock(m_mutex);
    *all = m_forgottenCount - since > kForgottenLog;
    if (!*all)
        for (std::uint64_t i = since; i < m_forgottenCount; ++i)
            out->push_back(m_forgotten[static_cast<std::size_t>(i % kForgottenLog)]);
    return m_forgottenCount;
}

void EventJournal::setResourceFilter(std::function<bool(const QString&)> shows) {
    const Lock lock(m_mutex);
    m_shows = std::move(shows);
}

void EventJournal::describeKey(KeyId key, std::string_view keyText, const QString& resource,
                               const QString& ns, const QString& name) {
    if (!enabled() || key == kNoKey || hasKey(key))
        return;
    JournalKey names;
    names.key = QString::fromUtf8(keyText.data(), static_cast<qsizetype>(keyText.size()));
    names.resource = resource;
    names.ns = ns;
    names.name = name.isEmpty() ? names.key : name;
    names.hash = keyHash(keyText);
    const Lock lock(m_mutex);
    names.hidden = m_shows && !m_shows(resource);
    if (key >= m_keys.size())
        m_keys.resize(static_cast<std::size_t>(key) + 1);
    KeyState& k = m_keys[key];
    m_keyIds.insert(names.key, key);
    k.names = std::move(names);
    k.described = true;
    ++m_keyCount;
}

std::uint16_t EventJournal::addWatcher(const QString& name) {
    const Lock lock(m_mutex);
    const auto at = m_watchers.indexOf(name);
    if (at >= 0)
        return static_cast<std::uint16_t>(at);
    if (m_watchers.size() >= 0xffff)
        return 0;
    m_watchers.push_back(name);
    return static_cast<std::uint16_t>(m_watchers.size() - 1);
}

JournalRecord* EventJournal::slot(std::int64_t index) const {
    const auto chunk = static_cast<std::size_t>(index >> m_chunkShift) % m_chunks.size();
    return m_chunks[chunk].get() + (index & (m_chunkSize - 1));
}

std::int64_t EventJournal::firstHeld() const {
    return std::max<std::int64_t>(0, m_total - m_limits.maxEntries);
}

void EventJournal::append(const Event& e) {
    if (!enabled() || e.key == kNoKey)
        return;
    if (e.key < m_keys.size() && m_keys[e.key].names.hidden)
        return; // writer thread: m_keys changes only here and in describeKey
    // A chunk is allocated outside the lock (only while the journal fills up); the writer is
    // the only one that changes the chunk pointers' nullness, readers see them under the lock.
    const auto chunkIndex = static_cast<std::size_t>(m_total >> m_chunkShift) % m_chunks.size();
    std::unique_ptr<JournalRecord[]> fresh;
    if (!m_chunks[chunkIndex])
        fresh = std::make_unique<JournalRecord[]>(static_cast<std::size_t>(m_chunkSize));

    KeyId unheld = kNoKey; // released after the lock: the table's listeners take it
    {
        const Lock lock(m_mutex);
        if (fresh)
            m_chunks[chunkIndex] = std::move(fresh);
        if (e.key >= m_keys.size())
            m_keys.resize(static_cast<std::size_t>(e.key) + 1);
        KeyState& k = m_keys[e.key];
        if (!k.described) {
            k.described = true;
            k.names.key = k.names.name = QStringLiteral("key #%1").arg(e.key);
            ++m_keyCount;
        }
        const std::int64_t index = m_total;
        JournalRecord& r = *slot(index);
        r.time = e.time;
        r.rv = e.rv;
        r.previous = k.last;
        r.key = e.key;
        r.size = e.size;
        r.watcher = e.watcher;
        r.type = e.type;
        r.flags = 0;
        r.objectSize = e.hasObject ? static_cast<std::uint32_t>(e.object.size()) : 0;
        if (!e.hasObject) {
            r.offset = JournalRecord::kNoObject;
        } else if (static_cast<std::int64_t>(e.object.size()) > m_limits.byteBudget) {
            r.offset = JournalRecord::kOverBudget;
        } else {
            r.offset = m_bytesTotal;
            writeBytes(m_bytesTotal, e.object);
            m_bytesTotal += static_cast<std::int64_t>(e.object.size());
            dropOldBlocks();
        }
        k.last = index;
        if (k.rows++ == 0 && m_keyTable)
            m_keyTable->hold(e.key);
        ++m_total;
        if (m_total > m_limits.maxEntries) {
            // The entry just dropped (its record is still in the ring: one chunk more than held).
            const KeyId dropped = slot(m_total - m_limits.maxEntries - 1)->key;
            if (dropped < m_keys.size() && --m_keys[dropped].rows == 0)
                unheld = dropped;
        }
        advanceContentCursor();
    }
    if (unheld != kNoKey && m_keyTable)
        m_keyTable->release(unheld);
}

void EventJournal::writeBytes(std::int64_t offset, std::string_view bytes) {
    while (!bytes.empty()) {
        const std::int64_t block = offset / m_blockSize;
        const std::int64_t within = offset % m_blockSize;
        if (m_blocks.empty())
            m_firstBlock = block;
        while (block >= m_firstBlock + static_cast<std::int64_t>(m_blocks.size())) {
            if (m_spareBlock)
                m_blocks.push_back(std::move(m_spareBlock));
            else
                m_blocks.emplace_back(new char[static_cast<std::size_t>(m_blockSize)]);
        }
        const std::size_t n =
            std::min(bytes.size(), static_cast<std::size_t>(m_blockSize - within));
        std::memcpy(m_blocks[static_cast<std::size_t>(block - m_firstBlock)].get() + within,
                    bytes.data(), n);
        bytes.remove_prefix(n);
        offset += static_cast<std::int64_t>(n);
    }
}

void EventJournal::readBytes(std::int64_t offset, std::uint32_t size, QByteArray* out) const {
    out->resize(static_cast<qsizetype>(size));
    char* to = out->data();
    std::size_t left = size;
    while (left > 0) {
        const std::int64_t block = offset / m_blockSize;
        const std::int64_t within = offset % m_blockSize;
        const std::size_t n = std::min(left, static_cast<std::size_t>(m_blockSize - within));
        std::memcpy(to, m_blocks[static_cast<std::size_t>(block - m_firstBlock)].get() + within, n);
        to += n;
        left -= n;
        offset += static_cast<std::int64_t>(n);
    }
}

void EventJournal::dropOldBlocks() {
    const std::int64_t floor = bytesFloor();
    while (!m_blocks.empty() && (m_firstBlock + 1) * m_blockSize <= floor) {
        if (!m_spareBlock)
            m_spareBlock = std::move(m_blocks.front());
        m_blocks.pop_front();
        ++m_firstBlock;
    }
}

void EventJournal::advanceContentCursor() {
    m_contentCursor = std::max(m_contentCursor, firstHeld());
    const std::int64_t floor = bytesFloor();
    while (m_contentCursor < m_total) {
        const JournalRecord& r = *slot(m_contentCursor);
        if (r.offset == JournalRecord::kNoObject) {
            ++m_contentCursor;
        } else if (r.offset == JournalRecord::kOverBudget || r.offset < floor) {
            ++m_contentsDropped;
            ++m_contentCursor;
        } else {
            break;
        }
    }
}

JournalStats EventJournal::stats() const {
    const Lock lock(m_mutex);
    JournalStats s;
    s.total = m_total;
    s.first = firstHeld();
    s.contentsDropped = m_contentsDropped;
    s.contentFloor = m_contentCursor;
    s.bytesHeld = m_bytesTotal - bytesFloor();
    s.keys = m_keyCount;
    return s;
}

std::int64_t EventJournal::total() const {
    const Lock lock(m_mutex);
    return m_total;
}

JournalEntry EventJournal::entryOf(std::int64_t index, const JournalRecord& r) const {
    JournalEntry e;
    e.index = index;
    e.time = r.time;
    e.type = r.type;
    e.rv = r.rv;
    e.size = r.size;
    if (r.key < m_keys.size()) {
        const JournalKey& k = m_keys[r.key].names;
        e.key = k.key;
        e.resource = k.resource;
        e.ns = k.ns;
        e.name = k.name;
    }
    e.watcher = m_watchers.value(r.watcher);
    e.previous = r.previous;
    e.objectSize = r.objectSize;
    if (r.offset == JournalRecord::kNoObject)
        e.content = JournalContent::None;
    else if (r.offset == JournalRecord::kOverBudget || r.offset < bytesFloor())
        e.content = JournalContent::Dropped;
    else
        e.content = JournalContent::Kept;
    return e;
}

QVector<JournalEntry> EventJournal::entries(std::int64_t from, int count) const {
    QVector<JournalEntry> out;
    if (!enabled() || count <= 0)
        return out;
    const Lock lock(m_mutex);
    const std::int64_t begin = std::max(from, firstHeld());
    const std::int64_t end = std::min(from + count, m_total);
    if (begin >= end)
        return out;
    out.reserve(static_cast<qsizetype>(end - begin));
    for (std::int64_t i = begin; i < end; ++i)
        out.push_back(entryOf(i, *slot(i)));
    return out;
}

QVector<JournalEntry> EventJournal::entriesAt(const std::vector<std::int64_t>& indices) const {
    QVector<JournalEntry> out;
    if (!enabled())
        return out;
    out.reserve(static_cast<qsizetype>(indices.size()));
    const Lock lock(m_mutex);
    const std::int64_t first = firstHeld();
    for (const std::int64_t i : indices)
        if (i >= first && i < m_total)
            out.push_back(entryOf(i, *slot(i)));
    return out;
}

JournalEntry EventJournal::entry(std::int64_t index) const {
    if (!enabled())
        return {};
    const Lock lock(m_mutex);
    if (index < firstHeld() || index >= m_total)
        return {};
    const JournalRecord& r = *slot(index);
    JournalEntry e = entryOf(index, r);
    if (e.content == JournalContent::Kept)
        readBytes(r.offset, r.objectSize, &e.object);
    return e;
}

std::int64_t EventJournal::copyRecords(std::int64_t from, std::int64_t to,
                                       std::vector<JournalRecord>* out) const {
    out->clear();
    if (!enabled())
        return from;
    const Lock lock(m_mutex);
    const std::int64_t begin = std::max(from, firstHeld());
    const std::int64_t end = std::min(to, m_total);
    if (begin >= end)
        return begin;
    out->resize(static_cast<std::size_t>(end - begin));
    // Chunk by chunk: records are contiguous within one.
    std::int64_t i = begin;
    JournalRecord* dst = out->data();
    while (i < end) {
        const std::int64_t chunkEnd = std::min(end, ((i >> m_chunkShift) + 1) << m_chunkShift);
        const auto n = static_cast<std::size_t>(chunkEnd - i);
        std::memcpy(static_cast<void*>(dst), slot(i), n * sizeof(JournalRecord));
        dst += n;
        i = chunkEnd;
    }
    return begin;
}

JournalKey EventJournal::key(KeyId key) const {
    const Lock lock(m_mutex);
    return key < m_keys.size() ? m_keys[key].names : JournalKey();
}

QString EventJournal::watcherName(std::uint16_t watcher) const {
    const Lock lock(m_mutex);
    return m_watchers.value(watcher);
}

std::vector<std::int64_t> EventJournal::find(const QString& key, ResourceVersion rv,
                                             std::int64_t below, int maxSteps) const {
    std::vector<std::int64_t> out;
    if (!enabled())
        return out;
    const Lock lock(m_mutex);
    const auto it = m_keyIds.constFind(key);
    if (it == m_keyIds.constEnd())
        return out;
    const std::int64_t first = firstHeld();
    std::int64_t i = m_keys[*it].last;
    for (int steps = 0; i >= first && steps < maxSteps; ++steps) {
        const JournalRecord& r = *slot(i);
        if (i < below && r.rv == rv)
            out.push_back(i);
        i = r.previous;
    }
    std::reverse(out.begin(), out.end());
    return out;
}

} // namespace ws
