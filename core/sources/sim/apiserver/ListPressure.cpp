#include "ListPressure.h"

#include "sources/sim/SimContext.h"
#include "sources/sim/etcd/SimEtcd.h"

#include <algorithm>

namespace ws {

ListPressure::ResourceCounts& ListPressure::counts(int resource) {
    if (resource >= static_cast<int>(m_counts.size()))
        m_counts.resize(static_cast<std::size_t>(resource) + 1);
    return m_counts[static_cast<std::size_t>(resource)];
}

std::int64_t ListPressure::scannedBytes(int resource) {
    if (resource >= static_cast<int>(m_scans.size()))
        m_scans.resize(static_cast<std::size_t>(resource) + 1);
    Scan& s = m_scans[static_cast<std::size_t>(resource)];
    if (s.at < 0 || m_ctx.now - s.at >= seconds(1)) {
        s.at = m_ctx.now;
        s.bytes = 0;
        for (KeyId k : m_ctx.etcd.liveKeys(resource))
            s.bytes += m_ctx.etcd.get(k)->valueSize;
    }
    return s.bytes;
}

void ListPressure::serve(int resource, listmemory::Path path, const std::vector<KeyValuePtr>& items,
                         std::int64_t scanned, std::int64_t largestRead, bool streaming,
                         Deliver deliver) {
    if (!m_config.enabled || m_config.listBytesPerSecond <= 0) {
        deliver(true, {});
        return;
    }
    listmemory::ListCost cost;
    for (const KeyValuePtr& kv : items) {
        cost.selectedBytes += kv->valueSize;
        cost.largestObject = std::max<std::int64_t>(cost.largestObject, kv->valueSize);
    }
    cost.scannedBytes = path != listmemory::Path::Etcd ? cost.selectedBytes
                        : scanned >= 0                 ? scanned
                                                       : scannedBytes(resource);
    cost.largestReadBytes =
        largestRead >= 0 ? std::min(largestRead, cost.scannedBytes) : cost.scannedBytes;
    const std::int64_t work = listmemory::workBytes(path, cost);
    const auto took =
        static_cast<TimeUs>(static_cast<double>(work) * kUsPerSecond / m_config.listBytesPerSecond);
    InFlight l{resource, listmemory::heldBytes(path, cost, streaming),
               m_ctx.now + m_profile.requestTimeout, m_ctx.now + took, std::move(deliver)};
    m_heldBytes += l.held;
    ResourceCounts& c = counts(resource);
    ++c.inflight;
    c.bytesInflight += l.held;
    m_lists.push_back(std::move(l));
}

void ListPressure::release(const InFlight& l) {
    m_heldBytes -= l.held;
    ResourceCounts& c = counts(l.resource);
    --c.inflight;
    c.bytesInflight -= l.held;
}

bool ListPressure::tick() {
    const TimeUs now = m_ctx.now;
    // Answers may start new lists (a client relisting at once): deliver from a copy.
    std::vector<Deliver> due;
    std::vector<ApiStatus> statuses;
    std::erase_if(m_lists, [&](InFlight& l) {
        if (l.deliver && l.doneAt <= now) {
            release(l);
            due.push_back(std::move(l.deliver));
            statuses.push_back({});
            return true;
        }
        if (l.deliver && l.timeoutAt <= now) {
            // The timeout filter answers; the handler goes on (and holds its memory).
            due.push_back(std::move(l.deliver));
            l.deliver = nullptr;
            statuses.push_back(ApiStatus::requestTimeout());
        }
        if (!l.deliver && l.doneAt <= now) {
            release(l);
            return true;
        }
        return false;
    });
    for (std::size_t i = 0; i < due.size(); ++i)
        due[i](statuses[i].code == 0, statuses[i]);
    return m_config.limitBytes > 0 && memoryBytes() > m_config.limitBytes;
}

void ListPressure::abortAll(const ApiStatus& status) {
    auto lists = std::move(m_lists);
    m_lists.clear();
    for (const InFlight& l : lists)
        release(l);
    for (InFlight& l : lists)
        if (l.deliver)
            l.deliver(false, status);
}

int ListPressure::heaviestResource() const {
    int best = -1;
    std::int64_t bytes = 0;
    for (std::size_t r = 0; r < m_counts.size(); ++r)
        if (m_counts[r].bytesInflight > bytes) {
            bytes = m_counts[r].bytesInflight;
            best = static_cast<int>(r);
        }
    return best;
}

} // namespace ws
