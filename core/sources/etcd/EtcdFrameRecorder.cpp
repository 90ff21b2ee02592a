#include "EtcdFrameRecorder.h"

#include "EtcdFrameKind.h"
#include "EtcdWireRangeResponse.h"
#include "EtcdWireWatchResponse.h"

#include <QDataStream>
#include <QIODevice>

namespace ws {

namespace {

template <typename... Fields> QByteArray control(const Fields&... fields) {
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    (out << ... << fields);
    return bytes;
}

QByteArray copyOf(const std::string& bytes) {
    return QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()));
}

} // namespace

EtcdFrameRecorder::EtcdFrameRecorder(FrameQueue& queue, int connection, Clock clock,
                                     const std::string& prefix, bool redactSecrets)
    : m_queue(queue), m_connection(connection), m_clock(std::move(clock)) {
    if (redactSecrets) {
        const QByteArray salt = SecretDigest::randomSalt();
        m_rangeRedactor.emplace(salt, prefix);
        m_watchRedactor.emplace(salt, prefix);
    }
}

void EtcdFrameRecorder::push(std::uint16_t kind, QByteArray bytes) {
    Frame f;
    f.connection = m_connection;
    f.received = m_clock();
    f.kind = kind;
    f.bytes = std::move(bytes);
    m_queue.push(std::move(f));
}

void EtcdFrameRecorder::statusReceived(ResourceVersion headerRevision) {
    push(std::uint16_t(EtcdFrameKind::Status), control(qint64(headerRevision)));
}

void EtcdFrameRecorder::listStarted(bool relist) {
    push(std::uint16_t(EtcdFrameKind::ListStarted), control(relist));
}

void EtcdFrameRecorder::rangePage(const WireRangeResponse& page) {
    QByteArray bytes = copyOf(page.bytes());
    if (m_rangeRedactor)
        bytes = m_rangeRedactor->redact(EtcdFrameKind::RangeResponse, bytes);
    push(std::uint16_t(EtcdFrameKind::RangeResponse), std::move(bytes));
}

void EtcdFrameRecorder::listCompleted(ResourceVersion listRevision, std::int64_t items) {
    push(std::uint16_t(EtcdFrameKind::ListCompleted), control(qint64(listRevision), qint64(items)));
}

void EtcdFrameRecorder::listFailed(const QString& message, bool compacted) {
    push(std::uint16_t(EtcdFrameKind::ListFailed), control(message, compacted));
}

void EtcdFrameRecorder::watchCreateSent(ResourceVersion startRevision, const QString& endpoint) {
    push(std::uint16_t(EtcdFrameKind::WatchCreateSent), control(qint64(startRevision), endpoint));
}

void EtcdFrameRecorder::watchReceived(const WireWatchResponse& response) {
    QByteArray bytes = copyOf(response.bytes());
    if (m_watchRedactor)
        bytes = m_watchRedactor->redact(EtcdFrameKind::WatchResponse, bytes);
    push(std::uint16_t(EtcdFrameKind::WatchResponse), std::move(bytes));
}

void EtcdFrameRecorder::watchBroken(const QString& message, bool transport,
                                    std::chrono::milliseconds retryIn) {
    push(std::uint16_t(EtcdFrameKind::WatchBroken),
         control(message, transport, qint64(retryIn.count())));
}

} // namespace ws
