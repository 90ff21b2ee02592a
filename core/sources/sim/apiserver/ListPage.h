#pragma once

#include "kube/KeyValue.h"

#include <QString>
#include <functional>
#include <string>
#include <vector>

namespace ws {

class SimKeyspace;

// One LIST response cut from a store's objects the way the etcd3 store and the 1.34 cacher
// page them: the selected objects in key order, those after the continue key, at most `limit`,
// and the continue token of the next page at the list's RV when more remain.
struct ListPage {
    struct Selection {
        int resource = -1;
        int selectorGroup = -1; // spec.nodeName=node-<group>
        QString ns;             // a namespaced list: the key prefix /registry/<resource>/<ns>/
        std::function<bool(const KeyValue&)> matches; // further selectors; null: all
    };

    std::vector<KeyValuePtr> items;
    QString continueToken;
    std::int64_t remainingItemCount = -1; // set with a token when nothing but keys selects
    // What the etcd3 store reads for this page: every object of the range (the resource, or the
    // namespace's prefix) from the continue key up to the page's last key, or to the end when no
    // page follows; the selectors run on the decoded objects (storage/etcd3/store.go GetList).
    std::int64_t scannedBytes = 0;
    // The largest single etcd read of that range: a paged list reads it in chunks of `limit`
    // objects, doubled after each chunk that did not fill the page, up to 10,000, and frees each
    // chunk's KVs as it decodes them (store.go GetList, maxLimit); an unpaged list reads it at
    // once. Chunk bytes are the range's average object size times the chunk's objects.
    std::int64_t largestReadBytes = 0;

    // `start`: the continue token's key (relative to the list's prefix, "ns/name\0"), or empty.
    static ListPage cut(const SimKeyspace& keys, std::vector<KeyValuePtr> objects,
                        const Selection& selection, const std::string& start, std::int64_t limit,
                        ResourceVersion listRv);
    // An object's key relative to the list's prefix: "ns/name", or "name" in a namespaced list
    // and for cluster-scoped objects.
    static std::string relativeKey(const SimKeyspace& keys, KeyId key, const QString& listNs);
};

} // namespace ws
