#pragma once

#include "EngineUpdate.h"

#include <QObject>
#include <QString>

namespace ws {

// A running source of data (the simulator, a live etcd, a kube-apiserver) whose engine works on
// its own thread and publishes batched EngineUpdates, at most ~30 a second, as queued signals.
class Session : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~Session() override = default;

    virtual QString description() const = 0;   // "scenario healthy, seed 1, speed 1x"
    virtual QStringList resources() const = 0; // plural resource names this session shows
    virtual void start() = 0;                  // returns at once
    virtual void stop() = 0;                   // stops the worker and waits for it

signals:
    void updated(const ws::EngineUpdate& update);
    void failed(const QString& message);
    void finished();
};

} // namespace ws
