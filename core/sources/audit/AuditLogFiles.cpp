#include "AuditLogFiles.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>
#include <map>

namespace ws {

namespace {

struct Member {
    QString path;
    QString stamp; // "" for the live file: it sorts last
};

// "<stem>-2006-01-02T15-04-05.000<ext>[.gz]": lumberjack's backupTimeFormat.
const QRegularExpression& rotatedName() {
    static const QRegularExpression re(
        QStringLiteral(R"(^(.*)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3})(\.[^.]*)?(\.gz)?$)"));
    return re;
}

// The log a file belongs to (folder + live file name) and its rotation stamp.
std::pair<QString, Member> classify(const QFileInfo& file) {
    const QString name = file.fileName();
    const QString dir = file.absolutePath();
    if (const auto m = rotatedName().match(name); m.hasMatch())
        return {dir + u'/' + m.captured(1) + m.captured(3), {file.filePath(), m.captured(2)}};
    QString live = name;
    if (live.endsWith(QLatin1String(".gz")))
        live.chop(3);
    return {dir + u'/' + live, {file.filePath(), QString()}};
}

} // namespace

std::vector<AuditLogGroup> AuditLogFiles::expand(const QStringList& paths, QString* error) {
    std::map<QString, std::vector<Member>> logs; // by folder + live name
    std::vector<QString> order;                  // logs in the order the paths name them
    auto add = [&](const QFileInfo& file) {
        auto [log, member] = classify(file);
        auto& members = logs[log];
        if (members.empty())
            order.push_back(log);
        if (std::none_of(members.begin(), members.end(),
                         [&](const Member& m) { return m.path == member.path; }))
            members.push_back(member);
    };
    for (const QString& path : paths) {
        const QFileInfo info(path);
        if (!info.exists()) {
            *error = QStringLiteral("--audit-log: %1: no such file or directory").arg(path);
            return {};
        }
        if (info.isDir()) {
            const QFileInfoList files =
                QDir(path).entryInfoList(QDir::Files | QDir::Readable, QDir::Name);
            if (files.isEmpty()) {
                *error =
                    QStringLiteral("--audit-log: %1: no audit log files in this folder").arg(path);
                return {};
            }
            for (const QFileInfo& f : files)
                add(f);
        } else {
            add(info);
        }
    }
    std::vector<AuditLogGroup> groups;
    QStringList names;
    for (const QString& log : order) {
        auto& members = logs[log];
        // Stamps sort as text (fixed width); the live file ("") goes after every backup.
        std::stable_sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
            if (a.stamp.isEmpty() != b.stamp.isEmpty())
                return b.stamp.isEmpty();
            return a.stamp < b.stamp;
        });
        AuditLogGroup g;
        for (const Member& m : members)
            g.files << m.path;
        g.apiserver = QFileInfo(log).fileName();
        groups.push_back(g);
        names << g.apiserver;
    }
    // Two logs of one name (master-1/audit.log, master-2/audit.log): named with their folder.
    for (std::size_t i = 0; i < groups.size(); ++i)
        if (names.count(groups[i].apiserver) > 1) {
            const QFileInfo log(order[i]);
            groups[i].apiserver = QFileInfo(log.absolutePath()).fileName() + u'/' + log.fileName();
        }
    return groups;
}

} // namespace ws
