#pragma once

#include "model/KeyTable.h"
#include "model/ResourceVersion.h"

#include <QString>

namespace ws {

// What a consistent read of the source of truth (etcd) says about a key right now.
struct KeyTruth {
    bool exists = false;
    ResourceVersion modRv = 0;     // when exists: the key's current mod_revision
    ResourceVersion deletedRv = 0; // when !exists: the revision of its last delete (0: never seen)
    TimeUs changedAt = 0;          // when that last change (write or delete) happened
};

class ConsistencyOracle {
public:
    virtual ~ConsistencyOracle() = default;
    virtual KeyTruth truth(KeyId key) const = 0;
};

// Optional knowledge of the full history, as etcd's robustness tests have it: lets the
// detectors check "Reliable" on a watch that does not see every revision.
class HistoryOracle {
public:
    virtual ~HistoryOracle() = default;
    // The first revision > after that changed a key of this resource; 0 if there is none yet.
    virtual ResourceVersion nextRevision(const QString& resource, ResourceVersion after) const = 0;
};

} // namespace ws
