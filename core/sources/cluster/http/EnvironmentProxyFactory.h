#pragma once

#include <QHostAddress>
#include <QNetworkProxyFactory>
#include <QProcessEnvironment>
#include <QUrl>
#include <optional>

namespace ws {

// The proxy kubectl takes from the environment when the kubeconfig names none (Go's
// httpproxy.FromEnvironment): HTTPS_PROXY / https_proxy for https, HTTP_PROXY / http_proxy for
// http (upper case first), NO_PROXY / no_proxy exceptions ("*", IPs, CIDRs, domains with their
// subdomains, ".domain" for subdomains only, optional ":port"), and never a proxy for localhost
// or a loopback address. Qt's own system factory differs (lower case only, http_proxy for https,
// proxies 127.0.0.1), which would send a local cluster's traffic through a corporate proxy.
class EnvironmentProxyFactory : public QNetworkProxyFactory {
public:
    EnvironmentProxyFactory() : EnvironmentProxyFactory(QProcessEnvironment::systemEnvironment()) {}
    explicit EnvironmentProxyFactory(const QProcessEnvironment& environment);

    QList<QNetworkProxy> queryProxy(const QNetworkProxyQuery& query) override;

    // The proxy URL for a request to `url`; nullopt: connect directly.
    std::optional<QUrl> proxyFor(const QUrl& url) const;
    // A proxy URL (http://, https://, socks5://, socks5h://; no scheme: http) as Qt's proxy.
    static QNetworkProxy toQtProxy(const QUrl& proxyUrl);

private:
    struct DomainMatch {
        QString suffix; // ".example.com"
        int port = -1;
        bool matchHost; // "example.com" itself too (the entry had no leading dot)
    };
    struct IpMatch {
        QHostAddress address;
        int port = -1;
    };
    bool useProxy(const QUrl& url) const;

    std::optional<QUrl> m_http;
    std::optional<QUrl> m_https;
    bool m_noProxyAll = false;
    QList<QPair<QHostAddress, int>> m_cidrs;
    QList<IpMatch> m_ips;
    QList<DomainMatch> m_domains;
};

} // namespace ws
