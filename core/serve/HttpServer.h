#pragma once

#include "ServeAuthenticator.h"
#include "ServeOptions.h"

#include <QString>
#include <memory>

namespace boost::asio {
class io_context;
}

namespace ws {

class ApiHandler;

// The HTTP/1.1 side of `serve` on Boost.Beast/Asio: accepts plain or TLS connections, reads
// requests, authenticates them (client certificate, bearer token) and hands them to the
// ApiHandler; whole responses and chunked watch streams go back through a ResponseSink. Every
// connection lives on the one io_context thread with the simulation, so nothing is locked.
class HttpServer {
public:
    HttpServer(boost::asio::io_context& io, const ServeOptions& options, ApiHandler& handler);
    ~HttpServer();

    // Binds and starts accepting; false with one line (bad address, port in use, unreadable or
    // mismatched TLS files).
    bool listen(QString* error);
    quint16 port() const;
    QString baseUrl() const; // http(s)://host:port
    std::size_t openConnections() const;
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace ws
