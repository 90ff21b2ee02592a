#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <cstdint>
#include <optional>
#include <span>

namespace ws {

// The watch cache's consistency check of DetectCacheInconsistency (beta, on from 1.34;
// s/apiserver/pkg/storage/cacher/consistency/checker.go): the cacher lists itself at RV 0, etcd
// at exactly the RV the cache answered with, hashes namespace/name/resourceVersion of every
// object in key order (64-bit FNV-1) and compares. A mismatch is logged ("Cache consistency check
// failed") and counted in apiserver_storage_consistency_checks_total{status="failure"}; the cache
// is NOT relisted, so what it lost stays lost (reference §9).
namespace cacheconsistency {

// The first check one jittered period after the cacher starts, then sliding periods of
// [5 min, 7.5 min] (wait.Jitter(CheckPeriod, 0.5)).
constexpr TimeUs kCheckPeriod = seconds(300);
constexpr double kJitter = 0.5;
// uniform01 in [0, 1): the period before the next check.
inline TimeUs nextCheckDelay(double uniform01) {
    return kCheckPeriod +
           static_cast<TimeUs>(kJitter * uniform01 * static_cast<double>(kCheckPeriod));
}

struct Item {
    QString ns;
    QString name;
    ResourceVersion rv = 0;
    bool operator==(const Item&) const = default;
    QString text() const; // "ns/name@rv", as the checker's diffDetail prints it
};

enum class Status { Success, Failure, Error };
QString statusName(Status status); // the metric's status label

struct Result {
    Status status = Status::Error;
    ResourceVersion rv = 0; // the RV both lists were taken at
    std::uint64_t cacheDigest = 0;
    std::uint64_t etcdDigest = 0;
    // The first position where the two lists differ (Failure): absent on the side missing it.
    std::optional<Item> cacheItem;
    std::optional<Item> etcdItem;
    QString error; // Error: why no comparison was made ("cache is not ready", ...)

    QString describe() const; // one line, for anomalies and logs
};

std::uint64_t digest(std::span<const Item> items);
// Both lists sorted by namespace/name, both at rv.
Result compare(ResourceVersion rv, std::span<const Item> cache, std::span<const Item> etcd);
Result failedToRun(const QString& why);

} // namespace cacheconsistency
} // namespace ws
