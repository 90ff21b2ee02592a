#include "LoginShellPath.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>

namespace ws {

namespace {

constexpr int kShellTimeoutMs = 5000;
// Printed around the PATH: a login shell's profile may print its own text on stdout.
const QByteArray kMarker = QByteArrayLiteral("__watchscope_path__");

} // namespace

LoginShellPath& LoginShellPath::shared() {
    static LoginShellPath lookup;
    return lookup;
}

QStringList LoginShellPath::loginShellDirs() {
    std::lock_guard lock(m_mutex);
    if (m_dirs)
        return *m_dirs;
    m_dirs = QStringList();
    QString shell = qEnvironmentVariable("SHELL");
    if (shell.isEmpty())
        shell = QStringLiteral("/bin/sh");
    QProcess p;
    p.setProgram(shell);
    p.setArguments({QStringLiteral("-lc"),
                    QStringLiteral("printf '%1%s%1' \"$PATH\"").arg(QLatin1String(kMarker))});
    p.setStandardInputFile(QProcess::nullDevice());
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start();
    if (!p.waitForStarted(kShellTimeoutMs))
        return *m_dirs;
    if (!p.waitForFinished(kShellTimeoutMs)) {
        p.kill();
        p.waitForFinished(1000);
        return *m_dirs;
    }
    const QByteArray out = p.readAllStandardOutput();
    const qsizetype begin = out.indexOf(kMarker);
    const qsizetype end = begin < 0 ? -1 : out.indexOf(kMarker, begin + kMarker.size());
    if (end < 0)
        return *m_dirs;
    const QString path =
        QString::fromLocal8Bit(out.mid(begin + kMarker.size(), end - begin - kMarker.size()));
    for (const QString& dir : path.split(u':', Qt::SkipEmptyParts))
        if (!m_dirs->contains(dir))
            *m_dirs << dir;
    return *m_dirs;
}

std::optional<LoginShellPath::Found> LoginShellPath::find(const QString& command,
                                                          const QString& path) {
    const QStringList own = path.split(u':', Qt::SkipEmptyParts);
    if (const QString found = QStandardPaths::findExecutable(command, own); !found.isEmpty())
        return Found{found, {}};
    QStringList extra;
    for (const QString& dir : loginShellDirs())
        if (!own.contains(dir))
            extra << dir;
    if (extra.isEmpty())
        return std::nullopt;
    if (const QString found = QStandardPaths::findExecutable(command, extra); !found.isEmpty())
        return Found{found, extra};
    return std::nullopt;
}

} // namespace ws
