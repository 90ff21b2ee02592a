#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <string>
#include <vector>

namespace ws {

// The writes an etcd capture saw, as a workload the simulator can play again: the objects at the
// capture's first list, then every change at the time it arrived, with its revision. A what-if
// puts this stream through simulated apiservers and clients of other versions in place of the
// scenario's generated workload.
struct RecordedEtcdStream {
    struct Object {
        std::string key;
        std::string value;
    };
    struct Write {
        TimeUs at = 0; // session time it arrived
        ResourceVersion revision = 0;
        std::string key;
        std::string value; // empty for a delete
        bool isDelete = false;
    };
    struct Compaction {
        TimeUs at = 0;
        ResourceVersion revision = 0;
    };

    QString etcdVersion; // "3.4.23"; empty when the capture did not say
    std::string prefix = "/registry/";
    ResourceVersion startRevision = 0;   // of the first list
    std::vector<Object> initial;         // at startRevision
    std::vector<Write> writes;           // in revision order
    std::vector<Compaction> compactions; // seen as compacted watch cancels, in time order
    TimeUs duration = 0;
};

} // namespace ws
