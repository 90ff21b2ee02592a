#pragma once

#include "kube/ResourceCatalog.h"
#include "kube/ServerProfile.h"

#include <string>
#include <vector>

namespace ws {

// The legacy discovery documents of a kube-apiserver (/version, /api, /apis, /api/v1,
// /apis/<group>, /apis/<group>/<version>) for the served resources. Clients that ask for
// aggregated discovery (apidiscovery.k8s.io/v2) get these with plain application/json and fall
// back to reading them, as they do against servers before 1.26.
class DiscoveryDocuments {
public:
    DiscoveryDocuments(std::vector<ResourceInfo> resources, ServerProfile profile,
                       std::string serverAddress);

    void setServerAddress(std::string address) { m_address = std::move(address); }
    std::string version() const;
    std::string coreVersions() const; // /api
    std::string groups() const;       // /apis
    std::string resourceList(const QString& groupVersion, bool* found) const;
    std::string group(const QString& name, bool* found) const; // /apis/<group>

private:
    std::vector<QString> groupNames() const;
    std::string groupJson(const QString& name) const;

    std::vector<ResourceInfo> m_resources;
    ServerProfile m_profile;
    std::string m_address;
};

} // namespace ws
