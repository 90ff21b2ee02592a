#pragma once

#include "model/KeyTable.h"
#include "model/ResourceVersion.h"
#include "model/WatchEventType.h"

#include <cstdint>

namespace ws {

// The fixed-size metadata the EventJournal keeps per event (48 bytes, no pointers), as its
// scanners read it in bulk (EventJournal::copyRecords); names are resolved through the key.
struct JournalRecord {
    static constexpr std::int64_t kNoObject = -1;   // offset: the event carried no object
    static constexpr std::int64_t kOverBudget = -2; // offset: larger than the whole byte budget

    TimeUs time = 0;
    ResourceVersion rv = 0;
    std::int64_t previous = -1;      // index of the previous event of the same key; -1: none
    std::int64_t offset = kNoObject; // of the object in the journal's byte stream
    KeyId key = kNoKey;              // the pipeline's KeyTable id
    std::uint32_t size = 0;          // bytes received
    std::uint32_t objectSize = 0;
    std::uint16_t watcher = 0; // EventJournal::addWatcher()
    WatchEventType type = WatchEventType::Modified;
    std::uint8_t flags = 0;
};

static_assert(sizeof(JournalRecord) == 48);

} // namespace ws
