#pragma once

// A kubeconfig for kubectl against a plain-HTTP `watchscope-cli serve`: one cluster, one context,
// a user without credentials.

#include <QFile>
#include <QString>

namespace ws::test {

// Written to `path`; the path, or empty when it cannot be written.
inline QString writeServedKubeconfig(const QString& path, const QString& url) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: served\n"
                           "  cluster:\n    server: %1\ncontexts:\n- name: served\n"
                           "  context:\n    cluster: served\n    user: tester\n"
                           "current-context: served\nusers:\n- name: tester\n  user: {}\n")
                .arg(url)
                .toUtf8());
    return path;
}

} // namespace ws::test
