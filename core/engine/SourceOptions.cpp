#include "SourceOptions.h"

#include "util/Duration.h"

namespace ws {

namespace {

QStringList commaList(const QStringList& values) {
    QStringList out;
    for (const QString& v : values)
        out += v.split(QLatin1Char(','), Qt::SkipEmptyParts);
    return out;
}

} // namespace

SourceOptions::SourceOptions(QCommandLineParser& parser)
    : m_parser(parser),
      m_scenario(QStringLiteral("scenario"),
                 QStringLiteral("Simulator scenario: a built-in name or a .yaml file (default "
                                "healthy)."),
                 QStringLiteral("NAME")),
      m_speed(QStringLiteral("speed"),
              QStringLiteral("Simulator speed factor, or max (default 1)."), QStringLiteral("X")),
      m_seed(QStringLiteral("seed"),
             QStringLiteral("Simulator random seed (default: the scenario's)."),
             QStringLiteral("N")),
      m_etcd(QStringLiteral("etcd"), QStringLiteral("etcd endpoints."),
             QStringLiteral("URL[,URL...]")),
      m_prefix(QStringLiteral("prefix"), QStringLiteral("etcd key prefix (default /registry/)."),
               QStringLiteral("PREFIX")),
      m_cacert(QStringLiteral("cacert"), QStringLiteral("etcd CA bundle (PEM)."),
               QStringLiteral("FILE")),
      m_cert(QStringLiteral("cert"), QStringLiteral("etcd client certificate (PEM)."),
             QStringLiteral("FILE")),
      m_key(QStringLiteral("key"), QStringLiteral("etcd client key (PEM)."),
            QStringLiteral("FILE")),
      m_kubeconfig(QStringLiteral("kubeconfig"), QStringLiteral("kubeconfig file."),
                   QStringLiteral("PATH")),
      m_context(QStringLiteral("context"), QStringLiteral("kubeconfig context."),
                QStringLiteral("NAME")),
      m_server(QStringLiteral("server"), QStringLiteral("kube-apiserver URL (repeatable)."),
               QStringLiteral("URL")),
      m_clientGo(QStringLiteral("client-go"), QStringLiteral("client-go behaviour to follow."),
                 QStringLiteral("V")),
      m_minWatchTimeout(QStringLiteral("min-watch-timeout"),
                        QStringLiteral("Each watch asks for a timeout in [D, 2D) (default 5m)."),
                        QStringLiteral("D")),
      m_wire(QStringLiteral("wire"),
             QStringLiteral("List and watch encoding of built-in resources (default: as the "
                            "client-go release's typed clients ask, protobuf from 0.32)."),
             QStringLiteral("json|protobuf")),
      m_namespace(QStringLiteral("namespace"),
                  QStringLiteral("List and watch namespaced resources in this namespace only, as "
                                 "kubectl -n (cluster-scoped ones are left out)."),
                  QStringLiteral("NS")),
      m_auditLog(QStringLiteral("audit-log"), QStringLiteral("kube-apiserver audit logs."),
                 QStringLiteral("PATH[,PATH...]")),
      m_follow(QStringLiteral("follow"), QStringLiteral("Keep reading a growing audit log.")),
      m_resources(QStringLiteral("resources"),
                  QStringLiteral("Plural resource names to show, comma-separated (default: all)."),
                  QStringLiteral("LIST")),
      m_duration(QStringLiteral("duration"),
                 QStringLiteral("How long to run (500ms, 30s, 5m); scenarios: virtual time."),
                 QStringLiteral("D")),
      m_keepSecrets(QStringLiteral("keep-secrets"),
                    QStringLiteral("Keep the values of Secrets as received, in the session and "
                                   "its capture (default: replaced by salted digests).")) {
    parser.addOptions(
        {m_scenario,  m_speed,      m_seed,    m_etcd,      m_prefix,   m_cacert,          m_cert,
         m_key,       m_kubeconfig, m_context, m_server,    m_clientGo, m_minWatchTimeout, m_wire,
         m_namespace, m_auditLog,   m_follow,  m_resources, m_duration, m_keepSecrets});
}

int SourceOptions::sourcesGiven() const {
    return int(m_parser.isSet(m_scenario)) + int(m_parser.isSet(m_etcd)) +
           // --kubeconfig with --server: the kubeconfig's credentials for those apiservers.
           int(m_parser.isSet(m_kubeconfig) && !m_parser.isSet(m_server)) +
           int(m_parser.isSet(m_server)) + int(m_parser.isSet(m_auditLog));
}

std::optional<SourceSpec> SourceOptions::spec(bool scenarioByDefault, QString* error) const {
    const int given = sourcesGiven();
    if (given > 1 || (given == 0 && !scenarioByDefault)) {
        *error = QStringLiteral("give exactly one source: --scenario NAME, --etcd URLS, "
                                "--kubeconfig PATH, --server URL or --audit-log PATH");
        return std::nullopt;
    }
    SourceSpec s;
    if (m_parser.isSet(m_etcd))
        s.kind = SourceSpec::Kind::Etcd;
    else if (m_parser.isSet(m_server))
        s.kind = SourceSpec::Kind::Server;
    else if (m_parser.isSet(m_kubeconfig))
        s.kind = SourceSpec::Kind::Kubeconfig;
    else if (m_parser.isSet(m_auditLog))
        s.kind = SourceSpec::Kind::AuditLog;

    // Options that belong to one kind of source are an error with another: silently ignoring
    // --prefix on a scenario would show something other than what was asked for.
    auto onlyWith = [&](const QCommandLineOption& o, SourceSpec::Kind kind, const char* what) {
        if (m_parser.isSet(o) && s.kind != kind) {
            *error = QStringLiteral("--%1 only applies to %2")
                         .arg(o.names().constFirst(), QLatin1String(what));
            return false;
        }
        return true;
    };
    if (!onlyWith(m_speed, SourceSpec::Kind::Scenario, "--scenario") ||
        !onlyWith(m_seed, SourceSpec::Kind::Scenario, "--scenario") ||
        !onlyWith(m_prefix, SourceSpec::Kind::Etcd, "--etcd") ||
        !onlyWith(m_cacert, SourceSpec::Kind::Etcd, "--etcd") ||
        !onlyWith(m_cert, SourceSpec::Kind::Etcd, "--etcd") ||
        !onlyWith(m_key, SourceSpec::Kind::Etcd, "--etcd") ||
        (s.kind != SourceSpec::Kind::Server &&
         !onlyWith(m_context, SourceSpec::Kind::Kubeconfig, "--kubeconfig")) ||
        !onlyWith(m_follow, SourceSpec::Kind::AuditLog, "--audit-log"))
        return std::nullopt;
    if (m_parser.isSet(m_clientGo) && s.kind != SourceSpec::Kind::Kubeconfig &&
        s.kind != SourceSpec::Kind::Server) {
        *error = QStringLiteral("--client-go only applies to --kubeconfig and --server");
        return std::nullopt;
    }
    if (m_parser.isSet(m_minWatchTimeout)) {
        if (s.kind != SourceSpec::Kind::Kubeconfig && s.kind != SourceSpec::Kind::Server) {
            *error =
                QStringLiteral("--min-watch-timeout only applies to --kubeconfig and --server");
            return std::nullopt;
        }
        QString why;
        const auto d = parseDuration(m_parser.value(m_minWatchTimeout), &why);
        if (!d || *d < seconds(1)) {
            *error =
                QStringLiteral("--min-watch-timeout: %1")
                    .arg(d ? QStringLiteral("at least 1s (a watch asks for whole seconds)") : why);
            return std::nullopt;
        }
        s.minWatchTimeout = d;
    }

    if (m_parser.isSet(m_wire)) {
        if (s.kind != SourceSpec::Kind::Kubeconfig && s.kind != SourceSpec::Kind::Server) {
            *error = QStringLiteral("--wire only applies to --kubeconfig and --server");
            return std::nullopt;
        }
        const QString v = m_parser.value(m_wire);
        if (v != QLatin1String("json") && v != QLatin1String("protobuf")) {
            *error = QStringLiteral("--wire: bad value '%1': expected json or protobuf").arg(v);
            return std::nullopt;
        }
        s.protobufWire = v == QLatin1String("protobuf");
    }

    if (m_parser.isSet(m_namespace)) {
        if (s.kind != SourceSpec::Kind::Kubeconfig && s.kind != SourceSpec::Kind::Server) {
            *error = QStringLiteral("--namespace only applies to --kubeconfig and --server");
            return std::nullopt;
        }
        const QString ns = m_parser.value(m_namespace);
        if (const QString problem = SourceSpec::namespaceProblem(ns); !problem.isEmpty()) {
            *error = QStringLiteral("--namespace: %1").arg(problem);
            return std::nullopt;
        }
        s.namespaceScope = ns;
    }

    if (m_parser.isSet(m_duration)) {
        QString why;
        const auto d = parseDuration(m_parser.value(m_duration), &why);
        if (!d || *d <= 0) {
            *error =
                QStringLiteral("--duration: %1").arg(d ? QStringLiteral("must be positive") : why);
            return std::nullopt;
        }
        s.duration = *d;
    }
    s.keepSecrets = m_parser.isSet(m_keepSecrets);
    if (s.keepSecrets && s.kind == SourceSpec::Kind::Scenario) {
        *error = QStringLiteral("--keep-secrets applies to --etcd, --kubeconfig and --server (a "
                                "scenario has no secret values)");
        return std::nullopt;
    }
    s.resources = commaList(m_parser.values(m_resources));
    if (m_parser.isSet(m_resources) && s.resources.isEmpty()) {
        *error = QStringLiteral("--resources: give at least one plural resource name");
        return std::nullopt;
    }

    switch (s.kind) {
    case SourceSpec::Kind::Scenario: {
        if (m_parser.isSet(m_scenario))
            s.scenario.scenario = m_parser.value(m_scenario);
        if (m_parser.isSet(m_speed)) {
            const QString v = m_parser.value(m_speed);
            bool ok = false;
            const double x = v == QLatin1String("max") ? 0.0 : v.toDouble(&ok);
            if (v != QLatin1String("max") && (!ok || !(x > 0) || x > 1e6)) {
                *error =
                    QStringLiteral("--speed: bad value '%1': expected a positive number or 'max'")
                        .arg(v);
                return std::nullopt;
            }
            s.scenario.speed = x;
        }
        if (m_parser.isSet(m_seed)) {
            bool ok = false;
            const qulonglong seed = m_parser.value(m_seed).toULongLong(&ok);
            if (!ok) {
                *error = QStringLiteral("--seed: bad value '%1': expected a non-negative integer")
                             .arg(m_parser.value(m_seed));
                return std::nullopt;
            }
            s.scenario.seed = seed;
        }
        break;
    }
    case SourceSpec::Kind::Etcd:
        s.etcd.endpoints = commaList(m_parser.values(m_etcd));
        if (s.etcd.endpoints.isEmpty()) {
            *error = QStringLiteral("--etcd: give at least one endpoint URL");
            return std::nullopt;
        }
        if (m_parser.isSet(m_prefix))
            s.etcd.prefix = m_parser.value(m_prefix);
        s.etcd.keepSecrets = s.keepSecrets;
        if (s.etcd.prefix.isEmpty())
            s.etcd.prefix = QStringLiteral("/registry/");
        s.etcd.caFile = m_parser.value(m_cacert);
        s.etcd.certFile = m_parser.value(m_cert);
        s.etcd.keyFile = m_parser.value(m_key);
        if (s.etcd.certFile.isEmpty() != s.etcd.keyFile.isEmpty()) {
            *error =
                QStringLiteral("--cert and --key go together (a client certificate and its key)");
            return std::nullopt;
        }
        break;
    case SourceSpec::Kind::Kubeconfig:
        s.kubeconfig = m_parser.value(m_kubeconfig);
        s.context = m_parser.value(m_context);
        s.clientGo = m_parser.value(m_clientGo);
        break;
    case SourceSpec::Kind::Server:
        s.servers = commaList(m_parser.values(m_server));
        s.clientGo = m_parser.value(m_clientGo);
        s.kubeconfig = m_parser.value(m_kubeconfig);
        s.context = m_parser.value(m_context);
        break;
    case SourceSpec::Kind::AuditLog:
        s.auditLogs = commaList(m_parser.values(m_auditLog));
        s.follow = m_parser.isSet(m_follow);
        break;
    case SourceSpec::Kind::Capture:
        break; // never from these options: `export FILE` and `--open FILE` name a capture
    }
    return s;
}

} // namespace ws
