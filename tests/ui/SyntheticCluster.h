#pragma once

// EngineUpdate values shaped like a simulator run, for the GUI tests and screenshots: two
// apiservers caching pods and configmaps, a few informers, and one slow client that lags,
// gets terminated, hits 410 on reconnect and relists. Deterministic (fixed LCG).

#include "engine/EngineUpdate.h"

#include <QString>
#include <algorithm>
#include <cmath>

namespace ws::test {

inline WatcherSnapshot watcher(const QString& id, const QString& resource, ResourceVersion rv,
                               qint64 lag = 0, WatcherState state = WatcherState::Live) {
    WatcherSnapshot w;
    w.id = id;
    w.resource = resource;
    w.apiserver = QStringLiteral("apiserver-0");
    w.profile = QStringLiteral("client-go 0.30");
    w.state = state;
    w.rv = rv;
    w.lagRevisions = lag;
    w.lagSeconds = double(lag) / 50.0;
    w.eventsReceived = rv / 2;
    return w;
}

inline CacheSnapshot cache(const QString& resource, const QString& apiserver, ResourceVersion head,
                           ResourceVersion rv, qint64 used, qint64 capacity) {
    CacheSnapshot c;
    c.resource = resource;
    c.apiserver = apiserver;
    c.headRv = head;
    c.cacheRv = rv;
    c.bufferUsed = used;
    c.bufferCapacity = capacity;
    c.bufferOldestRv = std::max<ResourceVersion>(1, rv - used);
    c.objects = 120;
    return c;
}

inline Anomaly anomaly(TimeUs time, AnomalyKind kind, Severity severity, const QString& resource,
                       ResourceVersion rv, const QString& watcherId, const QString& message,
                       const QString& key = {}) {
    Anomaly a;
    a.time = time;
    a.kind = kind;
    a.severity = severity;
    a.source = AnomalySource::Simulator;
    a.resource = resource;
    a.rv = rv;
    a.watcher = watcherId;
    a.message = message;
    a.key = key;
    return a;
}

inline SeriesDelta delta(const QString& resource, const QString& series, QVector<QPointF> points) {
    return SeriesDelta{resource, series, std::move(points)};
}

class SyntheticCluster {
public:
    static constexpr TimeUs kFrame = 100 * kUsPerMs; // 10 updates per virtual second

