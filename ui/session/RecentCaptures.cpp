#include "RecentCaptures.h"

#include "MostRecentFirst.h"

#include <QFileInfo>
#include <QSettings>
#include <functional>

namespace ws {

namespace {
const QString kKey = QStringLiteral("recentCaptures");

QString absolute(const QString& path) {
    return QFileInfo(path).absoluteFilePath();
}
} // namespace

RecentCaptures::RecentCaptures(QSettings* settings) : m_settings(settings) {
    if (!m_settings) {
        m_own = std::make_unique<QSettings>();
        m_settings = m_own.get();
    }
}

RecentCaptures::~RecentCaptures() = default;

QStringList RecentCaptures::load() const {
    QStringList out;
    for (const QString& p : m_settings->value(kKey).toStringList())
        if (!p.isEmpty() && !out.contains(p) && out.size() < kMax)
            out << p;
    return out;
}

void RecentCaptures::remember(const QString& path) {
    QStringList list = load();
    rememberFirst(list, absolute(path), std::equal_to<QString>(), kMax);
    save(list);
}

void RecentCaptures::forget(const QString& path) {
    QStringList list = load();
    list.removeAll(absolute(path));
    list.removeAll(path);
    save(list);
}

void RecentCaptures::clear() {
    save({});
}

void RecentCaptures::save(const QStringList& list) {
    m_settings->setValue(kKey, list);
    m_settings->sync();
}

} // namespace ws
