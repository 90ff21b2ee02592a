#pragma once

#include <QSet>
#include <QString>
#include <QStringList>

namespace ws {

// The user's --resources: plural names to show; empty shows every resource. Anomalies that
// belong to no resource (a broken stream, "(other)" keys) are always shown.
class ResourceFilter {
public:
    ResourceFilter() = default;
    explicit ResourceFilter(const QStringList& names)
        : m_names(names), m_set(names.begin(), names.end()) {}

    bool all() const { return m_set.isEmpty(); }
    bool shows(const QString& resource) const {
        return m_set.isEmpty() || m_set.contains(resource);
    }
    bool showsAnomalyOf(const QString& resource) const {
        return resource.isEmpty() || resource == QLatin1String("(other)") || shows(resource);
    }
    const QStringList& names() const { return m_names; }
    // The names that `offered` does not have, for "--resources: no resource 'x'" errors.
    QStringList missingFrom(const QStringList& offered) const {
        QStringList out;
        for (const QString& n : m_names)
            if (!offered.contains(n))
                out << n;
        return out;
    }

private:
    QStringList m_names;
    QSet<QString> m_set;
};

} // namespace ws
