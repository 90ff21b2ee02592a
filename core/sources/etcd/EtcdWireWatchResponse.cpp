#include "EtcdWireWatchResponse.h"

#include "util/ProtoWireReader.h"

#include <algorithm>

namespace ws {

bool parseWireHeaderRevision(std::string_view bytes, std::int64_t* revision) {
    ProtoWireReader r{bytes.data(), bytes.data() + bytes.size()};
    while (r.ok && !r.atEnd()) {
        const std::uint64_t tag = r.varint();
        if ((tag >> 3) == 3 && (tag & 7) == 0) // ResponseHeader.revision
            *revision = static_cast<std::int64_t>(r.varint());
        else
            r.skip(static_cast<std::uint32_t>(tag & 7));
    }
    return r.ok;
}

bool parseWireKeyValue(std::string_view bytes, WireKeyValue* kv) {
    ProtoWireReader r{bytes.data(), bytes.data() + bytes.size()};
    while (r.ok && !r.atEnd()) {
        const std::uint64_t tag = r.varint();
        const auto field = static_cast<std::uint32_t>(tag >> 3);
        const auto wt = static_cast<std::uint32_t>(tag & 7);
        if (wt == 2 && field == 1)
            kv->key = r.bytes();
        else if (wt == 2 && field == 5)
            kv->value = r.bytes();
        else if (wt == 0 && field == 2)
            kv->createRevision = static_cast<std::int64_t>(r.varint());
        else if (wt == 0 && field == 3)
            kv->modRevision = static_cast<std::int64_t>(r.varint());
        else if (wt == 0 && field == 4)
            kv->version = static_cast<std::int64_t>(r.varint());
        else if (wt == 0 && field == 6)
            kv->lease = static_cast<std::int64_t>(r.varint());
        else
            r.skip(wt);
    }
    return r.ok;
}

namespace {

bool parseEvent(std::string_view bytes, WireEvent* ev) {
    ProtoWireReader r{bytes.data(), bytes.data() + bytes.size()};
    while (r.ok && !r.atEnd()) {
        const std::uint64_t tag = r.varint();
        const auto field = static_cast<std::uint32_t>(tag >> 3);
        const auto wt = static_cast<std::uint32_t>(tag & 7);
        if (wt == 0 && field == 1) {
            ev->isDelete = r.varint() == 1;
        } else if (wt == 2 && field == 2) {
            if (!parseWireKeyValue(r.bytes(), &ev->kv))
                return false;
        } else if (wt == 2 && field == 3) {
            ev->hasPrevKv = true;
            if (!parseWireKeyValue(r.bytes(), &ev->prevKv))
                return false;
        } else {
            r.skip(wt);
        }
    }
    return r.ok;
}

} // namespace

void WireWatchResponse::clear() {
    headerRevision = 0;
    watchId = 0;
    created = canceled = fragment = false;
    compactRevision = 0;
    cancelReason.clear();
    events.clear();
    m_buffers.clear();
    m_error.clear();
}

std::size_t WireWatchResponse::byteSize() const {
    std::size_t n = 0;
    for (const auto& b : m_buffers)
        n += b.size();
    return n;
}

bool WireWatchResponse::parse(std::string bytes) {
    clear();
    // Views point into the buffer: keep it on the heap, where a move leaves it in place.
    bytes.reserve(std::max<std::size_t>(bytes.size(), 32));
    const std::string& buf = m_buffers.emplace_back(std::move(bytes));
    ProtoWireReader r{buf.data(), buf.data() + buf.size()};
    while (r.ok && !r.atEnd()) {
        const std::uint64_t tag = r.varint();
        const auto field = static_cast<std::uint32_t>(tag >> 3);
        const auto wt = static_cast<std::uint32_t>(tag & 7);
        if (wt == 2 && field == 1) {
            const std::string_view header = r.bytes(); // may clear r.ok
            r.ok = r.ok && parseWireHeaderRevision(header, &headerRevision);
        } else if (wt == 0 && field == 2) {
            watchId = static_cast<std::int64_t>(r.varint());
        } else if (wt == 0 && field == 3) {
            created = r.varint() != 0;
        } else if (wt == 0 && field == 4) {
            canceled = r.varint() != 0;
        } else if (wt == 0 && field == 5) {
            compactRevision = static_cast<std::int64_t>(r.varint());
        } else if (wt == 2 && field == 6) {
            cancelReason.assign(r.bytes());
        } else if (wt == 0 && field == 7) {
            fragment = r.varint() != 0;
        } else if (wt == 2 && field == 11) {
            WireEvent& ev = events.emplace_back();
            if (!parseEvent(r.bytes(), &ev)) {
                m_error = "malformed mvccpb.Event #" + std::to_string(events.size());
                return false;
            }
        } else {
            r.skip(wt);
        }
    }
    if (!r.ok) {
        m_error = "malformed etcdserverpb.WatchResponse at byte " +
                  std::to_string(r.p - buf.data()) + " of " + std::to_string(buf.size());
        return false;
    }
    return true;
}

void WireWatchResponse::append(WireWatchResponse&& piece) {
    for (auto& b : piece.m_buffers)
        m_buffers.push_back(std::move(b)); // heap storage (the views' target) does not move
    events.insert(events.end(), piece.events.begin(), piece.events.end());
    headerRevision = piece.headerRevision;
    watchId = piece.watchId;
    fragment = piece.fragment;
    piece.clear();
}

} // namespace ws
