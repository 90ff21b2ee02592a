#include "DiscoveryDocuments.h"

#include "util/JsonText.h"

#include <QCryptographicHash>

namespace ws {

namespace {
void appendStringArray(std::string& out, const QStringList& values) {
    out += '[';
    for (qsizetype i = 0; i < values.size(); ++i) {
        if (i)
            out += ',';
        appendJsonString(out, values[i]);
    }
    out += ']';
}
// The verbs serve serves, then shortNames and categories where the resource has them: the same
// members, in this order, in a legacy APIResource and an aggregated APIResourceDiscovery.
void appendVerbsAndNames(std::string& out, const ResourceInfo& r) {
    out += R"(,"verbs":["create","delete","get","list","update","watch"])";
    if (!r.shortNames.isEmpty()) {
        out += R"(,"shortNames":)";
        appendStringArray(out, r.shortNames);
    }
    if (!r.categories.isEmpty()) {
        out += R"(,"categories":)";
        appendStringArray(out, r.categories);
    }
}
} // namespace

std::string DiscoveryDocuments::aggregatedVersionFor(std::string_view accept) const {
    // AggregatedDiscoveryEndpoint: beta (on) from 1.27 with v2beta1, v2 from 1.30, v2beta1 off
    // from 1.33 (discovery/aggregated/wrapper.go, negotiation.go). The first media range that
    // asks for a served one wins, as the negotiation takes them in order.
    const int minor = m_profile.minor;
    std::size_t at = 0;
    while (at <= accept.size()) {
        std::size_t end = accept.find(',', at);
        if (end == std::string_view::npos)
            end = accept.size();
        const std::string_view range = accept.substr(at, end - at);
        at = end + 1;
        if (range.find("as=APIGroupDiscoveryList") == std::string_view::npos ||
            range.find("g=apidiscovery.k8s.io") == std::string_view::npos)
            continue;
        if (range.find("v=v2beta1") != std::string_view::npos) {
            if (minor >= 27 && minor <= 32)
                return "v2beta1";
        } else if (range.find("v=v2") != std::string_view::npos && minor >= 30) {
            return "v2";
        }
    }
    return {};
}

std::string DiscoveryDocuments::aggregated(bool core, const std::string& version) const {
    std::string out = R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/)";
    out += version;
    out += R"(","metadata":{},"items":[)";
    std::vector<QString> groups;
    if (core)
        groups.push_back(QString());
    else
        groups = groupNames();
    bool firstGroup = true;
    for (const QString& g : groups) {
        if (!firstGroup)
            out += ',';
        firstGroup = false;
        // The core group's empty name is left out (omitempty), as the real 1.33 and 1.35 do.
        std::string metadata;
        if (!g.isEmpty()) {
            metadata += R"("name":)";
            appendJsonString(metadata, g);
        }
        if (m_profile.writesZeroCreationTimestamp())
            metadata += std::string(metadata.empty() ? "" : ",") + R"("creationTimestamp":null)";
        out += R"({"metadata":{)" + metadata + R"(},"versions":[{"version":)";
        std::string groupVersion;
        bool firstResource = true;
        for (const ResourceInfo& r : m_resources) {
            if (r.group != g)
                continue;
            if (firstResource) {
                appendJsonString(out, r.version);
                out += R"(,"resources":[)";
                groupVersion = r.version.toStdString();
            } else {
                out += ',';
            }
            firstResource = false;
            out += R"({"resource":)";
            appendJsonString(out, r.plural);
            // The APIResource's own group and version, which discovery leaves empty for a
            // resource of its group-version (as the real 1.33 and 1.35 write it).
            out += R"(,"responseKind":{"group":"","version":"","kind":)";
            appendJsonString(out, r.kind);
            out += R"(},"scope":)";
            out += r.namespaced ? R"("Namespaced")" : R"("Cluster")";
            out += R"(,"singularResource":)";
            appendJsonString(out, r.singular);
            appendVerbsAndNames(out, r);
            out += '}';
        }
        if (firstResource)
            out += R"("v1")"; // the core group with nothing served in it
        else
            out += ']';
        out += R"(,"freshness":"Current"}]})";
    }
    out += "]}";
    return out;
}

