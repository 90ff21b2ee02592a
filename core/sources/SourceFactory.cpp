#include "SourceFactory.h"

#include "sources/audit/AuditSource.h"
#include "sources/capture/CaptureReplay.h"
#include "sources/cluster/ClusterSource.h"
#include "sources/etcd/EtcdSource.h"
#include "sources/sim/SimSource.h"

namespace ws {

std::vector<std::unique_ptr<Source>> SourceFactory::create(const SourceSpec& spec, QString* error) {
    std::vector<std::unique_ptr<Source>> sources;
    switch (spec.kind) {
    case SourceSpec::Kind::Scenario:
        sources.push_back(std::make_unique<SimSource>(spec.scenario, spec.duration));
        return sources;
    case SourceSpec::Kind::Etcd:
        sources.push_back(std::make_unique<EtcdSource>(spec.etcd, spec.duration));
        return sources;
    case SourceSpec::Kind::Kubeconfig:
    case SourceSpec::Kind::Server:
        sources.push_back(std::make_unique<ClusterSource>(spec));
        return sources;
    case SourceSpec::Kind::Capture:
        if (auto replay = CaptureReplay::create(spec, error))
            sources.push_back(std::move(replay));
        return sources;
    case SourceSpec::Kind::AuditLog:
        sources.push_back(std::make_unique<AuditSource>(spec));
        return sources;
    }
    return sources;
}

} // namespace ws
