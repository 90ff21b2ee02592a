// watchscope: the desktop program. With no argument it opens on the built-in simulator running
// the `healthy` scenario (SPEC §1), so a first start shows live data with nothing to configure.
#include "Version.h"
#include "engine/Session.h"
#include "engine/SourceOptions.h"
#include "session/ExecPluginOutput.h"
#include "session/RecentCaptures.h"
#include "session/SessionSwitcher.h"
#include "session/WindowLayoutMemory.h"
#include "sources/SourceFactory.h"
#include "widgets/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <cstdio>

namespace {

// Whether a modal dialog can be seen (and dismissed): never on the offscreen/minimal platforms
// that scripts and CI use, where it would block forever.
bool canShowDialogs() {
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

int failUsage(const QString& message, bool dialog = false) {
    // One clear line on stderr naming what was wrong (SPEC §1); a dialog too when the problem
    // is not a typo on a command line someone is looking at.
    std::fprintf(stderr, "watchscope: %s\n", qPrintable(message));
    if (dialog && canShowDialogs())
        QMessageBox::critical(nullptr, QStringLiteral("WatchScope"), message);
    return 2;
}

} // namespace

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("WatchScope"));
    QApplication::setApplicationVersion(QStringLiteral(WS_VERSION));
    QApplication::setOrganizationName(QStringLiteral("WatchScope"));
    // The installed desktop entry (packaging/watchscope.desktop): on Wayland it becomes the
    // window's app id, so the desktop shows the entry's name and icon for the window.
    QGuiApplication::setDesktopFileName(QStringLiteral("watchscope"));

    // Exec credential plugins get no terminal here; their stderr is shown in the window.
    ws::ExecPluginOutput pluginOutput;

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Wireshark for Kubernetes watches: watch streams and watch-cache state, "
                       "live."));
    parser.addHelpOption();
    parser.addVersionOption();
    // The same source options, parsed by the same code, as watchscope-cli record.
    const ws::SourceOptions sourceOptions(parser);
    const QCommandLineOption open(QStringLiteral("open"), QStringLiteral("Open a capture file."),
                                  QStringLiteral("FILE.wscap"));
    parser.addOption(open);

    if (!parser.parse(QApplication::arguments()))
        return failUsage(parser.errorText());
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    if (!parser.positionalArguments().isEmpty())
        return failUsage(QStringLiteral("unexpected argument '%1'")
                             .arg(parser.positionalArguments().constFirst()));
    QString error;
    std::optional<ws::SourceSpec> spec;
    if (parser.isSet(open)) {
        // A capture replays what it recorded: options of a live source do not go with it.
        for (const QString& name : parser.optionNames())
            if (name != QLatin1String("open"))
                return failUsage(
                    QStringLiteral("--%1 does not go with --open (a capture replays its own "
                                   "source)")
                        .arg(name));
        spec = ws::SessionSwitcher::captureSpec(parser.value(open), 1.0, &error);
    } else {
        spec = sourceOptions.spec(true, &error);
    }
    if (!spec)
        return failUsage(error);
    // Input is checked here (an unknown scenario, an unreadable TLS file is exit 2, not a window
    // with an error in it); nothing connects yet: a live source connects on its own threads
    // once the window is up, which says so and shows the error in place if it gives up.
    std::unique_ptr<ws::Session> session =
        ws::Session::prepared(ws::SourceFactory::create(*spec, &error), *spec, {}, &error,
                              ws::EventJournalLimits::window()); // the Events tab reads it
    if (!session)
        return failUsage(error, true);

    ws::MainWindow window(session.get());
    // The switcher owns this session and the ones picked later (a scenario, a cluster).
    ws::SessionSwitcher switcher(&window, session.release(), *spec);
    ws::WindowLayoutMemory layout;
    layout.restore(window);
    window.show();
    if (spec->kind == ws::SourceSpec::Kind::Capture)
        ws::RecentCaptures().remember(spec->capture);
    switcher.start();
    const int rc = QApplication::exec();
    layout.save(window);
    switcher.stop();
    return rc;
}
