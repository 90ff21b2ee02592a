#include "EnvironmentProxyFactory.h"

#include <QStringList>

namespace ws {

namespace {

QString firstOf(const QProcessEnvironment& env, const char* upper, const char* lower) {
    const QString value = env.value(QLatin1String(upper));
    return value.isEmpty() ? env.value(QLatin1String(lower)) : value;
}

std::optional<QUrl> parseProxy(const QString& text) {
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return std::nullopt;
    // Go: a value without a scheme ("proxy:3128") means http://.
    QUrl url(trimmed.contains(QLatin1String("://")) ? trimmed
                                                    : QStringLiteral("http://") + trimmed);
    if (!url.isValid() || url.host().isEmpty())
        return std::nullopt;
    return url;
}

// "host:port" / "[v6]:port" / "host": the host and the port (-1 when none).
QPair<QString, int> splitHostPort(const QString& entry) {
    if (entry.startsWith(QLatin1Char('['))) {
        const qsizetype close = entry.indexOf(QLatin1Char(']'));
        if (close < 0)
            return {entry, -1};
        const QString host = entry.mid(1, close - 1);
        if (entry.mid(close + 1).startsWith(QLatin1Char(':'))) {
            bool ok = false;
            const int port = entry.mid(close + 2).toInt(&ok);
            return {host, ok ? port : -1};
        }
        return {host, -1};
    }
    // More than one colon: a bare IPv6 address.
    if (entry.count(QLatin1Char(':')) == 1) {
        const qsizetype colon = entry.indexOf(QLatin1Char(':'));
        bool ok = false;
        const int port = entry.mid(colon + 1).toInt(&ok);
        if (ok)
            return {entry.left(colon), port};
    }
    return {entry, -1};
}

} // namespace

EnvironmentProxyFactory::EnvironmentProxyFactory(const QProcessEnvironment& env) {
    m_http = parseProxy(firstOf(env, "HTTP_PROXY", "http_proxy"));
    m_https = parseProxy(firstOf(env, "HTTPS_PROXY", "https_proxy"));
    const QStringList entries =
        firstOf(env, "NO_PROXY", "no_proxy").split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString& raw : entries) {
        const QString entry = raw.trimmed().toLower();
        if (entry.isEmpty())
            continue;
        if (entry == QLatin1String("*")) {
            m_noProxyAll = true;
            return;
        }
        if (entry.contains(QLatin1Char('/'))) {
            const auto subnet = QHostAddress::parseSubnet(entry);
            if (subnet.second >= 0)
                m_cidrs.append(subnet);
            continue;
        }
        const auto [host, port] = splitHostPort(entry);
        if (host.isEmpty())
            continue;
        const QHostAddress address(host);
        if (!address.isNull()) {
            m_ips.append({address, port});
            continue;
        }
        QString suffix = host.startsWith(QLatin1String("*.")) ? host.mid(1) : host;
        const bool matchHost = !suffix.startsWith(QLatin1Char('.'));
        if (matchHost)
            suffix.prepend(QLatin1Char('.'));
        m_domains.append({suffix, port, matchHost});
    }
}

bool EnvironmentProxyFactory::useProxy(const QUrl& url) const {
    const QString host = url.host().toLower();
    if (host.isEmpty())
        return true;
    if (host == QLatin1String("localhost"))
        return false;
    const QHostAddress address(host);
    if (!address.isNull() && address.isLoopback())
        return false;
    if (m_noProxyAll)
        return false;
    const int port = url.port(url.scheme() == QLatin1String("https") ? 443 : 80);
    if (!address.isNull()) {
        for (const auto& cidr : m_cidrs) {
            if (address.isInSubnet(cidr))
                return false;
        }
        for (const IpMatch& ip : m_ips) {
            if (ip.address.isEqual(address) && (ip.port < 0 || ip.port == port))
                return false;
        }
    }
    for (const DomainMatch& d : m_domains) {
        if (host.endsWith(d.suffix) || (d.matchHost && host == d.suffix.mid(1))) {
            if (d.port < 0 || d.port == port)
                return false;
        }
    }
    return true;
}

std::optional<QUrl> EnvironmentProxyFactory::proxyFor(const QUrl& url) const {
    const QString scheme = url.scheme().toLower();
    const std::optional<QUrl>& proxy = scheme == QLatin1String("https") ? m_https : m_http;
    if (!proxy || !useProxy(url))
        return std::nullopt;
    return proxy;
}

QNetworkProxy EnvironmentProxyFactory::toQtProxy(const QUrl& proxyUrl) {
    const QString scheme = proxyUrl.scheme().toLower();
    if (scheme == QLatin1String("socks5") || scheme == QLatin1String("socks5h")) {
        // Qt's SOCKS5 proxy resolves host names remotely by default, as Go's does for both.
        return QNetworkProxy(QNetworkProxy::Socks5Proxy, proxyUrl.host(),
                             quint16(proxyUrl.port(1080)), proxyUrl.userName(),
                             proxyUrl.password());
    }
    // http:// and https:// alike: Qt talks plain HTTP (CONNECT) to a proxy.
    const int defaultPort = scheme == QLatin1String("https") ? 443 : 80;
    return QNetworkProxy(QNetworkProxy::HttpProxy, proxyUrl.host(),
                         quint16(proxyUrl.port(defaultPort)), proxyUrl.userName(),
                         proxyUrl.password());
}

QList<QNetworkProxy> EnvironmentProxyFactory::queryProxy(const QNetworkProxyQuery& query) {
    const std::optional<QUrl> proxy = proxyFor(query.url());
    if (!proxy)
        return {QNetworkProxy(QNetworkProxy::NoProxy)};
    return {toQtProxy(*proxy)};
}

} // namespace ws
