#pragma once

#include "ClusterTarget.h"
#include "ExecCredential.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QUrl>
#include <functional>
#include <memory>
#include <optional>

namespace ws {

class LoginShellPath;

// Runs a kubeconfig user's exec plugin (client.authentication.k8s.io v1 / v1beta1) as
// client-go does: the process environment plus the plugin's env plus KUBERNETES_EXEC_INFO, the
// plugin's stderr handed to the user as it is written and stdin given to it when interactiveMode
// allows and the process has a terminal (ExecPluginConsole), the ExecCredential read from stdout,
// reused until it expires or the server rejects it. A command without a '/' is looked up on PATH,
// then on the login shell's PATH (LoginShellPath). Thread-safe. Errors are one line and never
// carry the plugin's stdout (it holds the token).
class ExecCredentialRunner {
public:
    // client-go waits for a plugin without limit. A plugin that never needs the user
    // (interactiveMode Never) gets a minute; one that may (IfAvailable, Always: a device-code or
    // SSO login in a browser) gets the time a person needs.
    static constexpr int kTimeoutMs = 60 * 1000;
    static constexpr int kInteractiveTimeoutMs = 10 * 60 * 1000;

    using Ready = std::function<void(std::optional<ExecCredential> credential, QString error)>;

    ExecCredentialRunner();
    ~ExecCredentialRunner(); // a plugin still running is stopped; its callers get an error
    ExecCredentialRunner(const ExecCredentialRunner&) = delete;
    ExecCredentialRunner& operator=(const ExecCredentialRunner&) = delete;

    // The cached credential, or runs the plugin on the calling thread (blocking).
    // provideClusterInfo hands the plugin the target's server, tls-server-name,
    // insecure-skip-tls-verify, CA, proxy-url and the cluster's exec extension.
    std::optional<ExecCredential> get(const ExecConfig& config, const ClusterTarget& target,
                                      QString* error);
    // The same with only the server known (spec.cluster carries just the server).
    std::optional<ExecCredential> get(const ExecConfig& config, const QUrl& server, QString* error);
    // The same without blocking: `ready` is called at once with a cached credential, else from a
    // thread of the runner's own once the plugin ended. Callers asking while the plugin runs wait
    // for that one run (client-go runs one plugin at a time: it may be interactive).
    void fetch(const ExecConfig& config, const ClusterTarget& target, Ready ready);
    // The server answered 401 to a request sent with `rejected`: forget it, unless a newer one
    // replaced it already, and run the plugin again in the background (client-go's
    // maybeRefreshCreds); fetch() then waits for that run.
    void rejected(const ExecConfig& config, const ClusterTarget& target,
                  const ExecCredential& rejected);
    void invalidate(); // forget every cached credential: the next get() runs the plugin
    // True while a plugin runs (a login may be waiting for the user).
    bool busy() const;

    // For tests: the limits, and the login-shell lookup (LoginShellPath::shared() otherwise).
    void setTimeoutMs(int ms);
    int timeoutMs() const;
    void setInteractiveTimeoutMs(int ms);
    void setLoginShellPath(LoginShellPath* lookup);
    int runs() const; // how many times a plugin was started

    // The KUBERNETES_EXEC_INFO a plugin gets (compact JSON); `cluster` empty unless
    // provideClusterInfo.
    static QByteArray execInfo(const ExecConfig& config, const QJsonObject& cluster,
                               bool interactive = false);
    static QJsonObject clusterInfo(const ExecConfig& config, const ClusterTarget& target);

    struct State; // shared with the threads that run plugins

private:
    std::shared_ptr<State> m_state;
};

} // namespace ws
