#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// An etcd mvccpb.KeyValue as views into the received bytes.
struct WireKeyValue {
    std::string_view key;
    std::string_view value;
    std::int64_t createRevision = 0;
    std::int64_t modRevision = 0;
    std::int64_t version = 0;
    std::int64_t lease = 0;
};

// Decodes the revision of an etcdserverpb.ResponseHeader; false on malformed input.
bool parseWireHeaderRevision(std::string_view bytes, std::int64_t* revision);
// Decodes one mvccpb.KeyValue message; false on malformed input.
bool parseWireKeyValue(std::string_view bytes, WireKeyValue* kv);

struct WireEvent {
    bool isDelete = false;
    WireKeyValue kv;
    bool hasPrevKv = false;
    WireKeyValue prevKv;
};

// etcdserverpb.WatchResponse decoded straight from the wire bytes (reference/etcd-watch.md §1):
// keys and values are views into buffers the response owns, so a catch-up response of 1000
// events costs one copy of its bytes instead of four allocations per event. Fragments are merged
// by appending further pieces (their buffers stay alive with the response).
class WireWatchResponse {
public:
    std::int64_t headerRevision = 0;
    std::int64_t watchId = 0;
    bool created = false;
    bool canceled = false;
    bool fragment = false;
    std::int64_t compactRevision = 0;
    std::string cancelReason;
    std::vector<WireEvent> events;

    void clear();
    // Takes ownership of bytes and decodes them; false (and error()) on malformed input.
    bool parse(std::string bytes);
    // Appends the events of another piece (fragment merge) and takes its header and flags.
    void append(WireWatchResponse&& piece);
    const std::string& error() const { return m_error; }
    std::size_t byteSize() const;
    // The bytes of a response as parsed (before any append), as they were received.
    const std::string& bytes() const { return m_buffers.front(); }

private:
    std::deque<std::string> m_buffers;
    std::string m_error;
};

} // namespace ws
