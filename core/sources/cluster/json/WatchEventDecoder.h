#pragma once

#include "WatchEventJson.h"

#include <QString>
#include <memory>
#include <string_view>

namespace ws {

// Decodes one watch event object ({"type":...,"object":{...}}, as JsonObjectSplitter cuts
// them) with one reused simdjson On-Demand parser. Members may come in any order. Only what
// the event needs is read (type; object kind, metadata name/namespace/uid/resourceVersion, the
// initial-events-end annotation of a BOOKMARK; code/reason/message/details of an ERROR's
// Status); the rest of the object is checked by simdjson's structural pass (UTF-8, strings,
// nesting) but its values are not parsed one by one.
//
// Never throws and never crashes on any input: anything malformed is a false return with the
// reason in *error.
class WatchEventDecoder {
public:
    WatchEventDecoder();
    ~WatchEventDecoder();
    WatchEventDecoder(const WatchEventDecoder&) = delete;
    WatchEventDecoder& operator=(const WatchEventDecoder&) = delete;

    // Fills *out (cleared first; its strings keep their capacity). False for malformed JSON,
    // a missing or unknown "type", a missing or non-object "object", a non-numeric
    // resourceVersion, trailing bytes after the event, ...; *error (may be null) says what.
    // out->object points into this decoder until the next decode().
    bool decode(std::string_view json, WatchEventJson* out, QString* error);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The WatchEventType for a watch event's "type" string; false for anything else.
bool watchEventTypeFromJson(std::string_view text, WatchEventType* out);

} // namespace ws
