#include "EtcdCaptureStream.h"

#include "capture/CaptureReader.h"
#include "sources/etcd/EtcdFrameKind.h"
#include "sources/etcd/EtcdWireRangeResponse.h"
#include "sources/etcd/EtcdWireWatchResponse.h"

#include <QDataStream>
#include <QIODevice>
#include <map>

namespace ws {

namespace {

// The state of the recorded keyspace as the stream has shown it: key -> (mod revision, value).
struct KnownObject {
    ResourceVersion modRevision = 0;
    std::string value;
};

class StreamBuilder {
public:
    explicit StreamBuilder(RecordedEtcdStream& out) : m_out(out) {}

    void listStarted() {
        m_listing.clear();
        m_listRevision = 0;
    }
    void listPage(const WireRangeResponse& page) {
        for (const WireKeyValue& kv : page.kvs)
            m_listing[std::string(kv.key)] = KnownObject{kv.modRevision, std::string(kv.value)};
        if (m_listRevision == 0)
            m_listRevision = page.headerRevision;
    }
    void listCompleted(TimeUs at, ResourceVersion revision) {
        if (!m_listed) {
            m_listed = true;
            m_out.startRevision = revision;
            for (auto& [key, o] : m_listing)
                m_out.initial.push_back({key, o.value});
            m_known = std::move(m_listing);
            m_last = revision;
        } else if (revision > m_last) {
            reconcile(at, revision);
        }
        m_listing.clear();
    }
    void watchEvents(TimeUs at, const WireWatchResponse& response) {
        if (!m_listed)
            return;
        for (const WireEvent& e : response.events) {
            const auto rev = static_cast<ResourceVersion>(e.kv.modRevision);
            if (rev < m_last || (rev == m_last && !m_sameRevisionOpen))
                continue;              // seen already (a watch restarted from an earlier revision)
            m_sameRevisionOpen = true; // a transaction's further keys share its revision
            std::string key(e.kv.key);
            if (e.isDelete) {
                m_known.erase(key);
                m_out.writes.push_back({at, rev, std::move(key), {}, true});
            } else {
                m_known[key] = KnownObject{rev, std::string(e.kv.value)};
                m_out.writes.push_back({at, rev, std::move(key), std::string(e.kv.value), false});
            }
            m_last = rev;
        }
        m_sameRevisionOpen = false;
    }
    void compacted(TimeUs at, ResourceVersion revision) {
        if (m_out.compactions.empty() || m_out.compactions.back().revision < revision)
            m_out.compactions.push_back({at, revision});
    }

private:
    // A relist after missed revisions: what changed in between, as writes at the list's time.
    void reconcile(TimeUs at, ResourceVersion revision) {
        ResourceVersion next = m_last + 1;
        for (auto it = m_known.begin(); it != m_known.end();) {
            if (m_listing.count(it->first)) {
                ++it;
                continue;
            }
            m_out.writes.push_back({at, next++, it->first, {}, true});
            it = m_known.erase(it);
        }
        for (auto& [key, o] : m_listing) {
            auto known = m_known.find(key);
            if (known != m_known.end() && known->second.modRevision == o.modRevision)
                continue;
            m_out.writes.push_back({at, std::max(next++, o.modRevision), key, o.value, false});
            m_known[key] = o;
        }
        m_last = std::max(revision, next - 1);
    }

    RecordedEtcdStream& m_out;
    std::map<std::string, KnownObject> m_listing;
    std::map<std::string, KnownObject> m_known;
    ResourceVersion m_listRevision = 0;
    ResourceVersion m_last = 0;
    bool m_listed = false;
    bool m_sameRevisionOpen = false;
};

template <typename... Fields> bool readControl(const QByteArray& bytes, Fields&... fields) {
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_4);
    (in >> ... >> fields);
    return in.status() == QDataStream::Ok;
}

} // namespace

std::optional<RecordedEtcdStream> EtcdCaptureStream::read(const QString& path, QString* error) {
    CaptureReader reader;
    if (!reader.open(path, error))
        return std::nullopt;
    if (reader.header().sourceKind != QLatin1String("etcd")) {
        *error = QStringLiteral("%1 is a capture of a %2 source, not of etcd")
                     .arg(path, reader.header().sourceKind);
        return std::nullopt;
    }
    RecordedEtcdStream out;
    out.prefix = reader.header()
                     .replay.value(QLatin1String("prefix"))
                     .toString(QStringLiteral("/registry/"))
                     .toStdString();
    StreamBuilder builder(out);
    CaptureRecord record;
    WireWatchResponse merged;
    bool inFragment = false;
    while (reader.next(&record)) {
        if (record.type == CaptureRecord::Type::Connection) {
            const QString versions = record.connection.versions;
            if (out.etcdVersion.isEmpty() && versions.startsWith(QLatin1String("etcd ")))
                out.etcdVersion = versions.mid(5).trimmed();
            continue;
        }
        if (record.type == CaptureRecord::Type::End) {
            out.duration = std::max(out.duration, record.endTime);
            continue;
        }
        const Frame& f = record.frame;
        out.duration = std::max(out.duration, f.received);
        switch (static_cast<EtcdFrameKind>(f.kind)) {
        case EtcdFrameKind::ListStarted:
            builder.listStarted();
            break;
        case EtcdFrameKind::RangeResponse: {
            WireRangeResponse page;
            if (page.parse(f.bytes.toStdString()))
                builder.listPage(page);
            break;
        }
        case EtcdFrameKind::ListCompleted: {
            qint64 rev = 0, items = 0;
            if (readControl(f.bytes, rev, items))
                builder.listCompleted(f.received, rev);
            break;
        }
        case EtcdFrameKind::WatchResponse: {
            WireWatchResponse resp;
            if (!resp.parse(f.bytes.toStdString()))
                break;
            if (resp.canceled) {
                if (resp.compactRevision > 0)
                    builder.compacted(f.received, resp.compactRevision);
                inFragment = false;
                break;
            }
            if (resp.fragment) {
                if (!inFragment)
                    merged.clear();
                inFragment = true;
                merged.append(std::move(resp));
                break;
            }
            if (inFragment) {
                merged.append(std::move(resp));
                inFragment = false;
                builder.watchEvents(f.received, merged);
                merged.clear();
            } else {
                builder.watchEvents(f.received, resp);
            }
            break;
        }
        case EtcdFrameKind::WatchCreateSent:
        case EtcdFrameKind::WatchBroken:
            inFragment = false;
            break;
        default:
            break;
        }
    }
    if (out.startRevision == 0) {
        *error = QStringLiteral("%1 holds no complete list of etcd (the recording ended before "
                                "its first list finished): nothing to replay")
                     .arg(path);
        return std::nullopt;
    }
    return out;
}

} // namespace ws
