#pragma once

#include <string>

namespace ws {

class ApiHandler;
class ServedCluster;

// /metrics of the served apiserver: the watch-cache metrics of reference §4/§9 under their
// real names, labelled {resource} up to 1.33 and {group,resource} from 1.34, from the
// simulated caches' state.
class ServeMetrics {
public:
    ServeMetrics(ServedCluster& cluster, const ApiHandler& handler);
    std::string render() const;

private:
    ServedCluster& m_cluster;
    const ApiHandler& m_handler;
};

} // namespace ws
