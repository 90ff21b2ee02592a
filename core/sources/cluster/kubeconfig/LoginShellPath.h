#pragma once

#include <QString>
#include <QStringList>
#include <mutex>
#include <optional>

namespace ws {

// Finds an exec plugin's command as a shell would. A program started from a desktop menu gets
// the session's PATH, which often lacks what the login shell adds (~/.local/bin, /usr/local/bin,
// the gcloud SDK, the AWS CLI): a command not on PATH is looked up on the PATH that `$SHELL -lc`
// prints, asked once per lookup object and kept.
class LoginShellPath {
public:
    struct Found {
        QString program;            // absolute path
        QStringList loginShellDirs; // non-empty: found only there; the plugin's PATH gets these
    };

    // The command on `path` (a ':'-separated PATH, normally this process's), then on the login
    // shell's. nullopt when neither has it.
    std::optional<Found> find(const QString& command, const QString& path);
    // The login shell's PATH entries ($SHELL, else /bin/sh, run as `-lc`), empty when it cannot be
    // asked; the shell gets a few seconds.
    QStringList loginShellDirs();

    // The one a process uses, so the shell is asked once.
    static LoginShellPath& shared();

private:
    std::mutex m_mutex;
    std::optional<QStringList> m_dirs;
};

} // namespace ws
