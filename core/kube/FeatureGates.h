#pragma once

#include "ServerProfile.h"

#include <QMap>
#include <QString>
#include <QStringList>
#include <vector>

namespace ws {

// One kube-apiserver feature gate WatchScope models: the ServerProfile field it sets, and the
// minors where the gate exists (s/apiserver/pkg/features/kube_features.go at each tag).
struct FeatureGate {
    const char* name;
    bool ServerProfile::*field;
    int firstMinor; // the gate exists from 1.firstMinor (its backports named in the profile)
    int lastMinor;  // ... up to 1.lastMinor; 36 while it is still there
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
    // Sets the profile fields of the gates given; names must have been validated.
    static void apply(ServerProfile& profile, const QMap<QString, bool>& gates);
};

} // namespace ws
