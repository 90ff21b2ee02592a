#pragma once

#include "sources/cluster/json/ListStreamDecoder.h"

#include <QString>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ws {

// Reads a protobuf list body (`application/vnd.kubernetes.protobuf`: "k8s\0" + runtime.Unknown
// whose raw=2 is the <Kind>List: metadata=1 ListMeta{resourceVersion=2, continue=3,
// remainingItemCount=4}, items=2, each item's field 1 its ObjectMeta; apimachinery v1.31
// generated.proto) as it arrives, in chunks split anywhere, and hands out each item as soon as
// its last byte is in, as ListStreamDecoder does for JSON: only the current incomplete item (or
// field header) is buffered. Unknown fields are skipped at every level. Malformed framing, an
// item over the size limit, a non-numeric resourceVersion, a Status instead of a list or a
// truncated body are errors, one line each and sticky.
class ProtoListDecoder {
public:
    static constexpr std::size_t kDefaultMaxItemBytes = ListStreamDecoder::kDefaultMaxItemBytes;

    // One item: its protobuf bytes (the typed object, valid only during the call) and its
    // metadata.
    using ItemCallback = ListStreamDecoder::ItemCallback;

    explicit ProtoListDecoder(ItemCallback onItem, std::size_t maxItemBytes = kDefaultMaxItemBytes);

    bool feed(const char* data, std::size_t size);
    bool feed(std::string_view chunk) { return feed(chunk.data(), chunk.size()); }
    // The body ended: false if it is truncated, holds no list, or is a Status.
    bool finish();

    const ListSummary& summary() const { return m_summary; }
    bool hasError() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }
    std::uint64_t errorOffset() const { return m_errorOffset; }
    std::uint64_t bytesConsumed() const { return m_base + m_buffer.size(); }
    std::size_t bufferedBytes() const { return m_buffer.size() - m_pos; }

private:
    enum class State { Magic, Envelope, List, Skip };
    // Reads what the buffer holds from m_pos; false after fail().
    bool run();
    bool fail(std::uint64_t offset, QString message);
    // The next field header at m_pos: tag, and for length-delimited fields the length. False
    // when the buffer does not hold all of it yet (nothing consumed); *bad on a malformed one.
    bool header(std::uint32_t* field, std::uint32_t* wireType, std::uint64_t* length,
                std::size_t* size, bool* bad);
    bool readListMeta(std::string_view meta);
    bool readItem(std::string_view item);

    ItemCallback m_onItem;
    std::size_t m_maxItemBytes;
    std::string m_buffer; // bytes received and not yet consumed start at m_pos
    std::size_t m_pos = 0;
    std::uint64_t m_base = 0; // stream offset of m_buffer[0]
    State m_state = State::Magic;
    State m_afterSkip = State::Envelope;
    std::uint64_t m_skipLeft = 0;
    std::uint64_t m_listLeft = 0; // bytes of Unknown.raw (the list) not yet consumed
    bool m_sawList = false;
    ListSummary m_summary;
    QString m_error;
    std::uint64_t m_errorOffset = 0;
};

} // namespace ws
