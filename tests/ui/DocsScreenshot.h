#pragma once

// For the docs' screenshots (scripts/docs-screenshots.sh runs some GUI tests under Xvfb with
// WS_SCREENSHOT_DIR set): the window as a test left it, saved there as `name`. Without
// WS_SCREENSHOT_DIR nothing is saved and nothing is waited for.

#include <QString>
#include <QTest>
#include <QWidget>

namespace ws::test {

// `settleMs`: time for the picture to fill in (charts, incidents), waited only for a screenshot.
inline bool saveDocsScreenshot(QWidget* window, const QString& name, int settleMs = 300) {
    const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return true;
    QTest::qWait(settleMs);
    return window->grab().save(dir + QLatin1Char('/') + name);
}

} // namespace ws::test
