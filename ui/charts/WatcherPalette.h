#pragma once

#include <QColor>
#include <QHash>
#include <QString>

namespace ws {

// One colour per watcher, handed out once in the order watchers are first drawn, so a watcher
// keeps its colour when others come and go, and has the same colour in every chart that draws
// it (the RV timeline and the lag chart share one palette).
class WatcherPalette {
public:
    QColor color(const QString& watcherId);
    void clear() { m_colors.clear(); }

private:
    QHash<QString, QColor> m_colors;
};

} // namespace ws
