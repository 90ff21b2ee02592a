#pragma once

// A TCP proxy for fault tests: the network between a client and a server, made to misbehave on
// demand. It listens on a free loopback port and forwards every connection to a target
// (127.0.0.1:PORT by default), on a thread of its own (plain sockets and poll(), no event loop:
// the test thread may block while it forwards).
//
//   StallProxy proxy(etcdPort);
//   QVERIFY2(proxy.start(&error), qPrintable(error));
//   client connects to proxy.url()        // "http://127.0.0.1:<proxy.port()>"
//   proxy.stall();     // nothing is forwarded either way; connections stay open, new ones are
//                      // accepted and held too (a black hole: no FIN, no RST, just silence)
//   proxy.resume();    // forwarding goes on, with whatever was sent meanwhile
//   proxy.closedWhileStalled(); // connections their client closed during stalls (a watch it
//                      // gave up: a kept-alive connection may carry its next request)
//   proxy.dropAll();   // every open connection is reset (RST) on both sides; new ones work
//   proxy.forwardedAll(); // every byte the target sent so far is with the client: nothing
//                      // waits in the proxy or unread from the target (the client reads it
//                      // from its own socket even once stalled or reset)
//   proxy.holdOnce("/registry/configmaps/", 45000);
//                      // the first connection whose client sends those bytes is held (nothing
//                      // forwarded either way, those bytes included) for 45 s from then; the
//                      // others go on. One kube-apiserver storage has its own etcd connection,
//                      // so this stalls one resource's storage (its watch cache's LIST) alone.
//
// stall(), resume() and dropAll() are thread-safe and synchronous: once they return, the proxy
// behaves the new way. A connection whose target refuses it is closed at once. The destructor
// stops the thread and closes everything.

#include <QByteArray>
#include <QString>

#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ws::test {

class StallProxy {
public:
    explicit StallProxy(std::uint16_t targetPort, QString targetHost = QStringLiteral("127.0.0.1"))
        : m_targetHost(std::move(targetHost)), m_targetPort(targetPort) {}
    ~StallProxy() { stop(); }
    StallProxy(const StallProxy&) = delete;
    StallProxy& operator=(const StallProxy&) = delete;

    // Listens on 127.0.0.1:0 and starts forwarding. False with one line in *error.
    bool start(QString* error) {
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
            ::listen(m_listen, 64) != 0 ||
            ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
            ::pipe2(m_wake, O_NONBLOCK | O_CLOEXEC) != 0) {
            *error = QStringLiteral("stall proxy: cannot listen: %1")
                         .arg(QString::fromLocal8Bit(std::strerror(errno)));
            return false;
        }
        m_port = ntohs(a.sin_port);
        m_thread = std::thread([this] { loop(); });
        return true;
    }

    std::uint16_t port() const { return m_port; }
    QString url(const QString& scheme = QStringLiteral("http")) const {
        return QStringLiteral("%1://127.0.0.1:%2").arg(scheme).arg(m_port);
    }

    void stall() {
        command([this] { m_stalled = true; });
    }
    void resume() {
        command([this] { m_stalled = false; });
    }
    void dropAll() {
        command([this] {
            for (Connection& c : m_connections)
                closeConnection(c, true);
            m_connections.clear();
        });
    }
    bool forwardedAll() {
        bool all = true;
        command([&] {
            for (const Connection& c : m_connections) {
                pollfd p{c.upstream, POLLIN, 0};
                if (!c.down.pending.empty() ||
                    (!c.down.eof && ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN)))
                    all = false;
            }
        });
        return all && !m_stalled;
    }
    bool stalled() const { return m_stalled; }
    void holdOnce(const QByteArray& marker, int holdMs) {
        command([&] {
            m_holdMarker = marker;
            m_holdFor = std::chrono::milliseconds(holdMs);
        });
    }
    // A connection was held by holdOnce() (it may be released since).
    bool holdBegan() const { return m_holdBegan; }

    int openConnections() const { return m_open; }
    std::int64_t closedWhileStalled() const { return m_closedWhileStalled; }
    std::int64_t accepted() const { return m_accepted; }
    std::int64_t bytesForwarded() const { return m_bytes; } // both directions

