#pragma once

#include "util/SeededRandom.h"
#include "model/ResourceVersion.h"

namespace ws {

class SimKeyspace;
class SimEtcd;
class DetectorHub;

// What every part of the simulation shares: the cluster's keys, the source of truth, the
// detectors, the seeded randomness and the virtual clock.
struct SimContext {
    SimKeyspace& keyspace;
    SimEtcd& etcd;
    DetectorHub& hub;
    SeededRandom& rng;
    TimeUs now = 0;
    TimeUs dt = 0; // length of the current tick
};

} // namespace ws
