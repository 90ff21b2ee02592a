#pragma once

#include <QString>
#include <optional>

namespace ws {

// The field selectors the served resources support (metadata.name, metadata.namespace,
// spec.nodeName): equality and inequality, comma-joined. spec.nodeName=node-N maps onto the
// simulator's selector group N, so the cacher filters it as it filters a kubelet's watch.
struct FieldSelector {
    QString name, notName;
    QString ns, notNs;
    int selectorGroup = -1; // spec.nodeName=node-N

    bool matches(const QString& objectNs, const QString& objectName) const {
        return (name.isEmpty() || name == objectName) &&
               (notName.isEmpty() || notName != objectName) && (ns.isEmpty() || ns == objectNs) &&
               (notNs.isEmpty() || notNs != objectNs);
    }
    bool filtersObjects() const {
        return !name.isEmpty() || !notName.isEmpty() || !ns.isEmpty() || !notNs.isEmpty();
    }
    // nullopt with *error for a field `resource` (plural) has no selector for, in that
    // resource's words: the resources with field labels of their own (pods' spec.nodeName,
    // events' involvedObject.*, ...) say "field label not supported: spec.x", the others
    // (configmaps, leases, ...) "\"spec.x\" is not a known field selector: only
    // \"metadata.name\", \"metadata.namespace\"".
    static std::optional<FieldSelector> parse(const QString& text, const QString& resource,
                                              QString* error);
};

} // namespace ws
