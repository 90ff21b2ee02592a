#pragma once

#include "engine/SessionOutputs.h"
#include "engine/SourceSpec.h"

#include <QStringList>
#include <cstdint>

namespace ws {

// The command dispatcher of watchscope-cli. Every failure ends in one line on stderr and a
// non-zero exit code: 2 for bad input, 1 when the work itself failed.
class CliApp {
public:
    int run(const QStringList& arguments);

private:
    int scenarios();
    int record(const QStringList& arguments);
    int exportCapture(const QStringList& arguments);
    int whatIf(const QStringList& arguments);
    // watchersPath: where to write the watcher table at the end (WatcherTableFile); empty: none.
    int runSession(const SourceSpec& spec, const SessionOutputs& outputs, const QString& verb,
                   const QString& watchersPath = {});
    int load(const QStringList& arguments);
    int serve(const QStringList& arguments);
    int usage(int exitCode);
};

} // namespace ws
