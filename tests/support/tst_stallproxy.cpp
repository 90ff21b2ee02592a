// The fault tests' StallProxy between a plain client socket and a plain server socket the test
// holds itself: bytes go both ways, a stall holds them (connections open, new ones held too)
// and resume() delivers them, dropAll() resets both sides, a refused target closes the client,
// holdOnce() holds the one connection that sent its bytes for a while.
#include "support/StallProxy.h"

#include <QElapsedTimer>
#include <QTest>
#include <utility>

using namespace ws::test;

namespace {

// Plain blocking sockets with poll() timeouts.
class Socket {
public:
    explicit Socket(int fd = -1) : m_fd(fd) {}
    ~Socket() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Socket(Socket&& o) noexcept : m_fd(std::exchange(o.m_fd, -1)) {}
    Socket& operator=(Socket&& o) noexcept {
        std::swap(m_fd, o.m_fd);
        return *this;
    }
    int fd() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }

    static Socket connectTo(std::uint16_t port) {
        Socket s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(s.fd(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
            return Socket();
        return s;
    }
    bool send(const QByteArray& data) const {
        return ::send(m_fd, data.constData(), static_cast<size_t>(data.size()), MSG_NOSIGNAL) ==
               data.size();
    }
    // Reads until `n` bytes arrived or timeoutMs passed; what arrived.
    QByteArray read(int n, int timeoutMs) const {
        QByteArray out;
        QElapsedTimer t;
        t.start();
        while (out.size() < n && t.elapsed() < timeoutMs) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(timeoutMs - t.elapsed())) <= 0)
                break;
            char buf[4096];
            const ssize_t got = ::recv(m_fd, buf, sizeof buf, 0);
            if (got <= 0)
                break;
            out.append(buf, static_cast<qsizetype>(got));
        }
        return out;
    }
    // True when the peer closed (EOF or reset) within timeoutMs.
    bool closedWithin(int timeoutMs) const {
        pollfd p{m_fd, POLLIN, 0};
        if (::poll(&p, 1, timeoutMs) <= 0)
            return false;
        char c;
        return ::recv(m_fd, &c, 1, MSG_DONTWAIT) <= 0;
    }

private:
    int m_fd;
};

// A listening socket on a free loopback port: the proxy's target.
class Listener {
public:
    Listener() {
        m_socket = Socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        ::bind(m_socket.fd(), reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(m_socket.fd(), 16);
        ::getsockname(m_socket.fd(), reinterpret_cast<sockaddr*>(&a), &len);
        m_port = ntohs(a.sin_port);
    }
    std::uint16_t port() const { return m_port; }
    Socket accept(int timeoutMs) const {
        pollfd p{m_socket.fd(), POLLIN, 0};
        if (::poll(&p, 1, timeoutMs) <= 0)
            return Socket();
        return Socket(::accept4(m_socket.fd(), nullptr, nullptr, SOCK_CLOEXEC));
    }

private:
    Socket m_socket;
    std::uint16_t m_port = 0;
};

// How long a held byte must stay held to count as held: a negative check needs a bound.
constexpr int kQuietMs = 300;
constexpr int kWaitMs = 5000;

} // namespace

class TestStallProxy : public QObject {
    Q_OBJECT
private slots:
    void forwardsBothWays() {
        Listener target;
        StallProxy proxy(target.port());
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        QCOMPARE(proxy.url(), QStringLiteral("http://127.0.0.1:%1").arg(proxy.port()));
        Socket client = Socket::connectTo(proxy.port());
        QVERIFY(client.valid());
        Socket server = target.accept(kWaitMs);
        QVERIFY(server.valid());
        QVERIFY(client.send("hello"));
        QCOMPARE(server.read(5, kWaitMs), QByteArray("hello"));
        const QByteArray big(200000, 'x'); // several reads' worth
        QVERIFY(server.send(big));
        QCOMPARE(client.read(200000, kWaitMs).size(), 200000);
        QTRY_COMPARE(proxy.bytesForwarded(), 200005);
        QCOMPARE(proxy.accepted(), 1);
        QCOMPARE(proxy.openConnections(), 1);
    }

    void stallHoldsResumeDelivers() {
        Listener target;
        StallProxy proxy(target.port());
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        Socket client = Socket::connectTo(proxy.port());
        Socket server = target.accept(kWaitMs);
        QVERIFY(client.valid() && server.valid());
        QVERIFY(client.send("a"));
        QCOMPARE(server.read(1, kWaitMs), QByteArray("a"));

        proxy.stall();
        QVERIFY(proxy.stalled());
        QVERIFY(client.send("up"));
        QVERIFY(server.send("down"));
        QCOMPARE(server.read(2, kQuietMs), QByteArray());
        QCOMPARE(client.read(4, kQuietMs), QByteArray());
        // A new connection is accepted, reaches the target, and is held like the others.
        Socket late = Socket::connectTo(proxy.port());
        QVERIFY(late.valid());
        Socket lateServer = target.accept(kWaitMs);
        QVERIFY(lateServer.valid());
        QVERIFY(late.send("late"));
        QCOMPARE(lateServer.read(4, kQuietMs), QByteArray());
        QVERIFY(!client.closedWithin(0));
        QCOMPARE(proxy.openConnections(), 2);

        proxy.resume();
        QVERIFY(!proxy.stalled());
        QCOMPARE(server.read(2, kWaitMs), QByteArray("up"));
        QCOMPARE(client.read(4, kWaitMs), QByteArray("down"));
        QCOMPARE(lateServer.read(4, kWaitMs), QByteArray("late"));
    }

