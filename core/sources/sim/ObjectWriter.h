#pragma once

#include "model/KeyTable.h"
#include "scenario/Scenario.h"
#include "util/SeededRandom.h"

#include <string>
#include <vector>

namespace ws {

class SimEtcd;
class SimKeyspace;

// The cluster's workload for one resource: creates, updates and deletes at the configured rate,
// keeping the object count around its target, with values of the configured serialized size.
class ObjectWriter {
public:
    ObjectWriter(SimKeyspace& keyspace, SimEtcd& etcd, int resource, const ResourceSpec& spec);

    void populate(TimeUs now, SeededRandom& rng); // the initial objects
    // Instead of populate(): the store already holds this resource's objects (a served
    // cluster restored from its state dir); go on writing them, new names after the old.
    void adopt();
    void tick(TimeUs now, TimeUs dt, SeededRandom& rng);
    void setRate(double writesPerSecond) { m_rate = writesPerSecond; }
    double baseRate() const { return m_spec.writesPerSecond; }
    std::int64_t writes() const { return m_writes; }

private:
    void create(TimeUs now, SeededRandom& rng);
    void update(TimeUs now, KeyId key);
    // Writes one version of `key` to etcd: a Kubernetes-shaped JSON object padded to the
    // configured size, written straight into the stored value.
    void write(TimeUs now, KeyId key, std::int64_t generation, ResourceVersion uidSeed);

    SimKeyspace& m_keyspace;
    SimEtcd& m_etcd;
    int m_resource;
    ResourceSpec m_spec;
    double m_rate;
    double m_carry = 0;
    std::int64_t m_nextName = 0;
    std::int64_t m_writes = 0;
    std::string m_kind;
    std::string m_apiVersion;
    std::string m_head;           // the value's fields before the padding, reused between writes
    std::vector<KeyId> m_deleted; // names free for re-creation (StatefulSet pods, leases...)
};

} // namespace ws
