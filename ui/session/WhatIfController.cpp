#include "WhatIfController.h"

#include "ReplayController.h"
#include "SessionSwitcher.h"
#include "widgets/MainWindow.h"
#include "widgets/WhatIfDialog.h"

#include <QAction>

namespace ws {

WhatIfController::WhatIfController(MainWindow* window, SessionSwitcher* switcher)
    : QObject(switcher), m_window(window), m_switcher(switcher) {
    connect(m_window->whatIfAction(), &QAction::triggered, this, &WhatIfController::open);
    // Connected after the ReplayController's: active() already says whether this session is a
    // capture replay.
    connect(m_switcher, &SessionSwitcher::switched, this, [this] { onSwitched(); });
    connect(m_switcher->replay(), &ReplayController::durationMeasured, this,
            [this](TimeUs duration) {
                if (m_dialog && m_dialog->capturePath() == m_switcher->currentSpec().capture)
                    m_dialog->setCaptureDuration(duration);
            });
    onSwitched();
}

WhatIfController::~WhatIfController() {
    delete m_dialog.data(); // its comparison stops with it
}

WhatIfDialog* WhatIfController::dialog() const {
    return m_dialog.data();
}

void WhatIfController::onSwitched() {
    m_window->whatIfAction()->setEnabled(m_switcher->replay()->active());
}

void WhatIfController::open() {
    if (!m_switcher->replay()->active())
        return;
    const SourceSpec spec = m_switcher->currentSpec();
    if (m_dialog && m_dialog->capturePath() != spec.capture)
        delete m_dialog.data(); // another capture now: a dialog for this one
    if (!m_dialog) {
        auto* dialog = new WhatIfDialog(spec, m_window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setCaptureDuration(m_switcher->replay()->duration());
        connect(dialog, &WhatIfDialog::replayRequested, this, &WhatIfController::replay);
        m_dialog = dialog;
    }
    m_dialog->show();
    m_dialog->raise();
    m_dialog->activateWindow();
}

bool WhatIfController::replay(const SourceSpec& spec) {
    // A fresh replay of the capture, as File → Open Capture starts one, under the versions.
    QString error;
    auto replay = SessionSwitcher::captureSpec(spec.capture, 1.0, &error);
    if (replay) {
        replay->whatIf = spec.whatIf;
        if (m_switcher->switchToSource(*replay))
            return true;
        error = m_window->lastError();
    } else {
        m_window->showError(tr("Capture not opened"), error);
    }
    if (m_dialog)
        m_dialog->showError(error);
    return false;
}

} // namespace ws
