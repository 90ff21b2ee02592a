#pragma once

// The client-go and kube-apiserver profiles a test names ("0.18.6", "1.34"); a name the model
// does not know ends the test with its one-line error.
#include "kube/ClientProfile.h"
#include "kube/ServerProfile.h"

#include <QtGlobal>

namespace ws::test {

inline ClientProfile clientProfile(const char* name) {
    QString error;
    auto p = ClientProfile::fromName(QLatin1String(name), &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    return *p;
}

inline ServerProfile serverProfile(const char* version) {
    QString error;
    auto p = ServerProfile::fromVersion(QLatin1String(version), &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    return *p;
}

} // namespace ws::test
