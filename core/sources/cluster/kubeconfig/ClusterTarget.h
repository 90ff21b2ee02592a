#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <optional>

namespace ws {

// An exec credential plugin as a kubeconfig user names it (client.authentication.k8s.io).
struct ExecConfig {
    QString apiVersion; // client.authentication.k8s.io/v1 or /v1beta1
    QString command;
    QStringList args;
    QList<QPair<QString, QString>> env;
    QString installHint;
    bool provideClusterInfo = false;
    QString interactiveMode; // Never / IfAvailable / Always
    // The cluster's "client.authentication.k8s.io/exec" extension as compact JSON (empty: none),
    // handed to the plugin as spec.cluster.config when provideClusterInfo is set.
    QByteArray clusterConfig;
};

// Who a kubeconfig user acts as (as, as-uid, as-groups, as-user-extra): sent as client-go's
// Impersonate-User, -Uid, -Group and -Extra-<key> headers on every request.
struct Impersonation {
    QString user;
    QString uid;
    QStringList groups;
    QList<QPair<QString, QStringList>> extra; // key, values

    bool isSet() const {
        return !user.isEmpty() || !uid.isEmpty() || !groups.isEmpty() || !extra.isEmpty();
    }
    // The request headers, in client-go's order: user, uid, each group, each extra value.
    QList<QPair<QByteArray, QByteArray>> headers() const;
};

// A kubeconfig user's `auth-provider: oidc` (client-go's oidc plugin, still built into kubectl):
// its config map, by the kubeconfig's names. Secrets.
struct OidcConfig {
    QString issuerUrl;      // idp-issuer-url
    QString clientId;       // client-id
    QString clientSecret;   // client-secret
    QByteArray issuerCaPem; // idp-certificate-authority(-data); empty: the system's CAs
    QString idToken;        // id-token
    QString refreshToken;   // refresh-token
    // Where refreshed tokens are written back: the kubeconfig file that defines the user.
    QString kubeconfigFile;
    QString user;
};

// Everything needed to reach one kube-apiserver, resolved from a kubeconfig (or --server): the
// endpoint, how to trust it, who to be. The secrets are held here and only handed to the
// transport; describe() and every log, description and capture leave them out.
struct ClusterTarget {
    QString context; // names from the kubeconfig; empty when built from --server alone
    QString cluster;
    QString user;
    QUrl server;                 // https://host:port[/path]
    QString defaultNamespace;    // the context's namespace, "default" when it names none
    bool namespaceNamed = false; // the context names defaultNamespace itself

    QByteArray certificateAuthorityPem; // empty: the system's CAs
    bool insecureSkipTlsVerify = false;
    QString tlsServerName;
    QUrl proxyUrl; // http://, https://, socks5://; empty: none (the environment's proxy applies)

    // Secrets.
    QByteArray clientCertificatePem;
    QByteArray clientKeyPem;
    QString token;
    QString tokenFile; // read at connect time (projected tokens rotate)
    QString username;  // basic auth
    QString password;
    std::optional<ExecConfig> exec; // run by ExecCredentialRunner when a request needs it
    Impersonation impersonate;
    std::optional<OidcConfig> oidc; // used by OidcCredentialSource

    // client-go runs the exec plugin only for a user with no other credential: a token, a token
    // file, basic auth or a client certificate wins, and the plugin never runs (HasCertAuth and
    // friends in its exec authenticator).
    bool execPluginApplies() const;

    // "context kind-dev (cluster kind-dev, user admin) at https://127.0.0.1:6443": no secrets.
    QString describe() const;
};

} // namespace ws
