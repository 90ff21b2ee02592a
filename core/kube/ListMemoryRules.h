#pragma once

#include <cstdint>

namespace ws::listmemory {

// What kube-apiserver holds in memory while it serves one list, by the path that answers it.
// Source: "Enhancing Kubernetes API Server Efficiency with API Streaming" (kubernetes.io blog,
// 2024-12-17, KEP-3157): before sending the first byte the server fetches the data from etcd,
// deserializes it, and builds the whole response by converting and serializing it; 400 Secrets
// of 1 MB listed by 16 informers crashed a test server. Watch-list streams from the watch cache
// item by item ("bounded by the maximum allowed size of an object in etcd plus a few additional
// allocations"); streaming collection encoding (gates StreamingCollectionEncodingToJSON /
// ToProtobuf, beta and on from 1.33, kube_features.go@v1.33.0) encodes a list item by item
// instead of in one buffer, for the wire whose gate is on.
enum class Path {
    Etcd,      // RV="", continue, limit with an RV, Exact (before cache snapshots), fallbacks
    Cache,     // from the watch cache: its objects are shared, only the response is new
    WatchList, // sendInitialEvents from the cache: streamed one object at a time
};

struct ListCost {
    std::int64_t scannedBytes = 0;  // every object of the resource read (etcd filters later)
    std::int64_t selectedBytes = 0; // the objects of the response
    std::int64_t largestObject = 0; // the biggest single object of the response
    // The largest single read of the scan: a paged list's biggest chunk (the etcd3 store reads
    // 500, 1000, ... up to 10,000 objects at a time and frees each chunk as it decodes it), an
    // unpaged list's whole scan. -1: the whole scan.
    std::int64_t largestReadBytes = -1;
};

// Bytes held from the start of the list until its response is written.
//  - etcd: its largest read twice - the range response as received and the objects decoded
//    from it, both alive until Go's collector runs (selectors run on decoded objects,
//    storage/etcd3/store.go GetList, so an unpaged node-scoped list pays for the whole
//    resource) - plus the encoded response (selected; not with streaming encoding);
//  - cache: the encoded response (selected), or one object with streaming encoding;
//  - watch-list: one object in flight per stream.
// `streaming`: the response's encoding streams (ServerProfile::streamingListEncoding of its wire).
inline std::int64_t heldBytes(Path path, const ListCost& c, bool streaming) {
    switch (path) {
    case Path::Etcd:
        return 2 * (c.largestReadBytes >= 0 ? c.largestReadBytes : c.scannedBytes) +
               (streaming ? c.largestObject : c.selectedBytes);
    case Path::Cache:
        return streaming ? c.largestObject : c.selectedBytes;
    case Path::WatchList:
        return c.largestObject;
    }
    return 0;
}

// The bytes a served list moves through the apiserver (what its time is proportional to):
// an etcd list reads and decodes everything it scans, a cache list encodes its selection.
inline std::int64_t workBytes(Path path, const ListCost& c) {
    return path == Path::Etcd ? c.scannedBytes : c.selectedBytes;
}

} // namespace ws::listmemory
