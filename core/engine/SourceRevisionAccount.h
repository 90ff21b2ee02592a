#pragma once

#include "detect/RevisionAccount.h"

#include <QString>

namespace ws {

// One of a source's revision accounts (detect/RevisionAccount.h), named for the stream it
// covers: "etcd watch", "configmaps@apiserver-0". A value: a copy crosses threads in the
// EngineUpdate.
struct SourceRevisionAccount {
    QString name;
    RevisionAccount account;
};

} // namespace ws
