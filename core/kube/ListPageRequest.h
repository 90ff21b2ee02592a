#pragma once

#include "model/ResourceVersion.h"

#include <cstdint>
#include <string>

namespace ws {

// One LIST request of client-go's pager (tools/pager): a first page, a continue page, or the
// full list it falls back to after a 410 on a continue page.
struct ListPageRequest {
    ResourceVersion rv = 0;
    bool rvEmpty = false;   // resourceVersion="" (a continue page carries none)
    std::int64_t limit = 0; // 0: no limit
    // A continue page: the token of the page before, which holds the first page's RV.
    std::string continueToken;

    bool isContinuePage() const { return !continueToken.empty(); }
};

} // namespace ws
