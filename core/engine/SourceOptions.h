#pragma once

#include "SourceSpec.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <optional>

namespace ws {

// SPEC §1's SOURCE options, parsed and validated once for both programs: the GUI and the CLI
// add them to their parser, and turn what was given into a SourceSpec with the same rules and
// the same one-line errors.
//   --scenario NAME|FILE.yaml  --speed X|max  --seed N
//   --etcd URL[,URL...]  --prefix P  --cacert F  --cert F  --key F
//   --kubeconfig PATH  --context NAME  --server URL (repeatable)  --client-go V
//   --wire json|protobuf  --namespace NS
//   --audit-log PATH[,PATH...]  --follow
//   --resources LIST  --duration D
class SourceOptions {
public:
    explicit SourceOptions(QCommandLineParser& parser);

    // How many different sources the command line names (--scenario, --etcd, ...).
    int sourcesGiven() const;
    // The source the command line describes, after parser.parse(). With none given: the
    // `healthy` scenario when scenarioByDefault, else an error. nullopt and one clear line in
    // *error on bad input.
    std::optional<SourceSpec> spec(bool scenarioByDefault, QString* error) const;

private:
    const QCommandLineParser& m_parser;
    QCommandLineOption m_scenario, m_speed, m_seed;
    QCommandLineOption m_etcd, m_prefix, m_cacert, m_cert, m_key;
    QCommandLineOption m_kubeconfig, m_context, m_server, m_clientGo, m_minWatchTimeout, m_wire,
        m_namespace;
    QCommandLineOption m_auditLog, m_follow;
    QCommandLineOption m_resources, m_duration;
    QCommandLineOption m_keepSecrets;
};

} // namespace ws
