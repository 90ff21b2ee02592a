#pragma once

#include "ServerProfile.h"

#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace ws {

// One kube-apiserver feature gate WatchScope models: the ServerProfile field it sets, and the
// releases where the gate exists and can be set (s/apiserver/pkg/features/kube_features.go at
// each tag; a gate backported to a patch release exists from that patch on).
struct FeatureGate {
    const char* name;
    bool ServerProfile::*field;
    int firstMinor; // the gate exists from 1.firstMinor.0 ...
    int lastMinor;  // ... up to 1.lastMinor; 36 while it is still there
    // Older minors it was backported to, as "1.28.8 1.29.3" (the first patch of each); "" none.
    const char* backports;
    // From 1.lockedFromMinor the gate is LockToDefault (GA, or deprecated and locked off): it
    // can only be set to its default; 0 when never locked.
    int lockedFromMinor;
    const char* what;
};

// The one table of modelled gates: scenario files, --feature-gates of `serve`, `simulate` and
// `whatif`, and the what-if dialog all read it, so a gate added here is settable everywhere.
class FeatureGates {
public:
    static const std::vector<FeatureGate>& all();
    static const FeatureGate* find(const QString& name);
    static QStringList names();

    // "Name=true", "Name=false" or "Name" (true). False and one line in *error for a gate that is
    // not modelled or a value that is neither true nor false.
    static bool parse(const QString& spec, QString* name, bool* value, QString* error);
    // Whether the release of `profile` (its minor and patch) has the gate at all.
    static bool existsIn(const FeatureGate& gate, const ServerProfile& profile);
    // The releases that have the gate, as "1.28.8+, 1.29.3+, 1.30-1.36".
    static QString releases(const FeatureGate& gate);
    // What kube-apiserver of that release says when started with --feature-gates name=value, as
    // one line: the gate does not exist there, or it is locked to its default; nullopt when it
    // accepts it (featuregate.Set: "unrecognized feature gate", "cannot set feature gate ...").
    static std::optional<QString> rejection(const ServerProfile& profile, const QString& name,
                                            bool value);
    // Sets the profile fields of the gates given; names must have been validated.
    static void apply(ServerProfile& profile, const QMap<QString, bool>& gates);
};

} // namespace ws
