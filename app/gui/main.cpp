// watchscope: the desktop program. With no argument it opens on the built-in simulator running
// the `healthy` scenario (SPEC §1), so a first start shows live data with nothing to configure.
#include "engine/SimulationSession.h"
#ifdef WS_HAVE_ETCD
#include "etcd/EtcdSession.h"
#endif
#include "session/ScenarioSwitcher.h"
#include "widgets/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <cstdio>

// The build may pass the project version; otherwise the one of the release being worked on.
#ifndef WS_VERSION_STRING
#define WS_VERSION_STRING "0.1.0"
#endif

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
    QApplication::setApplicationVersion(QStringLiteral(WS_VERSION_STRING));
    QApplication::setOrganizationName(QStringLiteral("WatchScope"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Wireshark for Kubernetes watches: watch streams and watch-cache state, "
                       "live."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption scenario(QStringLiteral("scenario"),
                                      QStringLiteral("Built-in simulator scenario (default "
                                                     "healthy)."),
                                      QStringLiteral("NAME"), QStringLiteral("healthy"));
    const QCommandLineOption speed(QStringLiteral("speed"),
                                   QStringLiteral("Simulator speed factor, or max (default 1)."),
                                   QStringLiteral("X"), QStringLiteral("1"));
    const QCommandLineOption seed(QStringLiteral("seed"),
                                  QStringLiteral("Simulator random seed (default: the "
                                                 "scenario's)."),
                                  QStringLiteral("N"));
    const QCommandLineOption etcd(QStringLiteral("etcd"), QStringLiteral("etcd endpoints."),
                                  QStringLiteral("URL[,URL...]"));
    const QCommandLineOption kubeconfig(QStringLiteral("kubeconfig"),
                                        QStringLiteral("kubeconfig file."), QStringLiteral("PATH"));
    const QCommandLineOption context(QStringLiteral("context"),
                                     QStringLiteral("kubeconfig context."), QStringLiteral("NAME"));
    const QCommandLineOption server(QStringLiteral("server"), QStringLiteral("kube-apiserver URL."),
                                    QStringLiteral("URL"));
    const QCommandLineOption resources(QStringLiteral("resources"),
                                       QStringLiteral("Plural resource names, comma-separated."),
                                       QStringLiteral("LIST"));
    const QCommandLineOption open(QStringLiteral("open"), QStringLiteral("Open a capture file."),
                                  QStringLiteral("FILE.wscap"));
    parser.addOptions({scenario, speed, seed, etcd, kubeconfig, context, server, resources, open});

    if (!parser.parse(QApplication::arguments()))
        return failUsage(parser.errorText());
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    if (!parser.positionalArguments().isEmpty())
        return failUsage(QStringLiteral("unexpected argument '%1'")
                             .arg(parser.positionalArguments().constFirst()));

        // Live sources and captures are not wired into the desktop program yet: say so plainly
        // rather than silently falling back to the simulator.
#ifdef WS_HAVE_ETCD
    if (parser.isSet(etcd)) {
        // A live etcd: the same engine as `watchscope-cli record --etcd`, shown live.
        ws::EtcdSessionOptions options;
        options.connect.endpoints = parser.value(etcd).split(QLatin1Char(','), Qt::SkipEmptyParts);
        options.resources = parser.value(resources).split(QLatin1Char(','), Qt::SkipEmptyParts);
        QString error;
        if (!ws::EtcdSession::probe(options.connect, &error))
            return failUsage(error, true);
        auto* session = new ws::EtcdSession(options, &app);
        ws::MainWindow window(session);
        window.setScenarioPickerUnavailable(
            QStringLiteral("Watching a live etcd: scenarios are for the simulator (run "
                           "watchscope without --etcd)"));
        window.show();
        session->start();
        const int rc = QApplication::exec();
        session->stop();
        return rc;
    }
#endif
    for (const QCommandLineOption* o : {&etcd, &kubeconfig, &server, &open}) {
        if (!parser.isSet(*o))
            continue;
        return failUsage(QStringLiteral("--%1 is not available yet in the desktop program; run "
                                        "without it to use the simulator.")
                             .arg(o->names().constFirst()),
                         true);
    }

    ws::SimulationOptions options;
    options.scenario = parser.value(scenario);
    const QString speedText = parser.value(speed);
    if (speedText == QLatin1String("max")) {
        options.speed = 0; // the runner's "as fast as the machine can"
    } else {
        bool ok = false;
        const double factor = speedText.toDouble(&ok);
        if (!ok || !(factor > 0))
            return failUsage(
                QStringLiteral("bad --speed '%1' (a positive number or max)").arg(speedText));
        options.speed = factor;
    }
    if (parser.isSet(seed)) {
        bool ok = false;
        const qulonglong value = parser.value(seed).toULongLong(&ok);
        if (!ok)
            return failUsage(
                QStringLiteral("bad --seed '%1' (a non-negative integer)").arg(parser.value(seed)));
        options.seed = value;
    }

    if (parser.isSet(resources))
        std::fprintf(stderr, "watchscope: --resources is not applied to the simulator yet; "
                             "showing every resource of the scenario\n");

    auto* session = new ws::SimulationSession(options, &app);
    // Load the scenario before any window: an unknown scenario is bad input (exit 2), not a
    // window with an error in it.
    QString error;
    if (!session->prepare(&error))
        return failUsage(error, true);

    ws::MainWindow window(session);
    // The picker starts on --scenario; the switcher owns this session and the ones picked later.
    ws::ScenarioSwitcher switcher(&window, session, options);
    window.show();
    switcher.start();
    const int rc = QApplication::exec();
    switcher.stop();
    return rc;
}
