#include "KeyHistoryChecker.h"

namespace ws {

KeyHistoryChecker::~KeyHistoryChecker() = default;

KeyHistoryChecker::Stream& KeyHistoryChecker::stream(WatcherId w) {
    const auto i = static_cast<std::size_t>(w);
    if (i >= m_streams.size())
        m_streams.resize(i + 1);
    if (!m_streams[i])
        m_streams[i] = std::make_unique<Stream>();
    return *m_streams[i];
}

void KeyHistoryChecker::forgetKey(KeyId key) {
    for (const std::unique_ptr<Stream>& s : m_streams)
        if (s && key < s->keys.size())
            s->keys[key] = KeyState();
}

void KeyHistoryChecker::onListStarted(WatcherId w) {
    ++stream(w).epoch;
}

void KeyHistoryChecker::onListedObjects(WatcherId w, std::span<const ObservedEvent> objects) {
    Stream& s = stream(w);
    for (const ObservedEvent& o : objects) {
        if (!o.hasContent)
            continue;
        KeyState& ks = s.key(o.key);
        ks.known = true;
        ks.exists = true;
        ks.epoch = s.epoch;
        ks.modRev = o.rv;
        ks.createRev = o.createRv;
        ks.hash = o.valueHash;
        ks.size = o.valueSize;
    }
}

void KeyHistoryChecker::onListCompleted(WatcherId w, ResourceVersion listRv) {
    Stream& s = stream(w);
    // Keys absent from the list were deleted while the watch could not see it.
    for (KeyState& ks : s.keys) {
        if (ks.exists && ks.epoch != s.epoch) {
            ks.exists = false;
            ks.modRev = listRv;
        }
        ks.known = true;
    }
    s.baseline = true;
}

void KeyHistoryChecker::onWatchOpened(WatcherId w, const WatchRequest& request) {
    Stream& s = stream(w);
    if (!request.rvEmpty && request.rv == 0 && !s.baseline) {
        // Replaying the whole history (start revision 1): every key starts absent.
        s.baseline = true;
        for (KeyState& ks : s.keys)
            ks.known = true;
    }
}

void KeyHistoryChecker::raise(WatcherId w, TimeUs now, const ObservedEvent& e, QString message) {
    Anomaly a = m_ctx.make(w, now, AnomalyKind::StreamError, Severity::Error);
    a.key = m_ctx.keyName(e.key);
    a.rv = e.rv;
    a.message = std::move(message);
    m_ctx.raise(a);
}

void KeyHistoryChecker::onResponse(WatcherId w, TimeUs now, std::span<const ObservedEvent> events) {
    Stream& s = stream(w);
    for (const ObservedEvent& o : events) {
        if (!o.hasContent) [[unlikely]]
            continue;
        KeyState& ks = s.key(o.key);
        if (!ks.known && s.baseline)
            ks.known = true; // first seen after the baseline: absent until now
        const bool isDelete = o.type == WatchEventType::Deleted;
        const QLatin1String label(isDelete ? "DELETE" : "PUT");
        if (ks.known) [[likely]] {
            if (o.type == WatchEventType::Added && ks.exists) [[unlikely]] {
                raise(w, now, o,
                      QStringLiteral("IsCreate: PUT at %1 is a create (create_revision %1) but "
                                     "the key exists since mod_revision %2")
                          .arg(o.rv)
                          .arg(ks.modRev));
            } else if (o.type != WatchEventType::Added && !ks.exists) [[unlikely]] {
                raise(w, now, o,
                      QStringLiteral("IsCreate: %1 at %2 (create_revision %3) of a key that "
                                     "does not exist%4")
                          .arg(label)
                          .arg(o.rv)
                          .arg(o.createRv)
                          .arg(ks.modRev > 0 ? QStringLiteral(" (deleted at %1)").arg(ks.modRev)
                                             : QStringLiteral(" (never seen)")));
            } else if (o.type == WatchEventType::Modified && ks.createRev != o.createRv)
                [[unlikely]] {
                raise(w, now, o,
                      QStringLiteral("PUT at %1 has create_revision %2 but the key was created "
                                     "at %3")
                          .arg(o.rv)
                          .arg(o.createRv)
                          .arg(ks.createRev));
            }
            if (o.hasPrevKv && ks.exists && o.type != WatchEventType::Added) {
                const bool sameRev = o.prevRv == ks.modRev;
                if (!sameRev || o.prevValueSize != ks.size || o.prevValueHash != ks.hash)
                    [[unlikely]] {
                    raise(w, now, o,
                          QStringLiteral("PrevKV: prev_kv of %1 at %2 is mod_revision %3 (%4 "
                                         "bytes) but the value at %5 is mod_revision %6 (%7 "
                                         "bytes)%8")
                              .arg(label)
                              .arg(o.rv)
                              .arg(o.prevRv)
                              .arg(o.prevValueSize)
                              .arg(o.rv - 1)
                              .arg(ks.modRev)
                              .arg(ks.size)
                              .arg(sameRev ? QStringLiteral(", same revision, other content")
                                           : QString()));
                }
            }
        }
        ks.known = true;
        ks.modRev = o.rv;
        if (isDelete) {
            ks.exists = false;
        } else {
            ks.exists = true;
            ks.createRev = o.createRv;
            ks.hash = o.valueHash;
            ks.size = o.valueSize;
        }
    }
}

} // namespace ws
