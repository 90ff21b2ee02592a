#pragma once

#include "ClusterTarget.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>
#include <optional>

namespace ws {

// A kubeconfig as kubectl reads it (client-go clientcmd): the files of KUBECONFIG (or
// ~/.kube/config, or one explicit file) merged — for clusters, contexts and users the first file
// that names one wins, and so does the first current-context — with relative paths resolved
// against the file that holds them. target() resolves a context into a ClusterTarget and
// applies clientcmd's validation (ConfirmUsable). Errors are one line naming the file and what is
// wrong, never a secret.
class Kubeconfig {
public:
    // explicitPath non-empty: that file only (--kubeconfig). Empty: $KUBECONFIG (':'-separated;
    // empty entries and missing files skipped, an error if none exists), else ~/.kube/config.
    static std::optional<Kubeconfig> load(const QString& explicitPath, QString* error);

    QStringList files() const { return m_files; } // the files merged, in priority order
    QStringList contextNames() const;             // sorted
    QString currentContext() const { return m_currentContext; }
    // The context's namespace, "default" when it sets none (or the context does not exist).
    QString contextNamespace(const QString& context) const;
    // context empty: current-context. Reads the CA / certificate / key files it names, so a
    // changed file is seen by the next call.
    std::optional<ClusterTarget> target(const QString& context, QString* error) const;

private:
    struct Entry {
        QString file; // where it was defined (relative paths resolve against its folder)
        QHash<QString, QString> fields;
        std::optional<ExecConfig> exec; // users
        Impersonation impersonate;      // users: as, as-uid, as-groups, as-user-extra
        QString authProvider;           // users
        QHash<QString, QString> authProviderConfig;
        QByteArray execExtension; // clusters: extensions[client.authentication.k8s.io/exec]
    };
    static std::optional<Kubeconfig> loadFiles(const QString& explicitPath, QString* error);
    std::optional<ClusterTarget> resolveContext(const QString& context, QString* error) const;
    bool addFile(const QString& path, QString* error);
    QString where() const;

    QStringList m_files;
    QString m_currentContext;
    QHash<QString, Entry> m_clusters;
    QHash<QString, Entry> m_contexts;
    QHash<QString, Entry> m_users;
};

} // namespace ws
