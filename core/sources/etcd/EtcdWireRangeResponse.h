#pragma once

#include "EtcdWireWatchResponse.h"

#include <string>
#include <vector>

namespace ws {

// etcdserverpb.RangeResponse decoded straight from the wire bytes (one page of a list): the
// header revision, the kvs as views into the bytes the response owns, `more` and `count`.
class WireRangeResponse {
public:
    std::int64_t headerRevision = 0;
    std::vector<WireKeyValue> kvs;
    bool more = false;
    std::int64_t count = 0;

    // Takes ownership of bytes and decodes them; false (and error()) on malformed input.
    bool parse(std::string bytes);
    const std::string& bytes() const { return m_bytes; }
    const std::string& error() const { return m_error; }

private:
    std::string m_bytes;
    std::string m_error;
};

} // namespace ws
