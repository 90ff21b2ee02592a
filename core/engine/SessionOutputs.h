#pragma once

#include <QString>

namespace ws {

// Files a session writes while it runs (SPEC §1 record): every anomaly and every timeline
// sample is streamed to them from the worker thread, so nothing is lost to downsampling.
struct SessionOutputs {
    QString anomaliesPath; // .jsonl; empty: none
    QString timelinePath;  // .csv, .jsonl or .trace.json; empty: none
    QString capturePath;   // .wscap (docs/capture-format.md); empty: none
    // False (a live session): a file that cannot keep up loses what it has no room for,
    // counted (FlowStats), rather than hold the session back. True where waiting loses nothing
    // (export and whatif turn a capture into files): the session waits for the disk.
    bool lossless = false;
    // How many bytes each file may have waiting for its disk (AsyncFileWriter); 0: its default.
    qint64 maxQueuedBytes = 0;
};

} // namespace ws
