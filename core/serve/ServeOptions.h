#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace ws {

// `watchscope-cli serve` as a value: what to serve, where, as which kube-apiserver version, and
// how clients must authenticate (SPEC §1). Holds paths to credentials, never their contents.
struct ServeOptions {
    QString scenario = QStringLiteral("healthy"); // built-in name or path to a .yaml file
    std::optional<std::uint64_t> seed;
    int apiserver = 0; // which of the scenario's apiservers this process is (HA: one per process)
    QString listenHost = QStringLiteral("127.0.0.1");
    quint16 listenPort = 0;   // 0: any free port (printed on stdout)
    QString serverVersion;    // empty: the scenario's
    QStringList featureGates; // "WatchList=true", ...
    QString etcdVersion;      // empty: the scenario's (consistent reads from cache need 3.5.13+)
    QString tlsCertFile;
    QString tlsKeyFile;
    QString clientCaFile; // client certificates signed by it authenticate
    QString tokenFile;    // kube-apiserver's static token file: token,user,uid,"group1,group2"
    // Authorization: empty, every authenticated user may do anything; else only members of
    // these groups (client certificate O=, token file groups), others get 403 as from RBAC.
    QStringList authorizeGroups;
    QString auditLogPath; // audit.k8s.io/v1 Events, Metadata level, one JSON line per stage
    // The store (the simulated etcd) kept in this directory: a serve started again with it goes
    // on from the same revision and objects, with fresh watch caches (StoreJournal).
    QString stateDir;
    std::optional<TimeUs> duration; // stop after; default: until interrupted
    double speed = 1.0;             // virtual seconds per wall second

    bool tls() const { return !tlsCertFile.isEmpty(); }
    bool authenticates() const { return !clientCaFile.isEmpty() || !tokenFile.isEmpty(); }
    // One line when serving beyond loopback leaves the data open to the network (no TLS, or
    // no authentication), else empty. listenHost must be an IP address.
    QString exposureWarning() const;
};

} // namespace ws
