#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ws {

// What ListStreamDecoder reads of each item's metadata.
struct ListItemMeta {
    std::string name; // empty when absent
    std::string ns;
    std::string uid;
    ResourceVersion resourceVersion = 0; // 0 when absent
};

// The list's own members, known once the whole body has been read (they may come before or
// after "items").
struct ListSummary {
    std::string kind;                               // "ConfigMapList"
    std::string apiVersion;                         // "v1"
    ResourceVersion resourceVersion = 0;            // metadata.resourceVersion
    std::string continueToken;                      // metadata.continue; empty: last page
    std::optional<std::int64_t> remainingItemCount; // metadata.remainingItemCount
    std::uint64_t itemCount = 0;
};

// Reads a Kubernetes list body ({"kind":"...List","apiVersion":...,"metadata":{...},"items":
// [{...},...]}) as it arrives, in chunks split anywhere, and hands out each item as soon as its
// last byte is in: a list of pods can be hundreds of MB and is never held whole. Only the
// current incomplete item, the list's small other members and a key are buffered.
//
// Each item's bytes are checked by simdjson's structural pass and its metadata read; malformed
// framing, an item over the size limit, a non-numeric resourceVersion, trailing bytes or a
// truncated body are errors. Errors are sticky.
class ListStreamDecoder {
public:
    static constexpr std::size_t kDefaultMaxItemBytes = std::size_t(64) << 20;

    // One item: its raw JSON (valid only during the call) and its metadata.
    using ItemCallback = std::function<void(std::string_view item, const ListItemMeta& meta)>;

    explicit ListStreamDecoder(ItemCallback onItem,
                               std::size_t maxItemBytes = kDefaultMaxItemBytes);
    ~ListStreamDecoder();
    ListStreamDecoder(const ListStreamDecoder&) = delete;
    ListStreamDecoder& operator=(const ListStreamDecoder&) = delete;

    // Reads the next chunk, calling the item callback for every item it completes. False on
    // an error (see error()).
    bool feed(const char* data, std::size_t size);
    bool feed(std::string_view chunk) { return feed(chunk.data(), chunk.size()); }

    // The body ended: false if it is truncated, has no "items", is a Status rather than a
    // list, or its list members are malformed. On true, summary() is complete.
    bool finish();

    // kind, apiVersion and metadata are filled by a successful finish(); itemCount counts
    // as items arrive.
    const ListSummary& summary() const;

    bool hasError() const;
    QString error() const;
    std::uint64_t errorOffset() const; // stream offset the error was found at

    std::uint64_t bytesConsumed() const;
    // Bytes held between feeds (incomplete item, list members, key), and the most ever held
    // including the complete item handed to the callback.
    std::size_t bufferedBytes() const;
    std::size_t peakBufferedBytes() const;

    // Back to the start of a new body (keeps the callback and the size limit).
    void reset();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace ws
