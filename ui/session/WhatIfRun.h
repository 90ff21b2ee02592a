#pragma once

#include "whatif/WhatIfComparison.h"

#include <QObject>
#include <QPointer>
#include <atomic>
#include <memory>
#include <optional>

class QThread;

namespace ws {

// Runs WhatIfComparison (a capture replayed as recorded and under other versions, several
// seconds) on a worker thread so the window keeps drawing: start() returns at once; progress()
// arrives a few times a second and then finished() or failed(), on the owner's thread. cancel()
// (or starting again) drops the run under way: it stops at its next update and nothing of it is
// delivered.
class WhatIfRun : public QObject {
    Q_OBJECT
public:
    explicit WhatIfRun(QObject* parent = nullptr);
    ~WhatIfRun() override; // cancels, and waits for the worker to notice

    // `spec`: a capture spec with whatIf set (its replay control is not used).
    void start(const SourceSpec& spec);
    void cancel();
    bool running() const { return m_thread != nullptr; }
    // The last comparison that finished (cleared by start()).
    const std::optional<WhatIfResult>& result() const { return m_result; }

    // What a capture of a scenario was recorded under, in the terms of a what-if: its server
    // version, its clients' client-go ("current", or "0.16/current" when they differ) and the
    // gates the scenario sets; describe() gives "kube-apiserver 1.27.0, client-go current".
    // nullopt for a capture of a live source (its versions were the cluster's) or a bad file.
    static std::optional<ScenarioOverrides> recordedVersions(const QString& capturePath);

signals:
    // `run` 0: the replay as recorded, 1: under the other versions; `now`: how far it has got.
    void progress(int run, qint64 now);
    void finished();
    void failed(const QString& error);

private:
    void stop(bool wait);

    QPointer<QThread> m_thread;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    quint64 m_generation = 0;
    std::optional<WhatIfResult> m_result;
};

} // namespace ws
