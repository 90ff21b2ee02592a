#include "WindowLayoutMemory.h"

#include <QMainWindow>
#include <QSettings>
#include <QSplitter>

namespace ws {

namespace {
// Bump when the window's layout changes shape so much that an old state would misplace it.
const QString kGroup = QStringLiteral("windowLayout/v1");
} // namespace

WindowLayoutMemory::WindowLayoutMemory(QSettings* settings) : m_settings(settings) {
    if (!m_settings) {
        m_own = std::make_unique<QSettings>();
        m_settings = m_own.get();
    }
}

WindowLayoutMemory::~WindowLayoutMemory() = default;

void WindowLayoutMemory::save(const QMainWindow& window) {
    m_settings->beginGroup(kGroup);
    m_settings->remove(QString());
    m_settings->setValue(QStringLiteral("geometry"), window.saveGeometry());
    m_settings->setValue(QStringLiteral("state"), window.saveState());
    for (const QSplitter* s : window.findChildren<QSplitter*>()) {
        if (!s->objectName().isEmpty())
            m_settings->setValue(QStringLiteral("splitter/") + s->objectName(), s->saveState());
    }
    m_settings->endGroup();
    m_settings->sync();
}

bool WindowLayoutMemory::restore(QMainWindow& window) const {
    m_settings->beginGroup(kGroup);
    const QByteArray geometry = m_settings->value(QStringLiteral("geometry")).toByteArray();
    const bool found = !geometry.isEmpty();
    if (found)
        window.restoreGeometry(geometry);
    const QByteArray state = m_settings->value(QStringLiteral("state")).toByteArray();
    if (!state.isEmpty())
        window.restoreState(state);
    for (QSplitter* s : window.findChildren<QSplitter*>()) {
        const QByteArray saved =
            m_settings->value(QStringLiteral("splitter/") + s->objectName()).toByteArray();
        if (!s->objectName().isEmpty() && !saved.isEmpty())
            s->restoreState(saved);
    }
    m_settings->endGroup();
    return found;
}

} // namespace ws
