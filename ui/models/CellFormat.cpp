#include "CellFormat.h"

#include <QLocale>

namespace ws {

QString formatRv(ResourceVersion rv) {
    return rv == 0 ? QStringLiteral("—") : QString::number(rv);
}

QString formatCount(qint64 value) {
    // A fixed locale: the CI and every user read "12,345" the same way, like the CLI prints it.
    static const QLocale locale(QLocale::English, QLocale::UnitedStates);
    return locale.toString(value);
}

QString formatSeconds(double seconds) {
    return QString::number(seconds, 'f', 3);
}

QString formatTimeUs(TimeUs time) {
    return QString::number(double(time) / double(kUsPerSecond), 'f', 3);
}

} // namespace ws
