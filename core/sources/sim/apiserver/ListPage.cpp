#include "ListPage.h"

#include "kube/ContinueToken.h"
#include "sources/sim/etcd/SimKeyspace.h"

#include <algorithm>

namespace ws {

std::string ListPage::relativeKey(const SimKeyspace& keys, KeyId key, const QString& listNs) {
    const std::string& ns = keys.namespaceUtf8(key);
    if (!listNs.isEmpty() || ns.empty())
        return keys.nameUtf8(key);
    return ns + '/' + keys.nameUtf8(key);
}

ListPage ListPage::cut(const SimKeyspace& keys, std::vector<KeyValuePtr> objects,
                       const Selection& selection, const std::string& start, std::int64_t limit,
                       ResourceVersion listRv) {
    struct Entry {
        std::string key;
        KeyValuePtr object;
    };
    std::vector<Entry> selected;
    selected.reserve(objects.size());
    std::int64_t rangeBytes = 0; // every object of the range from the continue key
    // (key, size) of the range, for a page cut short: its key text only if it is.
    std::vector<std::pair<KeyId, std::uint32_t>> ranged;
    const bool paged = limit > 0;
    for (KeyValuePtr& o : objects) {
        const KeyId k = o->key;
        if (!selection.ns.isEmpty() && keys.namespaceOf(k) != selection.ns)
            continue;
        std::string key;
        if (!start.empty()) {
            key = relativeKey(keys, k, selection.ns);
            // The range starts at the continue key (the last key of the previous page + "\0").
            if (key < start)
                continue;
        }
        if (paged)
            ranged.emplace_back(k, o->valueSize);
        rangeBytes += o->valueSize;
        if (selection.selectorGroup >= 0 && keys.selectorGroupOf(k) != selection.selectorGroup)
            continue;
        if (selection.matches && !selection.matches(*o))
            continue;
        if (key.empty())
            key = relativeKey(keys, k, selection.ns);
        selected.push_back({std::move(key), std::move(o)});
    }
    std::sort(selected.begin(), selected.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    ListPage page;
    std::size_t count = selected.size();
    if (limit > 0 && selected.size() > static_cast<std::size_t>(limit)) {
        count = static_cast<std::size_t>(limit);
        page.continueToken = ContinueToken::after(listRv, selected[count - 1].key);
        // RemainingItemCount only when no selector filters what the range holds
        // (storage.PrepareContinueToken: pred.Empty()).
        if (selection.selectorGroup < 0 && !selection.matches)
            page.remainingItemCount = static_cast<std::int64_t>(selected.size() - count);
    }
    page.scannedBytes = rangeBytes;
    std::int64_t scannedObjects = static_cast<std::int64_t>(paged ? ranged.size() : 0);
    if (!page.continueToken.isEmpty()) {
        // The read stopped at the page's last key: what lies beyond is the next page's.
        const std::string& last = selected[count - 1].key;
        page.scannedBytes = 0;
        scannedObjects = 0;
        for (const auto& [key, size] : ranged)
            if (relativeKey(keys, key, selection.ns) <= last) {
                page.scannedBytes += size;
                ++scannedObjects;
            }
    }
    page.largestReadBytes = page.scannedBytes;
    if (paged && scannedObjects > 0) {
        constexpr std::int64_t kMaxChunk = 10000; // etcd3 store maxLimit
        std::int64_t chunk = limit, left = scannedObjects, largest = 0;
        while (left > 0) {
            largest = std::max(largest, std::min(chunk, left));
            left -= chunk;
            chunk = std::min(2 * chunk, kMaxChunk);
        }
        page.largestReadBytes = page.scannedBytes * largest / scannedObjects;
    }
    page.items.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        page.items.push_back(std::move(selected[i].object));
    return page;
}

} // namespace ws
