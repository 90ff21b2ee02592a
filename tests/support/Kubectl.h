#pragma once

// The real kubectl against a plain-HTTP `watchscope-cli serve`: its kubeconfig (one cluster, one
// context, a user without credentials) and one run of it.

#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

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

struct KubectlRun {
    int exitCode = -1;
    QString out, err;
};

// `kubectl --kubeconfig <kubeconfig> <args>`; err says "timed out" when it did not finish.
inline KubectlRun runKubectl(const QString& kubectl, const QString& kubeconfig,
                             const QStringList& args, int timeoutMs = 30000) {
    QProcess p;
    p.setProgram(kubectl);
    p.setArguments(QStringList{QStringLiteral("--kubeconfig"), kubeconfig} + args);
    p.start();
    KubectlRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace ws::test
