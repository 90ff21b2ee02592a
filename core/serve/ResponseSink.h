#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// Where a request's answer goes: a whole response, or a chunked stream (a watch). Implemented
// by the HTTP session; everything runs on the serve thread. Writes after the peer went away are
// dropped.
class ResponseSink {
public:
    virtual ~ResponseSink() = default;
    virtual void respond(int status, std::string_view contentType, std::string body,
                         HttpHeaders headers = {}) = 0;
    virtual void beginStream(int status, std::string_view contentType) = 0;
    virtual void write(std::string chunk) = 0;
    virtual void endStream() = 0; // the terminating chunk; the connection stays usable
    virtual void abort() = 0;     // drop the connection (a broken stream, a server going down)
    virtual std::size_t backlog() const = 0; // bytes handed over but not yet on the socket
    virtual bool gone() const = 0;           // the peer closed the connection
};

} // namespace ws
