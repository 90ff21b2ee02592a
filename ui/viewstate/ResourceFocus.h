#pragma once

#include "engine/EngineUpdate.h"

#include <QObject>
#include <QStringList>

namespace ws {

// Which resource the charts (and the watcher and cache tables) show, and when that changes by
// itself. Resources are discovered from the session (what it offers) and from what its updates
// mention, in the order first seen; the first one becomes the one shown. Until someone picks a
// resource, the view moves once to the resource of the first warning or error anomaly: a
// scenario's trouble is often on a quiet resource that is not the first one listed. A pick
// (the resource chooser, setCurrentResource) ends that for the session; showing a selected
// anomaly's resource is not a pick. No widgets: the window mirrors it in its chooser.
class ResourceFocus : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    QStringList resources() const { return m_resources; }
    bool contains(const QString& resource) const { return m_resources.contains(resource); }
    QString current() const { return m_current; }
    bool picked() const { return m_picked; }
    bool followedFirstAnomaly() const { return m_followed; }

    // Adds resources not known yet (the first one known becomes current).
    void offer(const QStringList& resources);
    void note(const QString& resource);
    // Every resource an update mentions (caches, watchers, series).
    void note(const EngineUpdate& update);

    // Shows `resource` if known, as the reader's choice: nothing moves the view by itself after.
    void choose(const QString& resource);
    // Shows `resource` if known, without counting as a choice.
    void show(const QString& resource);
    // A reader picked through the chooser (which already shows it).
    void markPicked() { m_picked = true; }

    // Until a pick, and only once: moves to the first warning or error anomaly's resource
    // (a known one). Returns the resource moved to, or an empty string when nothing moved.
    QString followFirstAnomaly(const AnomalyList& anomalies);

    // A new session offering `resources`: forgets everything but stays on the resource shown
    // when the new session has it too (otherwise its first one).
    void restart(const QStringList& resources);
    void clear();

signals:
    void resourceAdded(const QString& resource);
    void currentChanged(const QString& resource);
    void cleared();

private:
    QStringList m_resources;
    QString m_current;
    bool m_picked = false;
    bool m_followed = false;
};

} // namespace ws