    EngineUpdate next() {
        EngineUpdate u;
        m_now += kFrame;
        const double t = double(m_now) / double(kUsPerSecond);
        const double ms = double(m_now) / double(kUsPerMs);
        u.now = m_now;

        // ~40 pod writes/s and ~8 configmap writes/s share one etcd revision counter.
        const int podWrites = 3 + int(rand() % 3);
        const int cmWrites = int(rand() % 2);
        m_head += podWrites + cmWrites;
        m_events += podWrites + cmWrites;
        m_podUsed = std::min<qint64>(m_podUsed + podWrites, kPodCapacity);
        m_cmUsed = std::min<qint64>(m_cmUsed + cmWrites, kCmCapacity);
        const ResourceVersion podCache = m_head - ResourceVersion(rand() % 3);
        const ResourceVersion cmCache = m_head - ResourceVersion(rand() % 2);
        u.totalEvents = m_events;
        u.eventsPerSecond = 10.0 * (podWrites + cmWrites) * 14.0; // wall clock at speed 14x

        const QString pods = QStringLiteral("pods");
        const QString cms = QStringLiteral("configmaps");
        u.caches = {
            cache(pods, QStringLiteral("apiserver-0"), m_head, podCache, m_podUsed, kPodCapacity),
            cache(pods, QStringLiteral("apiserver-1"), m_head, m_head - ResourceVersion(rand() % 6),
                  m_podUsed, kPodCapacity),
            cache(cms, QStringLiteral("apiserver-0"), m_head, cmCache, m_cmUsed, kCmCapacity)};

        // The slow client: lags from 30 s, is closed at 70 s, reconnects with an RV that fell
        // out of the ring buffer (410), relists and catches up from 72 s.
        if (t < 30)
            m_slowRv = podCache - 2;
        else if (t < 70)
            m_slowRv += std::max(1, podWrites - 2);
        else if (t >= 72)
            m_slowRv = podCache - 1;
        const bool terminated = t >= 70 && t < 72;
        const qint64 slowLag = podCache - m_slowRv;

        WatcherSnapshot kubelet = watcher(QStringLiteral("kubelet/node-1"), pods, podCache - 1, 1);
        kubelet.profile = QStringLiteral("kubelet 1.30");
        WatcherSnapshot kcm = watcher(QStringLiteral("informer/kube-controller-manager"), pods,
                                      podCache - ResourceVersion(rand() % 4));
        kcm.lagRevisions = podCache - kcm.rv;
        WatcherSnapshot sched = watcher(QStringLiteral("informer/kube-scheduler"), pods,
                                        podCache - ResourceVersion(rand() % 3));
        sched.lagRevisions = podCache - sched.rv;
        sched.apiserver = QStringLiteral("apiserver-1");
        WatcherSnapshot slow = watcher(QStringLiteral("audit-exporter"), pods, m_slowRv, slowLag,
                                       terminated ? WatcherState::Terminated
                                       : t >= 45  ? WatcherState::Lagging
                                                  : WatcherState::Live);
        slow.profile = QStringLiteral("client-go 0.18.9");
        slow.relists = t >= 72 ? 1 : 0;
        WatcherSnapshot cmInformer =
            watcher(QStringLiteral("informer/kube-controller-manager"), cms, cmCache);
        u.watchers = {kubelet, kcm, sched, slow, cmInformer};

        u.series = {
            delta(pods, QStringLiteral("head_rv"), {{ms, double(m_head)}}),
            delta(pods, QStringLiteral("cache_rv"), {{ms, double(podCache)}}),
            delta(pods, QStringLiteral("buffer_used"), {{ms, double(m_podUsed)}}),
            delta(pods, QStringLiteral("buffer_capacity"), {{ms, double(kPodCapacity)}}),
            delta(pods, QStringLiteral("watcher_rv:kubelet/node-1"), {{ms, double(kubelet.rv)}}),
            delta(pods, QStringLiteral("watcher_rv:informer/kube-controller-manager"),
                  {{ms, double(kcm.rv)}}),
            delta(pods, QStringLiteral("watcher_rv:informer/kube-scheduler"),
                  {{ms, double(sched.rv)}}),
            delta(cms, QStringLiteral("head_rv"), {{ms, double(m_head)}}),
            delta(cms, QStringLiteral("cache_rv"), {{ms, double(cmCache)}}),
            delta(cms, QStringLiteral("buffer_used"), {{ms, double(m_cmUsed)}}),
            delta(cms, QStringLiteral("buffer_capacity"), {{ms, double(kCmCapacity)}}),
        };
        if (!terminated)
            u.series.append(
                delta(pods, QStringLiteral("watcher_rv:audit-exporter"), {{ms, double(m_slowRv)}}));

        const int frame = int(std::lround(t * 10));
        if (frame == 450) {
            u.anomalies.append(anomaly(m_now, AnomalyKind::WatcherLag, Severity::Warning, pods,
                                       m_slowRv, QStringLiteral("audit-exporter"),
                                       QStringLiteral("lag %1 revisions / %2 s behind head")
                                           .arg(slowLag)
                                           .arg(double(slowLag) / 45.0, 0, 'f', 1)));
        }
        if (frame == 700) {
            u.anomalies.append(anomaly(
                m_now, AnomalyKind::WatcherTerminated, Severity::Error, pods, m_slowRv,
                QStringLiteral("audit-exporter"),
                QStringLiteral("apiserver-0 closed the watch without an ERROR event: dispatch "
                               "budget exhausted (slow watcher)")));
        }
        if (frame == 710) {
            u.anomalies.append(
                anomaly(m_now, AnomalyKind::TooOldRv, Severity::Warning, pods, m_slowRv,
                        QStringLiteral("audit-exporter"),
                        QStringLiteral("410 Expired: too old resource version: %1 (%2)")
                            .arg(m_slowRv)
                            .arg(m_head - kPodCapacity)));
        }
        if (frame == 180) {
            u.anomalies.append(anomaly(m_now, AnomalyKind::StuckWatcher, Severity::Info, cms,
                                       cmCache, QStringLiteral("informer/kube-controller-manager"),
                                       QStringLiteral("rv unchanged for 5.0 s while head moved"),
                                       QStringLiteral("/registry/configmaps/kube-system/leader")));
        }
        return u;
    }

    TimeUs now() const { return m_now; }

private:
    static constexpr qint64 kPodCapacity = 1000;
    static constexpr qint64 kCmCapacity = 400;

    unsigned rand() {
        m_seed = m_seed * 1103515245u + 12345u;
        return (m_seed >> 16) & 0x7fff;
    }

    unsigned m_seed = 7;
    TimeUs m_now = 0;
    ResourceVersion m_head = 5000;
    ResourceVersion m_slowRv = 0;
    qint64 m_events = 0;
    qint64 m_podUsed = 200;
    qint64 m_cmUsed = 50;
};

} // namespace ws::test
