#include "ServeOptions.h"

#include <boost/asio/ip/address.hpp>

namespace ws {

QString ServeOptions::exposureWarning() const {
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(listenHost.toStdString(), ec);
    if (ec || address.is_loopback())
        return {};
    const QString missing = !tls() && !authenticates() ? QStringLiteral("TLS or authentication")
                            : !tls()                   ? QStringLiteral("TLS")
                            : !authenticates()         ? QStringLiteral("authentication")
                                                       : QString();
    if (missing.isEmpty())
        return {};
    const QString what = tls() ? QStringLiteral("anyone who can reach it may read and change "
                                                "everything served")
                               : QStringLiteral("everything served, and every token sent to it, "
                                                "crosses the network in clear");
    return QStringLiteral("serving on %1 (not loopback) without %2: %3 (listen on 127.0.0.1, or "
                          "give --tls-cert/--tls-key with --client-ca or --token-file)")
        .arg(listenHost, missing, what);
}

} // namespace ws