std::string DiscoveryDocuments::storageVersionHash(const ResourceInfo& r) {
    // apiserver's discovery.StorageVersionHash: the first 8 bytes of the SHA-256 of
    // "<group>/<version>/<kind>" of the storage version, base64.
    const QByteArray gvk = (r.group + u'/' + r.version + u'/' + r.kind).toUtf8();
    return QCryptographicHash::hash(gvk, QCryptographicHash::Sha256)
        .left(8)
        .toBase64()
        .toStdString();
}

DiscoveryDocuments::DiscoveryDocuments(std::vector<ResourceInfo> resources, ServerProfile profile,
                                       std::string serverAddress)
    : m_resources(std::move(resources)), m_profile(std::move(profile)),
      m_address(std::move(serverAddress)) {}

std::string DiscoveryDocuments::version() const {
    const std::string minor = std::to_string(m_profile.minor);
    const std::string git = "v1." + minor + "." + std::to_string(m_profile.patch);
    return R"({"major":"1","minor":")" + minor + R"(","gitVersion":")" + git +
           R"(","gitCommit":"0000000000000000000000000000000000000000","gitTreeState":"clean",)"
           R"("buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.22.0","compiler":"gc",)"
           R"("platform":"linux/amd64"})";
}

std::string DiscoveryDocuments::coreVersions() const {
    std::string out =
        R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":)";
    appendJsonString(out, std::string_view(m_address));
    out += "}]}";
    return out;
}

std::vector<QString> DiscoveryDocuments::groupNames() const {
    std::vector<QString> names;
    for (const ResourceInfo& r : m_resources)
        if (!r.group.isEmpty() && std::find(names.begin(), names.end(), r.group) == names.end())
            names.push_back(r.group);
    return names;
}

std::string DiscoveryDocuments::groupJson(const QString& name) const {
    std::string gv, version;
    for (const ResourceInfo& r : m_resources)
        if (r.group == name) {
            gv = r.groupVersion().toStdString();
            version = r.version.toStdString();
            break;
        }
    std::string out = R"({"name":)";
    appendJsonString(out, name);
    out += R"(,"versions":[{"groupVersion":)";
    appendJsonString(out, std::string_view(gv));
    out += R"(,"version":)";
    appendJsonString(out, std::string_view(version));
    out += R"(}],"preferredVersion":{"groupVersion":)";
    appendJsonString(out, std::string_view(gv));
    out += R"(,"version":)";
    appendJsonString(out, std::string_view(version));
    out += "}}";
    return out;
}

std::string DiscoveryDocuments::groups() const {
    std::string out = R"({"kind":"APIGroupList","apiVersion":"v1","groups":[)";
    bool first = true;
    for (const QString& g : groupNames()) {
        if (!first)
            out += ',';
        first = false;
        out += groupJson(g);
    }
    out += "]}";
    return out;
}

std::string DiscoveryDocuments::group(const QString& name, bool* found) const {
    const auto names = groupNames();
    *found = std::find(names.begin(), names.end(), name) != names.end();
    if (!*found)
        return {};
    return R"({"kind":"APIGroup","apiVersion":"v1",)" + groupJson(name).substr(1);
}

std::string DiscoveryDocuments::resourceList(const QString& groupVersion, bool* found) const {
    std::string out = R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":)";
    appendJsonString(out, groupVersion);
    out += R"(,"resources":[)";
    *found = false;
    for (const ResourceInfo& r : m_resources) {
        if (r.groupVersion() != groupVersion)
            continue;
        if (*found)
            out += ',';
        *found = true;
        out += R"({"name":)";
        appendJsonString(out, r.plural);
        out += R"(,"singularName":)";
        appendJsonString(out, r.singular);
        out += R"(,"namespaced":)";
        out += r.namespaced ? "true" : "false";
        out += R"(,"kind":)";
        appendJsonString(out, r.kind);
        appendVerbsAndNames(out, r);
        out += R"(,"storageVersionHash":)";
        appendJsonString(out, std::string_view(storageVersionHash(r)));
        out += '}';
    }
    out += "]}";
    // The core group always exists, even with nothing served in it.
    if (groupVersion == QLatin1String("v1"))
        *found = true;
    return out;
}

} // namespace ws
