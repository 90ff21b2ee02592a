#include "ObjectWriter.h"

#include "etcd/SimEtcd.h"

#include <charconv>

namespace ws {

ObjectWriter::ObjectWriter(SimKeyspace& keyspace, SimEtcd& etcd, int resource,
                           const ResourceSpec& spec)
    : m_keyspace(keyspace), m_etcd(etcd), m_resource(resource), m_spec(spec),
      m_rate(spec.writesPerSecond) {
    // "configmaps" -> "Configmap": enough for a readable kind in the JSON.
    QString kind = spec.name;
    if (kind.endsWith(QLatin1Char('s')))
        kind.chop(1);
    if (!kind.isEmpty())
        kind[0] = kind[0].toUpper();
    m_kind = kind.toStdString();
}

std::string ObjectWriter::makeValue(KeyId key, std::int64_t generation,
                                    ResourceVersion uidSeed) const {
    // A Kubernetes-shaped JSON object padded to the configured size; resourceVersion is empty
    // as etcd stores it (the object's RV is its mod_revision).
    std::string v;
    v.reserve(static_cast<size_t>(m_spec.valueBytes));
    v += R"({"apiVersion":"v1","kind":")";
    v += m_kind;
    v += R"(","metadata":{"name":")";
    v += m_keyspace.nameUtf8(key);
    v += R"(","namespace":")";
    v += m_keyspace.namespaceUtf8(key);
    v += R"(","uid":"00000000-0000-4000-8000-)";
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf,
                           static_cast<unsigned long long>(uidSeed) + 100000000000ULL);
    v.append(buf, r.ptr);
    v += R"(","resourceVersion":"","generation":)";
    r = std::to_chars(buf, buf + sizeof buf, generation);
    v.append(buf, r.ptr);
    v += R"(},"spec":{"nodeName":"node-)";
    r = std::to_chars(buf, buf + sizeof buf, m_keyspace.selectorGroupOf(key));
    v.append(buf, r.ptr);
    v += R"("},"data":{"payload":")";
    const size_t tail = 4;
    if (v.size() + tail < static_cast<size_t>(m_spec.valueBytes))
        v.append(static_cast<size_t>(m_spec.valueBytes) - v.size() - tail, 'x');
    v += "\"}}";
    return v;
}

void ObjectWriter::create(TimeUs now, SeededRandom& rng) {
    // Half the creates reuse a deleted object's name, as controllers recreating pods do; it
    // also keeps the keyspace (and every per-key index) bounded on long runs.
    if (!m_deleted.empty() && rng.chance(0.5)) {
        const KeyId key = m_deleted.back();
        m_deleted.pop_back();
        m_etcd.put(now, key, makeValue(key, 1, m_etcd.currentRevision() + 1));
        ++m_writes;
        return;
    }
    const std::int64_t n = m_nextName++;
    const QString ns = QStringLiteral("ns-%1").arg(n % m_spec.namespaces);
    const QString name =
        QStringLiteral("%1-%2").arg(QString::fromStdString(m_kind).toLower()).arg(n);
    const int group = static_cast<int>(rng.between(0, m_spec.selectorGroups - 1));
    const KeyId key = m_keyspace.addKey(m_resource, ns, name, group);
    m_etcd.put(now, key, makeValue(key, 1, m_etcd.currentRevision() + 1));
    ++m_writes;
}

void ObjectWriter::update(TimeUs now, KeyId key) {
    const auto& current = m_etcd.get(key);
    m_etcd.put(now, key,
               makeValue(key, current ? current->version + 1 : 1,
                         current ? current->createRev : m_etcd.currentRevision() + 1));
    ++m_writes;
}

void ObjectWriter::populate(TimeUs now, SeededRandom& rng) {
    for (int i = 0; i < m_spec.objects; ++i)
        create(now, rng);
}

void ObjectWriter::tick(TimeUs now, TimeUs dt, SeededRandom& rng) {
    m_carry += m_rate * static_cast<double>(dt) / kUsPerSecond;
    while (m_carry >= 1.0) {
        m_carry -= 1.0;
        const auto& live = m_etcd.liveKeys(m_resource);
        const double p = rng.uniform();
        const auto below = static_cast<double>(live.size()) < m_spec.objects;
        if (live.empty() || (p < m_spec.deleteShare && below) ||
            (p >= m_spec.deleteShare && p < 2 * m_spec.deleteShare && below)) {
            create(now, rng);
        } else if (p < 2 * m_spec.deleteShare) {
            const KeyId victim = live[static_cast<size_t>(
                rng.between(0, static_cast<std::int64_t>(live.size()) - 1))];
            m_etcd.remove(now, victim);
            m_deleted.push_back(victim);
            ++m_writes;
        } else {
            update(now, live[static_cast<size_t>(
                            rng.between(0, static_cast<std::int64_t>(live.size()) - 1))]);
        }
    }
}

} // namespace ws
