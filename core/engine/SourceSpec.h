#pragma once

#include "ReplayControl.h"
#include "model/ResourceVersion.h"
#include "scenario/ScenarioOverrides.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

namespace ws {

// What a source is, as a value: parsed once from either program's command line (SourceOptions),
// edited by the connection panel, turned into a Source by SourceFactory. Holds paths to
// credentials, never their contents.
struct ScenarioSourceSpec {
    QString scenario = QStringLiteral("healthy"); // built-in name or path to a .yaml file
    double speed = 1.0;                           // virtual seconds per wall second; 0: max
    std::optional<std::uint64_t> seed;            // default: the scenario's
};

struct EtcdSourceSpec {
    QStringList endpoints; // "http://127.0.0.1:2379", "127.0.0.1:2379" ...
    // Only keys under it are shown. "/registry/" (the default), "/" or "" watch the whole
    // keyspace, which sees every revision; a narrower prefix watches just that range.
    QString prefix = QStringLiteral("/registry/");
    QString caFile;   // TLS: PEM bundle
    QString certFile; // TLS: client certificate
    QString keyFile;  // TLS: client key
    // 0: list, then watch from the list revision + 1 (as kube-apiserver's cacher does).
    // >0: replay from this revision without a list (1: the whole retained history).
    ResourceVersion startRevision = 0;
    bool watchCache = true;   // run kube-apiserver's watch cache per resource over the stream
    bool keepSecrets = false; // SourceSpec::keepSecrets
    TimeUs statusInterval = milliseconds(100);
    bool tls() const { return !caFile.isEmpty() || !certFile.isEmpty() || !keyFile.isEmpty(); }
};

struct SourceSpec {
    enum class Kind { Scenario, Etcd, Kubeconfig, Server, AuditLog, Capture };
    Kind kind = Kind::Scenario;
    ScenarioSourceSpec scenario;
    EtcdSourceSpec etcd;
    QString kubeconfig;  // Kubeconfig
    QString context;     // Kubeconfig: empty = current-context
    QStringList servers; // Server: apiservers of one cluster
    QString clientGo;    // Kubeconfig / Server: client-go profile; empty = newest
    // Kubeconfig / Server: the reflectors' ReflectorOptions.MinWatchTimeout (each watch asks for
    // timeoutSeconds in [min, 2 min) and is cut off 5 s after it); default 5 min.
    std::optional<TimeUs> minWatchTimeout;
    // Kubeconfig / Server: --wire json|protobuf, whether lists and watches of built-in resources
    // ask for protobuf (ClientProfile::protobufWire); unset: as the client-go release asks
    // (protobuf from 0.32).
    std::optional<bool> protobufWire;
    // Kubeconfig / Server: --namespace, every LIST and WATCH of a namespaced resource in this
    // namespace (as kubectl -n), cluster-scoped resources left out; empty: the whole cluster.
    QString namespaceScope;
    QStringList auditLogs; // AuditLog
    bool follow = false;   // AuditLog: keep reading a growing file
    // Live sources: keep the values of Secrets as received (default: each becomes a salted
    // digest before anything decodes or captures it; docs/capture-format.md).
    bool keepSecrets = false;
    QString capture;         // Capture: the .wscap file replayed
    double captureSpeed = 0; // Capture: recorded seconds per wall second; 0: as fast as possible
    // Capture: when set, paces the replay instead of captureSpeed (play/pause, speed, seek from
    // another thread). Shared with whoever steers it.
    std::shared_ptr<ReplayControl> replayControl;
    ScenarioOverrides whatIf; // Capture: run under other versions (`whatif`)
    QStringList resources;    // plural names to show; empty: every one
    // Scenario: virtual time (default: the scenario's own length). Live: wall-clock time
    // (default: until stopped).
    std::optional<TimeUs> duration;

    // One line for titles and logs: "scenario healthy, speed 1x", "etcd http://…, prefix
    // /registry/".
    QString describe() const;
    static QString kindName(Kind kind);
    // Why `ns` cannot name a namespace (one line), or empty when it can: a DNS label, as a
    // namespace's name must be; anything else (a '/' or '?' would change a request's path) is
    // refused before it reaches a URL.
    static QString namespaceProblem(const QString& ns);
};

} // namespace ws
