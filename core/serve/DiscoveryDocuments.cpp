#include "DiscoveryDocuments.h"

#include "util/JsonText.h"

namespace ws {

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
    std::string gv;
    for (const ResourceInfo& r : m_resources)
        if (r.group == name) {
            gv = r.groupVersion().toStdString();
            break;
        }
    std::string out = R"({"name":)";
    appendJsonString(out, name);
    out += R"(,"versions":[{"groupVersion":)";
    appendJsonString(out, std::string_view(gv));
    out += R"(,"version":"v1"}],"preferredVersion":{"groupVersion":)";
    appendJsonString(out, std::string_view(gv));
    out += R"(,"version":"v1"}})";
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
        out += R"(,"verbs":["create","delete","get","list","update","watch"])";
        if (!r.shortNames.isEmpty()) {
            out += R"(,"shortNames":[)";
            for (qsizetype i = 0; i < r.shortNames.size(); ++i) {
                if (i)
                    out += ',';
                appendJsonString(out, r.shortNames[i]);
            }
            out += ']';
        }
        out += '}';
    }
    out += "]}";
    // The core group always exists, even with nothing served in it.
    if (groupVersion == QLatin1String("v1"))
        *found = true;
    return out;
}

} // namespace ws
