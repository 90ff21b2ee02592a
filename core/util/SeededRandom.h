#pragma once

#include <cstdint>
#include <random>

namespace ws {

// All randomness of a simulation comes from one seeded generator, so the same scenario and seed
// give the same run (and the same anomalies).
class SeededRandom {
public:
    explicit SeededRandom(std::uint64_t seed) : m_engine(seed) {}

    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(m_engine); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    std::int64_t between(std::int64_t lo, std::int64_t hiInclusive) {
        return std::uniform_int_distribution<std::int64_t>(lo, hiInclusive)(m_engine);
    }
    bool chance(double p) { return uniform() < p; }
    std::uint64_t next() { return m_engine(); }

private:
    std::mt19937_64 m_engine;
};

} // namespace ws
