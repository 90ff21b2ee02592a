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
    // nullopt with *error ("field label not supported: status.phase") for what it cannot do.
    static std::optional<FieldSelector> parse(const QString& text, QString* error);
};

} // namespace ws
