#pragma once

#include "ClusterHttpSettings.h"
#include "HttpCredentials.h"
#include "HttpRequest.h"
#include "engine/FrameQueue.h"
#include "sources/cluster/kubeconfig/ClusterTarget.h"

#include <QStringList>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ws {

class HttpTransportWorker;

// The cluster source's HTTP(S) transport: reaches a kube-apiserver as kubectl does (the
// kubeconfig's CA replacing the system roots, client certificates, bearer tokens re-read from a
// token file, basic auth, a credential plugin's credential (an exec plugin's, renewed after a
// 401; an oidc auth-provider's), proxy-url or the environment's proxies) and records everything it
// receives as frames (HttpFrameKind.h) in a FrameQueue for the session thread to decode. All
// networking runs on a thread of its own with its own event loop; submit(), cancel() and stop() may
// be called from any other thread.
//
// The queue must outlive the transport (nothing is pushed once stop() returned). Every submitted
// request ends with exactly one ResponseEnd frame. Requests submitted before
// start() wait for it; after stop() they end at once as Cancelled.
class ClusterHttpTransport {
public:
    // Session time; called on the transport thread, and on the caller's for requests refused
    // without reaching it (after stop()): it must be thread-safe.
    using Clock = std::function<TimeUs()>;

    // `exec` provides the credential of a kubeconfig user with an exec plugin or an oidc
    // auth-provider (credentialProviderFor()); requests wait for it without blocking the
    // transport thread. `version` goes into the User-Agent.
    ClusterHttpTransport(ClusterTarget target, FrameQueue& queue, Clock clock,
                         CredentialProvider exec = {}, QString version = QStringLiteral("dev"));
    ~ClusterHttpTransport(); // stop()
    ClusterHttpTransport(const ClusterHttpTransport&) = delete;
    ClusterHttpTransport& operator=(const ClusterHttpTransport&) = delete;

    // Checks the target (server URL, CA and client certificate PEM, key matching its certificate,
    // proxy URL) and starts the transport thread. On failure: false and one line, no secrets.
    bool start(QString* error);
    void submit(HttpRequest request);
    // Ends request `id` with Cancelled (a no-op once it ended).
    void cancel(int id);
    // Aborts every request (each ends Cancelled) and joins the thread. Idempotent. Never call it
    // from the transport thread (the clock or the credential provider).
    void stop();

    // How the target is reached that the user should know (TLS verification off, credentials
    // over plain HTTP, ...). Fixed at construction.
    QStringList warnings() const { return m_warnings; }
    QByteArray userAgent() const { return ClusterHttpSettings::userAgentFor(m_version); }

private:
    enum class State { Idle, Running, Stopped };
    void refuse(const HttpRequest& request, const QString& message);

    ClusterTarget m_target;
    FrameQueue& m_queue;
    Clock m_clock;
    CredentialProvider m_exec;
    QString m_version;
    QStringList m_warnings;

    mutable std::mutex m_mutex; // guards m_state, m_pending, m_worker
    State m_state = State::Idle;
    std::vector<HttpRequest> m_pending;            // submitted before start()
    std::unique_ptr<HttpTransportWorker> m_worker; // its run() is m_thread
    std::thread m_thread;
};

} // namespace ws
