#pragma once

#include <QString>
#include <memory>

class QMainWindow;
class QSettings;

namespace ws {

// The window's layout across runs: its geometry, tool bars and the sizes of every named
// splitter. It walks the window's children by object name, so a new pane's splitter is
// remembered by naming it; unnamed ones keep their defaults. The tab shown is not: the window
// opens on Incidents, what went wrong, whatever was looked at last time.
class WindowLayoutMemory {
public:
    // `settings` null: the application's QSettings.
    explicit WindowLayoutMemory(QSettings* settings = nullptr);
    ~WindowLayoutMemory();

    void save(const QMainWindow& window);
    // Restores what was saved; what was not (a first start, a pane added since) stays as built.
    // Returns whether a saved layout was found.
    bool restore(QMainWindow& window) const;

private:
    QSettings* m_settings;
    std::unique_ptr<QSettings> m_own;
};

} // namespace ws
