#include "ServeAuthenticator.h"

#include <QFile>

namespace ws {

namespace {
// One CSV record: fields separated by commas, a field may be double-quoted (groups).
QStringList csvFields(const QString& line) {
    QStringList out;
    QString field;
    bool quoted = false;
    for (const QChar c : line) {
        if (c == u'"')
            quoted = !quoted;
        else if (c == u',' && !quoted) {
            out << field.trimmed();
            field.clear();
        } else
            field += c;
    }
    out << field.trimmed();
    return out;
}
} // namespace

bool ServeAuthenticator::loadTokenFile(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("--token-file %1: %2").arg(path, f.errorString());
        return false;
    }
    int lineNo = 0;
    while (!f.atEnd()) {
        ++lineNo;
        const QString line = QString::fromUtf8(f.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith(u'#'))
            continue;
        const QStringList fields = csvFields(line);
        if (fields.size() < 2 || fields[0].isEmpty() || fields[1].isEmpty()) {
            *error = QStringLiteral("--token-file %1:%2: expected token,user[,uid[,\"groups\"]]")
                         .arg(path)
                         .arg(lineNo);
            return false;
        }
        ServeUser user{fields[1], {}};
        if (fields.size() > 3)
            for (const QString& g : fields[3].split(u',', Qt::SkipEmptyParts))
                if (!g.trimmed().isEmpty())
                    user.groups << g.trimmed();
        user.groups << QStringLiteral("system:authenticated");
        m_tokens.insert(fields[0], user);
    }
    if (m_tokens.isEmpty()) {
        *error = QStringLiteral("--token-file %1: no tokens in the file").arg(path);
        return false;
    }
    return true;
}

std::optional<ServeUser> ServeAuthenticator::fromAuthorization(const QString& header) const {
    static const QLatin1String bearer("Bearer ");
    if (!header.startsWith(bearer, Qt::CaseInsensitive))
        return std::nullopt;
    const auto it = m_tokens.constFind(header.mid(bearer.size()).trimmed());
    if (it == m_tokens.constEnd())
        return std::nullopt;
    return *it;
}

} // namespace ws