private:
    // One direction of a connection: bytes read from `from` not yet written to `to`.
    struct Pipe {
        std::vector<char> pending;
        bool eof = false; // `from` closed its side; shut `to` down once pending is written
    };
    using Clock = std::chrono::steady_clock;
    struct Connection {
        int client = -1;
        int upstream = -1;
        Pipe up;                       // client -> upstream
        Pipe down;                     // upstream -> client
        Clock::time_point heldUntil{}; // holdOnce(): nothing moves before then
        bool clientGone = false;       // seen closing its side during a stall
        bool held(Clock::time_point now) const { return now < heldUntil; }
    };

    template <typename Fn> void command(Fn&& fn) {
        std::unique_lock lock(m_mutex);
        fn();
        ++m_generation;
        wake();
        // The loop takes the mutex between polls, so after this the next cycle sees the change;
        // waiting for it makes the command synchronous with respect to in-flight forwarding.
        const std::uint64_t target = m_generation;
        m_done.wait(lock, [&] { return m_seen >= target || !m_thread.joinable() || m_quit; });
    }

    void wake() {
        const char c = 1;
        [[maybe_unused]] const auto n = ::write(m_wake[1], &c, 1);
    }

    void stop() {
        if (m_thread.joinable()) {
            {
                std::lock_guard lock(m_mutex);
                m_quit = true;
                wake();
            }
            m_thread.join();
        }
        for (Connection& c : m_connections)
            closeConnection(c, false);
        m_connections.clear();
        for (int fd : {m_listen, m_wake[0], m_wake[1]})
            if (fd >= 0)
                ::close(fd);
        m_listen = m_wake[0] = m_wake[1] = -1;
    }

    void closeConnection(Connection& c, bool reset) {
        for (int fd : {c.client, c.upstream}) {
            if (fd < 0)
                continue;
            if (reset) {
                const linger l{1, 0}; // close with RST, as a dropped connection looks
                ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
            }
            ::close(fd);
        }
        c.client = c.upstream = -1;
        --m_open;
    }

    void acceptAll() {
        for (;;) {
            const int client = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (client < 0)
                return;
            ++m_accepted;
            const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_port = htons(m_targetPort);
            ::inet_pton(AF_INET, m_targetHost.toLatin1().constData(), &a.sin_addr);
            // A blocking connect on loopback answers at once (accepted or refused).
            if (upstream < 0 ||
                ::connect(upstream, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
                if (upstream >= 0)
                    ::close(upstream);
                ::close(client);
                continue;
            }
            ::fcntl(upstream, F_SETFL, ::fcntl(upstream, F_GETFL) | O_NONBLOCK);
            const int one = 1;
            for (int fd : {client, upstream})
                ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            Connection c;
            c.client = client;
            c.upstream = upstream;
            m_connections.push_back(std::move(c));
            ++m_open;
        }
    }

    // Moves what is readable from `from` into the pipe and what is pending on to `to`. False
    // when the connection is finished (both directions closed, or an error).
    // `holdable`: the connection whose client bytes these are, for holdOnce().
    bool pump(int from, int to, Pipe& p, short fromEvents, Connection* holdable) {
        if ((fromEvents & (POLLIN | POLLHUP | POLLERR)) && !p.eof && p.pending.empty()) {
            char buf[65536];
            const ssize_t n = ::read(from, buf, sizeof buf);
            if (n > 0) {
                p.pending.assign(buf, buf + n);
                if (holdable && !m_holdMarker.isEmpty() &&
                    QByteArray::fromRawData(buf, n).contains(m_holdMarker)) {
                    holdable->heldUntil = Clock::now() + m_holdFor;
                    m_holdMarker.clear();
                    m_holdBegan = true;
                    return true; // these bytes wait for the release too
                }
            } else if (n == 0) {
                p.eof = true;
            } else if (errno != EAGAIN && errno != EINTR) {
                return false;
            }
        }
        if (!p.pending.empty()) { // non-blocking: EAGAIN leaves it for the next POLLOUT
            const ssize_t n = ::send(to, p.pending.data(), p.pending.size(), MSG_NOSIGNAL);
            if (n > 0) {
                m_bytes += n;
                p.pending.erase(p.pending.begin(), p.pending.begin() + n);
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                return false;
            }
        }
        if (p.eof && p.pending.empty())
            ::shutdown(to, SHUT_WR);
        return true;
    }

    void loop() {
        std::vector<pollfd> fds;
        std::vector<char> heldAtPoll; // per connection polled
        for (;;) {
            std::unique_lock top(m_mutex); // m_connections is the commands' too
            if (m_quit)
                break;
            m_seen = m_generation;
            fds.clear();
            heldAtPoll.clear();
            fds.push_back({m_wake[0], POLLIN, 0});
            fds.push_back({m_listen, POLLIN, 0});
            const bool stalled = m_stalled;
            // Stalled: nothing is read, but a client closing its side is seen (POLLRDHUP).
            std::vector<std::size_t> watched;
            if (stalled) {
                for (std::size_t i = 0; i < m_connections.size(); ++i) {
                    if (!m_connections[i].clientGone) {
                        fds.push_back({m_connections[i].client, POLLRDHUP, 0});
                        watched.push_back(i);
                    }
                }
            }
            if (!stalled) {
                const Clock::time_point now = Clock::now();
                for (const Connection& c : m_connections) {
                    auto events = [](const Pipe& in, const Pipe& out) {
                        short e = 0;
                        if (!in.eof && in.pending.empty())
                            e |= POLLIN;
                        if (!out.pending.empty())
                            e |= POLLOUT;
                        return e;
                    };
                    // A held connection is polled for nothing (its slots keep the indexes).
                    const bool held = c.held(now);
                    heldAtPoll.push_back(held);
                    fds.push_back({c.client, held ? short(0) : events(c.up, c.down), 0});
                    fds.push_back({c.upstream, held ? short(0) : events(c.down, c.up), 0});
                }
            }
            top.unlock();
            m_done.notify_all();
            // A held connection is looked at again within 100 ms of its release.
            if (::poll(fds.data(), fds.size(), m_holdBegan ? 100 : 1000) < 0 && errno != EINTR)
                break;
            std::lock_guard lock(m_mutex);
            if (fds[0].revents & POLLIN) {
                char buf[64];
                while (::read(m_wake[0], buf, sizeof buf) > 0) {
                }
            }
            for (std::size_t k = 0; k < watched.size(); ++k) {
                if (watched[k] < m_connections.size() &&
                    (fds[2 + k].revents & (POLLRDHUP | POLLHUP | POLLERR))) {
                    m_connections[watched[k]].clientGone = true;
                    ++m_closedWhileStalled;
                }
            }
            if (fds[1].revents & POLLIN)
                acceptAll();
            // A command (stall, dropAll) may have come in while polling: the fds polled are
            // then stale, so this cycle forwards nothing.
            if (stalled || m_stalled || m_generation != m_seen)
                continue;
            std::vector<Connection> keep;
            for (std::size_t i = 0; i < m_connections.size(); ++i) {
                Connection& c = m_connections[i];
                if (2 + 2 * i + 1 >= fds.size()) { // accepted in this cycle
                    keep.push_back(std::move(c));
                    continue;
                }
                const short ce = fds[2 + 2 * i].revents;
                const short ue = fds[2 + 2 * i + 1].revents;
                if (heldAtPoll[i] || c.held(Clock::now())) {
                    keep.push_back(std::move(c)); // held (now, or when polled)
                    continue;
                }
                bool ok = pump(c.client, c.upstream, c.up, ce, &c);
                if (ok && c.held(Clock::now())) { // held from these bytes on
                    keep.push_back(std::move(c));
                    continue;
                }
                ok = ok && pump(c.upstream, c.client, c.down, ue, nullptr);
                const bool finished =
                    c.up.eof && c.down.eof && c.up.pending.empty() && c.down.pending.empty();
                if (!ok || finished)
                    closeConnection(c, !ok);
                else
                    keep.push_back(std::move(c));
            }
            m_connections.swap(keep);
        }
        {
            std::lock_guard lock(m_mutex);
            m_quit = true;
        }
        m_done.notify_all();
    }

    QString m_targetHost;
    std::uint16_t m_targetPort = 0;
    std::uint16_t m_port = 0;
    int m_listen = -1;
    int m_wake[2] = {-1, -1};
    std::thread m_thread;
    std::mutex m_mutex; // guards m_connections and the command generation
    std::condition_variable m_done;
    std::uint64_t m_generation = 0; // commands issued
    std::uint64_t m_seen = 0;       // commands the loop has taken in
    bool m_quit = false;
    std::vector<Connection> m_connections;
    std::atomic_bool m_stalled{false};
    std::atomic_int m_open{0};
    std::atomic<std::int64_t> m_accepted{0};
    std::atomic<std::int64_t> m_bytes{0};
    std::atomic<std::int64_t> m_closedWhileStalled{0};
    QByteArray m_holdMarker; // holdOnce() armed: the bytes that start the hold
    Clock::duration m_holdFor{};
    std::atomic_bool m_holdBegan{false};
};

} // namespace ws::test
