#pragma once

#include <string_view>

namespace ws {

// Which encoding an Accept header asks for, as the apiserver's content negotiation reads it
// (apiserver endpoints/handlers/negotiation): the media ranges in order of their q, the first
// listed winning a tie; protobuf only where the resource's objects have it.
enum class ServedEncoding {
    Json,
    Protobuf,
    NotAcceptable, // the client takes only protobuf, which this resource does not have: 406
};

// Media types serve does not write at all (yaml, cbor) get JSON, as before it negotiated.

ServedEncoding negotiateEncoding(std::string_view accept, bool protobufAvailable);

} // namespace ws
