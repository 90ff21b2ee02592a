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
    for (KeyValuePtr& o : objects) {
        const KeyId k = o->key;
        if (selection.selectorGroup >= 0 && keys.selectorGroupOf(k) != selection.selectorGroup)
            continue;
        if (!selection.ns.isEmpty() && keys.namespaceOf(k) != selection.ns)
            continue;
        std::string key = relativeKey(keys, k, selection.ns);
        // The range starts at the continue key (the last key of the previous page plus "\0").
        if (!start.empty() && key < start)
            continue;
        if (selection.matches && !selection.matches(*o))
            continue;
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
    page.items.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        page.items.push_back(std::move(selected[i].object));
    return page;
}

} // namespace ws
