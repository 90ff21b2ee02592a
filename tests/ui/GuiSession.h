#pragma once

// The window as the program opens it, for the window-level GUI tests: a prepared session on a
// source spec, the MainWindow over it and the SessionSwitcher that owns the session, shown at
// 1400x900 and exposed. The switcher stops the session before the window goes.

#include "engine/EventJournal.h"
#include "engine/Session.h"
#include "session/SessionSwitcher.h"
#include "sources/SourceFactory.h"
#include "widgets/MainWindow.h"

#include <QString>
#include <QTest>
#include <memory>

namespace ws::test {

struct GuiSession {
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<SessionSwitcher> switcher;

    // `journal`: the event journal's limits (the program's window asks for
    // EventJournalLimits::window(); off by default, as for the CLI).
    bool open(const SourceSpec& spec, QString* error, EventJournalLimits journal = {}) {
        Session* session =
            Session::prepared(SourceFactory::create(spec, error), spec, {}, error, journal)
                .release();
        if (!session)
            return false;
        window = std::make_unique<MainWindow>(session);
        switcher = std::make_unique<SessionSwitcher>(window.get(), session, spec);
        window->resize(1400, 900);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get())) {
            *error = QStringLiteral("window not exposed");
            return false;
        }
        return true;
    }
    bool openScenario(const QString& scenario, double speed, QString* error,
                      EventJournalLimits journal = {}) {
        SourceSpec spec;
        spec.scenario.scenario = scenario;
        spec.scenario.speed = speed;
        return open(spec, error, journal);
    }
    void start() { switcher->start(); }

    GuiSession() = default;
    GuiSession(const GuiSession&) = delete;
    GuiSession& operator=(const GuiSession&) = delete;
    ~GuiSession() {
        switcher.reset(); // stops the session before the window goes
        window.reset();
    }
};

} // namespace ws::test
