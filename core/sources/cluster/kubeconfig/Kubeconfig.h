#pragma once

#include "ClusterTarget.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <optional>

namespace YAML {
class Node;
}

namespace ws {

// A kubeconfig as kubectl reads it (client-go clientcmd): the files of KUBECONFIG (or
// ~/.kube/config, or one explicit file) merged — for clusters, contexts and users the first file
// that names one wins, and so does the first current-context — with relative paths resolved
// against the file that holds them. target() resolves a context into a ClusterTarget. Errors
// are one line naming the file and what is wrong, never a secret.
class Kubeconfig {
public:
    // explicitPath empty: $KUBECONFIG (':'-separated; missing files skipped), else
    // ~/.kube/config.
    static std::optional<Kubeconfig> load(const QString& explicitPath, QString* error);

    QStringList files() const { return m_files; }
    QStringList contextNames() const; // sorted
    QString currentContext() const { return m_currentContext; }
    QString contextNamespace(const QString& context) const;
    // context empty: current-context.
    std::optional<ClusterTarget> target(const QString& context, QString* error) const;

private:
    struct Entry {
        QString file; // where it was defined (relative paths resolve against its folder)
        QHash<QString, QString> fields;
        std::optional<ExecConfig> exec;
        QString authProvider;
    };
    bool addFile(const QString& path, QString* error);
    QString where() const;

    QStringList m_files;
    QString m_currentContext;
    QHash<QString, Entry> m_clusters;
    QHash<QString, Entry> m_contexts;
    QHash<QString, Entry> m_users;
};

} // namespace ws
