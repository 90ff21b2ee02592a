#include "AnomalyKind.h"

namespace ws {

namespace {
constexpr std::array<const char*, kAnomalyKindCount> kKindNames = {
    "prevkv-nil",         "revision-gap",       "revision-regression",
    "duplicate-event",    "split-revision",     "bookmark-violation",
    "too-old-rv",         "too-large-rv",       "retry-loop",
    "relist-storm",       "watcher-lag",        "stuck-watcher",
    "watcher-terminated", "stale-object",       "initial-events-stalled",
    "stream-error",       "cache-inconsistent", "cache-not-ready",
    "list-pressure",
};
} // namespace

QString kindName(AnomalyKind kind) {
    return QString::fromLatin1(kKindNames[static_cast<size_t>(kind)]);
}

std::optional<AnomalyKind> kindFromName(QStringView name) {
    for (size_t i = 0; i < kKindNames.size(); ++i) {
        if (name == QLatin1String(kKindNames[i]))
            return static_cast<AnomalyKind>(i);
    }
    return std::nullopt;
}

const std::array<AnomalyKind, kAnomalyKindCount>& allAnomalyKinds() {
    static const auto kinds = [] {
        std::array<AnomalyKind, kAnomalyKindCount> all{};
        for (int i = 0; i < kAnomalyKindCount; ++i)
            all[static_cast<size_t>(i)] = static_cast<AnomalyKind>(i);
        return all;
    }();
    return kinds;
}

QString severityName(Severity severity) {
    switch (severity) {
    case Severity::Info:
        return QStringLiteral("info");
    case Severity::Warning:
        return QStringLiteral("warning");
    case Severity::Error:
        return QStringLiteral("error");
    }
    return {};
}

std::optional<Severity> severityFromName(QStringView name) {
    for (auto s : {Severity::Info, Severity::Warning, Severity::Error})
        if (name == severityName(s))
            return s;
    return std::nullopt;
}

QString sourceName(AnomalySource source) {
    switch (source) {
    case AnomalySource::Etcd:
        return QStringLiteral("etcd");
    case AnomalySource::Apiserver:
        return QStringLiteral("apiserver");
    case AnomalySource::Simulator:
        return QStringLiteral("simulator");
    }
    return {};
}

std::optional<AnomalySource> sourceFromName(QStringView name) {
    for (auto s : {AnomalySource::Etcd, AnomalySource::Apiserver, AnomalySource::Simulator})
        if (name == sourceName(s))
            return s;
    return std::nullopt;
}

} // namespace ws
