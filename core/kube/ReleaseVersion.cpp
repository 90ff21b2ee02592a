#include "ReleaseVersion.h"

#include <QRegularExpression>

namespace ws {

QString ReleaseVersion::plain() const {
    if (!valid())
        return text;
    return hasPatch() ? QStringLiteral("%1.%2.%3").arg(major).arg(minor).arg(patch)
                      : QStringLiteral("%1.%2").arg(major).arg(minor);
}

ReleaseVersion ReleaseVersion::parse(QStringView text) {
    static const QRegularExpression re(
        QStringLiteral("^v?(\\d+)\\.(\\d+)(?:\\.(\\d+))?(?:[-+].*)?$"));
    ReleaseVersion v;
    v.text = text.trimmed().toString();
    const auto m = re.match(v.text);
    if (!m.hasMatch())
        return v;
    v.major = m.captured(1).toInt();
    v.minor = m.captured(2).toInt();
    v.patch = m.captured(3).isEmpty() ? -1 : m.captured(3).toInt();
    return v;
}

} // namespace ws
