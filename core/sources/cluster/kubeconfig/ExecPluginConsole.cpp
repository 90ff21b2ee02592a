#include "ExecPluginConsole.h"

#include <cstdio>
#include <mutex>
#include <unistd.h>

namespace ws {

namespace {

std::mutex g_mutex;

ExecPluginConsole& installed() {
    static ExecPluginConsole console = ExecPluginConsole::terminalConsole();
    return console;
}

} // namespace

ExecPluginConsole ExecPluginConsole::terminalConsole() {
    ExecPluginConsole c;
    c.terminal = isatty(STDIN_FILENO) == 1;
    c.stderrText = [](const QString&, const QByteArray& text) {
        std::fwrite(text.constData(), 1, std::size_t(text.size()), stderr);
        std::fflush(stderr);
    };
    return c;
}

void ExecPluginConsole::install(ExecPluginConsole console) {
    std::lock_guard lock(g_mutex);
    installed() = std::move(console);
}

ExecPluginConsole ExecPluginConsole::current() {
    std::lock_guard lock(g_mutex);
    return installed();
}

} // namespace ws