    // A client that gives up on a stalled connection is counted, once, and nothing it sent
    // before is lost: it reaches the target when the stall ends.
    void clientClosingDuringAStallIsCounted() {
        Listener target;
        StallProxy proxy(target.port());
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        Socket client = Socket::connectTo(proxy.port());
        Socket server = target.accept(kWaitMs);
        Socket other = Socket::connectTo(proxy.port());
        Socket otherServer = target.accept(kWaitMs);
        QVERIFY(client.valid() && server.valid() && other.valid() && otherServer.valid());
        proxy.stall();
        QVERIFY(client.send("bye"));
        client = Socket(); // closed
        QTRY_COMPARE_WITH_TIMEOUT(proxy.closedWhileStalled(), std::int64_t(1), kWaitMs);
        QTest::qWait(kQuietMs);
        QCOMPARE(proxy.closedWhileStalled(), std::int64_t(1)); // the other one stays open
        proxy.resume();
        QCOMPARE(server.read(3, kWaitMs), QByteArray("bye"));
        QVERIFY(server.closedWithin(kWaitMs));
        QCOMPARE(proxy.closedWhileStalled(), std::int64_t(1));
    }

    void holdOnceHoldsTheConnectionThatSentTheMarker() {
        Listener target;
        StallProxy proxy(target.port());
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        Socket other = Socket::connectTo(proxy.port());
        Socket otherServer = target.accept(kWaitMs);
        Socket client = Socket::connectTo(proxy.port());
        Socket server = target.accept(kWaitMs);
        QVERIFY(other.valid() && otherServer.valid() && client.valid() && server.valid());
        proxy.holdOnce("/registry/configmaps/", 1500);
        QElapsedTimer held;
        held.start();
        QVERIFY(client.send("range /registry/configmaps/"));
        QTRY_VERIFY_WITH_TIMEOUT(proxy.holdBegan(), kWaitMs);
        QVERIFY(server.send("late"));
        // Held both ways, those bytes too; the other connection goes on, the marker included.
        QCOMPARE(server.read(27, kQuietMs), QByteArray());
        QCOMPARE(client.read(4, kQuietMs), QByteArray());
        QVERIFY(other.send("range /registry/configmaps/"));
        QCOMPARE(otherServer.read(27, kWaitMs), QByteArray("range /registry/configmaps/"));
        // Released after the hold, everything delivered.
        QCOMPARE(server.read(27, kWaitMs), QByteArray("range /registry/configmaps/"));
        QVERIFY2(held.elapsed() >= 1400, qPrintable(QString::number(held.elapsed())));
        QCOMPARE(client.read(4, kWaitMs), QByteArray("late"));
    }

    void dropAllResetsBothSides() {
        Listener target;
        StallProxy proxy(target.port());
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        Socket client = Socket::connectTo(proxy.port());
        Socket server = target.accept(kWaitMs);
        QVERIFY(client.valid() && server.valid());
        proxy.stall(); // a stalled connection is dropped too
        proxy.dropAll();
        QCOMPARE(proxy.openConnections(), 0);
        QVERIFY(client.closedWithin(kWaitMs));
        QVERIFY(server.closedWithin(kWaitMs));
        proxy.resume();
        Socket again = Socket::connectTo(proxy.port());
        Socket againServer = target.accept(kWaitMs);
        QVERIFY(again.valid() && againServer.valid());
        QVERIFY(again.send("ok"));
        QCOMPARE(againServer.read(2, kWaitMs), QByteArray("ok"));
    }

    void halfCloseIsPassedOn() {
        Listener target;
        StallProxy proxy(target.port());
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        Socket client = Socket::connectTo(proxy.port());
        Socket server = target.accept(kWaitMs);
        QVERIFY(client.valid() && server.valid());
        QVERIFY(client.send("bye"));
        ::shutdown(client.fd(), SHUT_WR);
        QCOMPARE(server.read(3, kWaitMs), QByteArray("bye"));
        QVERIFY(server.closedWithin(kWaitMs)); // EOF after the data
        QVERIFY(server.send("last"));
        QCOMPARE(client.read(4, kWaitMs), QByteArray("last"));
        server = Socket();
        QVERIFY(client.closedWithin(kWaitMs));
        QTRY_COMPARE(proxy.openConnections(), 0);
    }

    void refusedTargetClosesClient() {
        quint16 port = 0;
        {
            Listener gone; // its port, free again once it is closed
            port = gone.port();
        }
        StallProxy proxy(port);
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        Socket client = Socket::connectTo(proxy.port());
        QVERIFY(client.valid());
        QVERIFY(client.closedWithin(kWaitMs));
        QCOMPARE(proxy.openConnections(), 0);
        QTRY_COMPARE(proxy.accepted(), 1);
    }
};

QTEST_GUILESS_MAIN(TestStallProxy)
#include "tst_stallproxy.moc"
