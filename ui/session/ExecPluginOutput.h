#pragma once

#include <QObject>
#include <QString>
#include <memory>

namespace ws {

// The window's ExecPluginConsole: a plugin never gets a terminal here (a window has none to
// lend), and what it writes on stderr (a device-code login's URL and code) arrives as text() on
// the GUI thread while the plugin runs, for the connect dialog and the status bar to show. One
// per process, made by main(); instance() is null where none was made (tests, the CLI).
class ExecPluginOutput : public QObject {
    Q_OBJECT
public:
    explicit ExecPluginOutput(QObject* parent = nullptr); // installs the console
    ~ExecPluginOutput() override;                         // puts the terminal console back
    static ExecPluginOutput* instance();

signals:
    // `plugin`: the command as the kubeconfig names it; `text`: what it wrote, as it came.
    void text(const QString& plugin, const QString& text);

private:
    struct Mailbox; // lets a plugin's thread reach this object only while it exists
    std::shared_ptr<Mailbox> m_mailbox;
};

} // namespace ws
