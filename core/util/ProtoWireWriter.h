#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ws {

// The counterpart of ProtoWireReader: appends protobuf wire format to a std::string. Enough to
// re-encode a message field by field (varints, length-delimited fields, bytes copied as read).
struct ProtoWireWriter {
    std::string* out;

    void varint(std::uint64_t v) {
        while (v >= 0x80) {
            out->push_back(static_cast<char>((v & 0x7f) | 0x80));
            v >>= 7;
        }
        out->push_back(static_cast<char>(v));
    }
    void tag(std::uint32_t field, std::uint32_t wireType) {
        varint((static_cast<std::uint64_t>(field) << 3) | wireType);
    }
    // A length-delimited field: tag, length, bytes.
    void bytes(std::uint32_t field, std::string_view value) {
        tag(field, 2);
        varint(value.size());
        out->append(value);
    }
    // Bytes already in wire format (a field copied as it was read).
    void raw(std::string_view wire) { out->append(wire); }
};

} // namespace ws
