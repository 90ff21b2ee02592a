#include "WatcherPalette.h"

#include <iterator>

namespace ws {

QColor WatcherPalette::color(const QString& watcherId) {
    static const QColor palette[] = {
        QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
        QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf),
        QColor(0xbc, 0xbd, 0x22), QColor(0x7f, 0x7f, 0x7f), QColor(0x39, 0x3b, 0x79),
        QColor(0x63, 0x79, 0x39), QColor(0x84, 0x3c, 0x39), QColor(0x7b, 0x41, 0x73)};
    auto it = m_colors.find(watcherId);
    if (it == m_colors.end()) {
        const auto n = std::size(palette);
        it = m_colors.insert(watcherId, palette[std::size_t(m_colors.size()) % n]);
    }
    return *it;
}

} // namespace ws
