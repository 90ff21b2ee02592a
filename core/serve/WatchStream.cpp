#include "WatchStream.h"

#include "ObjectJson.h"
#include "ObjectProto.h"
#include "sources/sim/etcd/SimKeyspace.h"

namespace ws {

WatchStream::WatchStream(const SimKeyspace& keyspace, ResourceInfo info,
                         std::shared_ptr<ServerWatch> watch, std::shared_ptr<ResponseSink> sink,
                         FieldSelector fields, std::optional<LabelSelector> labels,
                         Encoding encoding)
    : m_keyspace(keyspace), m_info(std::move(info)), m_watch(std::move(watch)),
      m_sink(std::move(sink)), m_fields(std::move(fields)), m_labels(std::move(labels)),
      m_protobuf(encoding.protobuf), m_zeroCreationTimestamp(encoding.zeroCreationTimestamp) {}

bool WatchStream::wanted(const WatchDelivery& d) const {
    if (!d.object)
        return false;
    if (m_fields.filtersObjects() &&
        !m_fields.matches(m_keyspace.namespaceOf(d.key), m_keyspace.nameOf(d.key)))
        return false;
    if (m_labels && !m_labels->empty() &&
        !m_labels->matches(LabelSelector::labelsOf(d.object->value())))
        return false;
    return true;
}

bool WatchStream::append(const WatchDelivery& d) {
    switch (d.type) {
    case WatchEventType::Error:
        if (m_protobuf)
            ObjectProto::appendError(m_out, m_watch->error.value_or(ApiStatus{}));
        else
            ObjectJson::appendError(m_out, m_watch->error.value_or(ApiStatus{}));
        return true;
    case WatchEventType::Bookmark:
        if (m_protobuf)
            ObjectProto::appendBookmark(m_out, m_info, d.rv, d.initialEventsEnd);
        else
            ObjectJson::appendBookmark(m_out, m_info, d.rv, d.initialEventsEnd,
                                       m_zeroCreationTimestamp);
        return true;
    default:
        if (!wanted(d))
            return true;
        ++m_events;
        if (!m_protobuf) {
            ObjectJson::appendEvent(m_out, d.type, *d.object, d.rv);
            return true;
        }
        std::string error;
        if (ObjectProto::appendEvent(m_out, d.type, m_info, *d.object, d.rv, &error))
            return true;
        // A stored object that is no ConfigMap (a client's create with a number in data):
        // said in an ERROR event, as the apiserver reports its watch's internal errors, then
        // the stream ends; a silently closed stream would only be re-watched into the same end.
        ApiStatus s;
        s.code = 500;
        s.reason = QStringLiteral("InternalError");
        s.message = QStringLiteral("Internal error occurred: cannot encode %1 %2/%3 at "
                                   "resourceVersion %4 as protobuf: %5")
                        .arg(m_info.kind, m_keyspace.namespaceOf(d.key), m_keyspace.nameOf(d.key))
                        .arg(d.rv)
                        .arg(QString::fromStdString(error));
        ObjectProto::appendError(m_out, s);
        return false;
    }
}

bool WatchStream::pump() {
    if (m_sink->gone()) {
        // The client went away: the cacher forgets the watcher.
        m_watch->close(WatchCloseReason::ClientCancelled);
        return false;
    }
    if (!m_started) {
        // A watch waiting for a not-ready cache has sent nothing yet, not even headers: what
        // it finally gets may be an HTTP error instead of a stream (503 from 1.27).
        if (m_watch->pending)
            return true;
        if (m_watch->rejection) {
            const ApiStatus& s = *m_watch->rejection;
            if (s.code == 0) {
                m_sink->abort();
                return false;
            }
            HttpHeaders headers;
            if (s.retryAfterSeconds > 0)
                headers.emplace_back("Retry-After", std::to_string(s.retryAfterSeconds));
            m_sink->respond(s.code, "application/json", s.toJson().toStdString() + '\n',
                            std::move(headers));
            return false;
        }
        // The apiserver names a protobuf watch's framing in its Content-Type (watch.go).
        m_sink->beginStream(200, m_protobuf ? ObjectProto::kStreamContentType : "application/json");
        m_started = true;
    }
    m_out.clear();
    while (!m_watch->buffer.empty() && m_sink->backlog() + m_out.size() < kHighWater) {
        WatchDelivery d = std::move(m_watch->buffer.front());
        m_watch->buffer.pop_front();
        if (!append(d)) {
            m_sink->write(std::move(m_out));
            m_watch->close(WatchCloseReason::AfterError);
            m_sink->endStream();
            return false;
        }
    }
    if (!m_out.empty())
        m_sink->write(std::move(m_out));
    // The cacher may hand over as much as the socket takes; a full socket stops the reading.
    m_watch->readAllowance = m_sink->backlog() < kHighWater ? std::size_t(1) << 30 : 0;
    if (m_watch->buffer.empty() && m_watch->closed) {
        if (m_watch->closeReason == WatchCloseReason::Broken)
            m_sink->abort();
        else
            m_sink->endStream();
        return false;
    }
    return true;
}

} // namespace ws
