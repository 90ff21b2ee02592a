#pragma once

#include "engine/SourceSpec.h"

#include <QObject>
#include <QPointer>

namespace ws {

class MainWindow;
class SessionSwitcher;
class WhatIfDialog;

// The window's What If: enables File → What If… while a capture is being replayed, opens the
// WhatIfDialog on that capture (one at a time, non-modal: the window stays usable beside it),
// and does its "Replay under these versions" by opening the capture again under them, as Open
// Capture does (SessionSwitcher). Owned by the switcher.
class WhatIfController : public QObject {
    Q_OBJECT
public:
    WhatIfController(MainWindow* window, SessionSwitcher* switcher);
    ~WhatIfController() override;

    WhatIfDialog* dialog() const; // the open dialog, or null

public slots:
    // Opens the dialog on the capture being replayed (raises it when it is open on that
    // capture); nothing when no capture is replayed.
    void open();
    // The capture replayed in the window under spec.whatIf, from its start at 1×; false, the
    // session shown untouched and the reason shown, when it cannot be.
    bool replay(const ws::SourceSpec& spec);

private:
    void onSwitched();

    MainWindow* m_window;
    SessionSwitcher* m_switcher;
    QPointer<WhatIfDialog> m_dialog;
};

} // namespace ws
