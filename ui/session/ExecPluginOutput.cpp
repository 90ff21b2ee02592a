#include "ExecPluginOutput.h"

#include "sources/cluster/kubeconfig/ExecPluginConsole.h"

#include <mutex>

namespace ws {

namespace {

ExecPluginOutput* g_instance = nullptr;

} // namespace

struct ExecPluginOutput::Mailbox {
    std::mutex mutex;
    ExecPluginOutput* output = nullptr;
};

ExecPluginOutput::ExecPluginOutput(QObject* parent)
    : QObject(parent), m_mailbox(std::make_shared<Mailbox>()) {
    m_mailbox->output = this;
    g_instance = this;
    ExecPluginConsole console;
    console.terminal = false;
    console.stderrText = [mailbox = m_mailbox](const QString& plugin, const QByteArray& bytes) {
        std::lock_guard lock(mailbox->mutex);
        if (ExecPluginOutput* output = mailbox->output)
            QMetaObject::invokeMethod(
                output,
                [output, plugin, text = QString::fromUtf8(bytes)] {
                    emit output->text(plugin, text);
                },
                Qt::QueuedConnection);
    };
    ExecPluginConsole::install(std::move(console));
}

ExecPluginOutput::~ExecPluginOutput() {
    ExecPluginConsole::install(ExecPluginConsole::terminalConsole());
    {
        std::lock_guard lock(m_mailbox->mutex);
        m_mailbox->output = nullptr;
    }
    if (g_instance == this)
        g_instance = nullptr;
}

ExecPluginOutput* ExecPluginOutput::instance() {
    return g_instance;
}

} // namespace ws
