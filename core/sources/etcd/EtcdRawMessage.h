#pragma once

#include <grpcpp/impl/codegen/serialization_traits.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

#include <cstring>
#include <string>
#include <vector>

namespace ws {

// A gRPC response kept as the bytes that arrived: what the transport hands the decoder (and a
// capture) instead of a generated message.
struct RawMessage {
    std::string bytes;
};

} // namespace ws

namespace grpc {
template <> class SerializationTraits<ws::RawMessage, void> {
public:
    static Status Serialize(const ws::RawMessage&, ByteBuffer*, bool*) {
        return Status(StatusCode::UNIMPLEMENTED, "RawMessage is receive-only");
    }
    static Status Deserialize(ByteBuffer* buffer, ws::RawMessage* msg) {
        std::vector<Slice> slices;
        if (!buffer->Dump(&slices).ok())
            return Status(StatusCode::INTERNAL, "cannot read the response bytes");
        std::size_t total = 0;
        for (const Slice& s : slices)
            total += s.size();
        msg->bytes.resize(total);
        std::size_t at = 0;
        for (const Slice& s : slices) {
            std::memcpy(msg->bytes.data() + at, s.begin(), s.size());
            at += s.size();
        }
        buffer->Clear();
        return Status::OK;
    }
};
} // namespace grpc
