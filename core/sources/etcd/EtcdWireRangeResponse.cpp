#include "EtcdWireRangeResponse.h"

#include "util/ProtoWireReader.h"

#include <algorithm>

namespace ws {

bool WireRangeResponse::parse(std::string bytes) {
    headerRevision = 0;
    kvs.clear();
    more = false;
    count = 0;
    m_error.clear();
    m_bytes = std::move(bytes);
    // The views point into m_bytes: keep it on the heap so that a move of this object (which
    // moves the heap buffer, not a small-string one) leaves them valid.
    m_bytes.reserve(std::max<std::size_t>(m_bytes.size(), 32));
    ProtoWireReader r{m_bytes.data(), m_bytes.data() + m_bytes.size()};
    while (r.ok && !r.atEnd()) {
        const std::uint64_t tag = r.varint();
        const auto field = static_cast<std::uint32_t>(tag >> 3);
        const auto wt = static_cast<std::uint32_t>(tag & 7);
        if (wt == 2 && field == 1) {
            const std::string_view header = r.bytes(); // may clear r.ok
            r.ok = r.ok && parseWireHeaderRevision(header, &headerRevision);
        } else if (wt == 2 && field == 2) {
            if (!parseWireKeyValue(r.bytes(), &kvs.emplace_back())) {
                m_error = "malformed mvccpb.KeyValue #" + std::to_string(kvs.size());
                return false;
            }
        } else if (wt == 0 && field == 3) {
            more = r.varint() != 0;
        } else if (wt == 0 && field == 4) {
            count = static_cast<std::int64_t>(r.varint());
        } else {
            r.skip(wt);
        }
    }
    if (!r.ok) {
        m_error = "malformed etcdserverpb.RangeResponse at byte " +
                  std::to_string(r.p - m_bytes.data()) + " of " + std::to_string(m_bytes.size());
        return false;
    }
    return true;
}

} // namespace ws
