#pragma once

#include "kube/ResourceCatalog.h"
#include "kube/ServerProfile.h"

#include <string>
#include <vector>

namespace ws {

// The discovery documents of a kube-apiserver for the served resources: the legacy ones
// (/version, /api, /apis, /api/v1, /apis/<group>, /apis/<group>/<version>) and the aggregated
// APIGroupDiscoveryList of /api and /apis (apidiscovery.k8s.io v2beta1 1.27-1.32, v2 from 1.30)
// for a client whose Accept asks for it (kubectl 1.30+ and client-go's discovery client do).
class DiscoveryDocuments {
public:
    // The aggregated document an Accept header asks for and this version serves: its
    // apidiscovery.k8s.io version ("v2", "v2beta1"), or empty (the legacy document).
    std::string aggregatedVersionFor(std::string_view accept) const;
    // /api (core) or /apis as an APIGroupDiscoveryList of that version.
    std::string aggregated(bool core, const std::string& version) const;
    static std::string aggregatedContentType(const std::string& version) {
        return "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList";
    }

    DiscoveryDocuments(std::vector<ResourceInfo> resources, ServerProfile profile,
                       std::string serverAddress);

    void setServerAddress(std::string address) { m_address = std::move(address); }
    std::string version() const;
    std::string coreVersions() const; // /api
    std::string groups() const;       // /apis
    std::string resourceList(const QString& groupVersion, bool* found) const;
    std::string group(const QString& name, bool* found) const; // /apis/<group>
    // A resource's storageVersionHash in its discovery entry (its own group-version: the
    // storage version of every built-in resource served).
    static std::string storageVersionHash(const ResourceInfo& r);

private:
    std::vector<QString> groupNames() const;
    std::string groupJson(const QString& name) const;

    std::vector<ResourceInfo> m_resources;
    ServerProfile m_profile;
    std::string m_address;
};

} // namespace ws
