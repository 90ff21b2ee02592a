#pragma once

// A small but valid capture of an etcd source: one connection and the session's clock ticks
// (Tick frames) every 10 ms up to `length`, then the End record. Replayed by CaptureSource
// through the etcd decoders like any etcd capture; its clock is the frames' times, so pacing
// (speed, pause, seek) can be checked without an etcd.
#include "capture/CaptureWriter.h"
#include "sources/etcd/EtcdFrameConsumer.h"

#include <QDateTime>

namespace ws::test {

inline bool writeTickCapture(const QString& path, TimeUs length, QString* error) {
    CaptureHeader h;
    h.creator = QStringLiteral("WatchScope tests");
    h.createdUtc = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    h.sourceKind = QStringLiteral("etcd");
    h.description = QStringLiteral("etcd ticks only");
    h.replay.insert(QStringLiteral("prefix"), QStringLiteral("/registry/"));
    h.replay.insert(QStringLiteral("watchCache"), true);
    CaptureWriter w;
    if (!w.open(path, h, error))
        return false;
    ConnectionInfo c;
    c.id = 1;
    c.sourceKind = QStringLiteral("etcd");
    c.endpoint = QStringLiteral("http://127.0.0.1:2379");
    w.writeConnection(c);
    for (TimeUs t = 0; t <= length; t += milliseconds(10))
        w.writeFrame(EtcdFrameConsumer::tick(1, t, t == length));
    return w.close(length, error);
}

} // namespace ws::test
