#pragma once

#include <QString>

namespace ws {

// Files a session writes while it runs (SPEC §1 record): every anomaly and every timeline
// sample is streamed to them from the worker thread, so nothing is lost to downsampling.
struct SessionOutputs {
    QString anomaliesPath; // .jsonl; empty: none
    QString timelinePath;  // .csv, .jsonl or .trace.json; empty: none
    QString capturePath;   // .wscap (docs/capture-format.md); empty: none
};

} // namespace ws
