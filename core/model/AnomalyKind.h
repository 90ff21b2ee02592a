#pragma once

#include <QString>
#include <QStringView>
#include <array>
#include <optional>

namespace ws {

// The stable anomaly kinds of SPEC §2. The order is the order of the spec table, then the
// kinds added since.
enum class AnomalyKind {
    PrevKvNil,
    RevisionGap,
    RevisionRegression,
    DuplicateEvent,
    SplitRevision,
    BookmarkViolation,
    TooOldRv,
    TooLargeRv,
    RetryLoop,
    RelistStorm,
    WatcherLag,
    StuckWatcher,
    WatcherTerminated,
    StaleObject,
    InitialEventsStalled,
    StreamError,
    // Added after SPEC §2's table (README lists them); kinds are only ever appended.
    CacheInconsistent,
    CacheNotReady,
    ListPressure,
};

constexpr int kAnomalyKindCount = static_cast<int>(AnomalyKind::ListPressure) + 1;

enum class Severity { Info, Warning, Error };
enum class AnomalySource { Etcd, Apiserver, Simulator };

QString kindName(AnomalyKind kind);
std::optional<AnomalyKind> kindFromName(QStringView name);
const std::array<AnomalyKind, kAnomalyKindCount>& allAnomalyKinds();

QString severityName(Severity severity);
std::optional<Severity> severityFromName(QStringView name);
QString sourceName(AnomalySource source);
std::optional<AnomalySource> sourceFromName(QStringView name);

} // namespace ws
