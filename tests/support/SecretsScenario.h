#pragma once

// A small scenario for `watchscope-cli serve` that serves Secrets (the built-in ones serve
// none): tests write Secrets with marked values into it and look for them in what WatchScope
// shows and writes.

#include <QFile>
#include <QString>

namespace ws::test {

// Written as `dir`/secrets-served.yaml; its path, or empty when it cannot be written.
inline QString writeSecretsScenario(const QString& dir) {
    const QString path = dir + QStringLiteral("/secrets-served.yaml");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write("name: secrets-served\n"
            "description: Secrets and configmaps, written slowly\n"
            "duration: 10m\n"
            "seed: 1\n"
            "explanation: |\n"
            "  A cluster with Secrets, for the tests that look for their values.\n"
            "etcd:\n  version: 3.5.13\n"
            "server:\n  version: \"1.30\"\n"
            "resources:\n"
            "  - name: configmaps\n    objects: 20\n    writesPerSecond: 5\n    valueBytes: 200\n"
            "  - name: secrets\n    objects: 5\n    writesPerSecond: 1\n    valueBytes: 200\n"
            "clients:\n"
            "  - name: informer-secrets\n    resource: secrets\n    count: 1\n"
            "    clientGo: current\n");
    return f.error() == QFile::NoError ? path : QString();
}

} // namespace ws::test
