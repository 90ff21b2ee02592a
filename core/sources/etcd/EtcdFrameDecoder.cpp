#include "EtcdFrameDecoder.h"

#include "EtcdEventProcessor.h"
#include "EtcdFrameKind.h"
#include "EtcdWireRangeResponse.h"

#include <QDataStream>
#include <QIODevice>

namespace ws {

namespace {

// Reads a control frame's fields; false when the bytes do not hold them.
template <typename... Fields> bool readControl(const QByteArray& bytes, Fields&... fields) {
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_4);
    (in >> ... >> fields);
    return in.status() == QDataStream::Ok;
}

} // namespace

bool EtcdFrameDecoder::decode(const Frame& frame, QString* error) {
    const auto bad = [&](const char* what) {
        *error = QStringLiteral("undecodable etcd frame (kind %1, %2 bytes): %3")
                     .arg(frame.kind)
                     .arg(frame.bytes.size())
                     .arg(QLatin1String(what));
        return false;
    };
    switch (static_cast<EtcdFrameKind>(frame.kind)) {
    case EtcdFrameKind::WatchResponse: {
        WireWatchResponse resp;
        if (!resp.parse(frame.bytes.toStdString())) {
            *error = QStringLiteral("malformed WatchResponse frame: %1")
                         .arg(QString::fromStdString(resp.error()));
            return false;
        }
        deliverWatch(std::move(resp));
        return true;
    }
    case EtcdFrameKind::RangeResponse: {
        WireRangeResponse page;
        if (!page.parse(frame.bytes.toStdString())) {
            *error = QStringLiteral("malformed RangeResponse frame: %1")
                         .arg(QString::fromStdString(page.error()));
            return false;
        }
        if (!page.kvs.empty())
            m_processor.listPage(page);
        return true;
    }
    case EtcdFrameKind::WatchCreateSent: {
        qint64 start = 0;
        QString endpoint;
        if (!readControl(frame.bytes, start, endpoint))
            return bad("watch create");
        m_startRevision = start;
        m_endpoint = endpoint;
        m_nextRevision = start;
        m_inFragment = false;
        m_merged.clear();
        return true;
    }
    case EtcdFrameKind::ListStarted: {
        bool relist = false;
        if (!readControl(frame.bytes, relist))
            return bad("list started");
        m_processor.listStarted(relist);
        return true;
    }
    case EtcdFrameKind::ListCompleted: {
        qint64 rev = 0, items = 0;
        if (!readControl(frame.bytes, rev, items))
            return bad("list completed");
        m_nextRevision = rev + 1;
        m_processor.listCompleted(rev, items);
        return true;
    }
    case EtcdFrameKind::ListFailed: {
        QString message;
        bool compacted = false;
        if (!readControl(frame.bytes, message, compacted))
            return bad("list failed");
        m_processor.listFailed(message, compacted);
        return true;
    }
    case EtcdFrameKind::WatchBroken: {
        QString message;
        bool transport = false;
        qint64 retryMs = 0;
        if (!readControl(frame.bytes, message, transport, retryMs))
            return bad("watch broken");
        m_inFragment = false;
        m_merged.clear();
        m_processor.watchBroken(message, transport, std::chrono::milliseconds(retryMs));
        return true;
    }
    case EtcdFrameKind::Status: {
        qint64 head = 0;
        if (!readControl(frame.bytes, head))
            return bad("status");
        m_processor.noteHead(head);
        return true;
    }
    case EtcdFrameKind::Tick:
        return true; // the session's clock, not the stream's: EtcdFrameConsumer handles it
    }
    return bad("unknown kind");
}

void EtcdFrameDecoder::deliverWatch(WireWatchResponse&& resp) {
    if (resp.created) {
        m_processor.watchOpened(m_startRevision, m_endpoint);
        if (resp.events.empty() && !resp.canceled)
            return;
    }
    if (resp.canceled) {
        if (resp.compactRevision > 0)
            m_processor.watchCompacted(m_nextRevision, resp.compactRevision);
        return; // any other cancel ends the stream: a WatchBroken frame follows
    }
    if (resp.fragment) {
        if (!m_inFragment) {
            m_merged.clear();
            m_inFragment = true;
        }
        m_merged.append(std::move(resp));
        return;
    }
    WireWatchResponse* deliver = &resp;
    if (m_inFragment) {
        m_merged.append(std::move(resp));
        deliver = &m_merged;
        m_inFragment = false;
    }
    if (!deliver->events.empty()) {
        m_nextRevision = deliver->events.back().kv.modRevision + 1;
        m_processor.watchResponse(*deliver);
    } else if (deliver->headerRevision != 0 && deliver->compactRevision == 0) {
        m_processor.watchProgress(deliver->headerRevision);
    }
}

} // namespace ws
