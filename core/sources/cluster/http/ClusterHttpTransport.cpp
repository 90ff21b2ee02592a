#include "ClusterHttpTransport.h"

#include "HttpFrameRecords.h"
#include "HttpTransportWorker.h"

#include <curl/curl.h>
#include <pthread.h>

namespace ws {

ClusterHttpTransport::ClusterHttpTransport(ClusterTarget target, FrameQueue& queue, Clock clock,
                                           CredentialProvider exec, QString version)
    : m_target(std::move(target)), m_queue(queue), m_clock(std::move(clock)),
      m_exec(std::move(exec)), m_version(std::move(version)) {
    m_warnings = ClusterHttpSettings::warningsFor(m_target);
    if (m_target.execPluginApplies() && !m_exec)
        m_warnings << QStringLiteral("the kubeconfig user%1 runs an exec credential plugin but "
                                     "none can be run here: requests go without credentials")
                          .arg(m_target.user.isEmpty() ? QString()
                                                       : QLatin1Char(' ') + m_target.user);
}

ClusterHttpTransport::~ClusterHttpTransport() {
    stop();
}

bool ClusterHttpTransport::start(QString* error) {
    std::lock_guard lock(m_mutex);
    if (m_state == State::Running)
        return true;
    if (m_state == State::Stopped) {
        if (error)
            *error = QStringLiteral("the cluster transport was stopped");
        return false;
    }
    std::optional<ClusterHttpSettings> settings =
        ClusterHttpSettings::fromTarget(m_target, m_version, error);
    if (!settings)
        return false;
    // libcurl's global set-up is not thread-safe: once per process, before any transport runs.
    static std::once_flag curlInitialised;
    std::call_once(curlInitialised, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    m_worker = std::make_unique<HttpTransportWorker>(std::move(*settings), m_target, m_queue,
                                                     m_clock, m_exec);
    for (HttpRequest& request : m_pending)
        m_worker->submit(std::move(request));
    m_pending.clear();
    m_thread = std::thread([worker = m_worker.get()] {
        pthread_setname_np(pthread_self(), "cluster-http");
        worker->run();
    });
    m_state = State::Running;
    return true;
}

void ClusterHttpTransport::refuse(const HttpRequest& request, const QString& message) {
    Frame frame;
    frame.connection = request.id;
    frame.received = m_clock();
    frame.kind = std::uint16_t(HttpFrameKind::ResponseEnd);
    frame.bytes = encodeHttpRecord(HttpResponseEnd{HttpErrorKind::Cancelled, message});
    m_queue.push(std::move(frame));
}

void ClusterHttpTransport::submit(HttpRequest request) {
    std::unique_lock lock(m_mutex);
    switch (m_state) {
    case State::Idle:
        m_pending.push_back(std::move(request));
        return;
    case State::Running:
        // Posted under the lock: stop() cannot tear the worker down in between.
        m_worker->submit(std::move(request));
        return;
    case State::Stopped:
        lock.unlock();
        refuse(request, QStringLiteral("the transport stopped"));
        return;
    }
}

void ClusterHttpTransport::cancel(int id) {
    std::unique_lock lock(m_mutex);
    if (m_state == State::Running) {
        m_worker->cancel(id);
        return;
    }
    if (m_state != State::Idle)
        return;
    std::vector<HttpRequest> cancelled;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it->id == id) {
            cancelled.push_back(std::move(*it));
            it = m_pending.erase(it);
        } else {
            ++it;
        }
    }
    lock.unlock();
    for (const HttpRequest& request : cancelled)
        refuse(request, QStringLiteral("cancelled"));
}

void ClusterHttpTransport::stop() {
    std::vector<HttpRequest> pending;
    State was;
    {
        std::lock_guard lock(m_mutex);
        was = m_state;
        if (was == State::Stopped)
            return;
        m_state = State::Stopped;
        pending.swap(m_pending);
    }
    for (const HttpRequest& request : pending)
        refuse(request, QStringLiteral("the transport stopped"));
    if (was != State::Running)
        return;
    Q_ASSERT(std::this_thread::get_id() != m_thread.get_id());
    // Everything posted before runs first (commands run in order); then every request is
    // aborted on the transport thread, where libcurl's handles live.
    m_worker->shutdown();
    m_thread.join();
    m_worker.reset();
}

} // namespace ws
