#pragma once

#include <QByteArray>
#include <QString>
#include <functional>

namespace ws {

// How an exec credential plugin reaches the user: a device-code or SSO login prints its URL and
// code on stderr and may read stdin, so client-go hands the plugin the process's own stderr, and
// its stdin when interactiveMode allows and stdin is a terminal. Where those go is a property of
// the process (the CLI has a terminal, the window has none), so one console is installed per
// process; ExecCredentialRunner reads it at every plugin run.
struct ExecPluginConsole {
    // The plugin may read the user's terminal (interactiveMode IfAvailable or Always).
    bool terminal = false;
    // Gets the plugin's stderr as it is written, from the thread that runs the plugin. `plugin`
    // is the command as the kubeconfig names it. Empty: the text is only kept for the error line.
    std::function<void(const QString& plugin, const QByteArray& text)> stderrText;

    // The CLI's: stdin handed over when it is a terminal, stderr copied to this process's stderr
    // at once. What a process has until it installs another.
    static ExecPluginConsole terminalConsole();
    static void install(ExecPluginConsole console);
    static ExecPluginConsole current();
};

} // namespace ws
