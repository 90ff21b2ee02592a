#pragma once

#include "engine/SourceSpec.h"
#include "http/HttpCredentials.h"
#include "kubeconfig/ClusterTarget.h"

#include <memory>

#include <optional>
#include <vector>

namespace ws {

// The apiservers a cluster source spec names: the kubeconfig context's server, or each
// --server URL reached with the context's credentials (when a kubeconfig is given) or none.
// nullopt and one line on a bad kubeconfig, an unknown context or a URL that is not http(s).
std::optional<std::vector<ClusterTarget>> resolveClusterTargets(const SourceSpec& spec,
                                                                QString* error);

class ExecCredentialRunner;

// How the transport to `target` gets a credential plugin's credential: its oidc auth-provider,
// or its exec plugin through `runner` (shared by the targets of one source so a plugin runs
// once). Empty when neither applies.
CredentialProvider credentialProviderFor(const ClusterTarget& target,
                                         std::shared_ptr<ExecCredentialRunner> runner);

} // namespace ws
