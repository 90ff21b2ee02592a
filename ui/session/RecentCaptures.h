#pragma once

#include <QStringList>
#include <memory>

class QSettings;

namespace ws {

// The capture files opened in the window (File → Open Capture…, --open) and written by its
// Record button, newest first, kept in the program's settings across runs. At most kMax; the
// same file again moves to the front. Paths are stored absolute.
class RecentCaptures {
public:
    static constexpr int kMax = 8;

    // `settings` null: the application's QSettings.
    explicit RecentCaptures(QSettings* settings = nullptr);
    ~RecentCaptures();

    QStringList load() const;
    void remember(const QString& path);
    void forget(const QString& path);
    void clear();

private:
    void save(const QStringList& list);
    QSettings* m_settings;
    std::unique_ptr<QSettings> m_own;
};

} // namespace ws
