#include "CliApp.h"

#include "engine/SimulationRunner.h"
#include "scenario/ScenarioLoader.h"
#include "sim/Simulation.h"
#include "util/Duration.h"
#ifdef WS_HAVE_ETCD
#include "etcd/EtcdLoadGenerator.h"
#include "etcd/EtcdSession.h"
#endif

#include <QCommandLineParser>
#include <QEventLoop>
#include <QTextStream>
#include <QTimer>
#include <atomic>
#include <cstdio>
#include <unistd.h>

namespace ws {

namespace {

QTextStream& err() {
    static QTextStream s(stderr);
    return s;
}

int fail(const QString& message, int code = 2) {
    err() << "watchscope-cli: " << message << Qt::endl;
    return code;
}

// A --duration-like value that must be positive; nullopt with *error set otherwise.
std::optional<TimeUs> positiveDuration(const QString& option, const QString& value,
                                       QString* error) {
    QString why;
    const auto d = parseDuration(value, &why);
    if (d && *d > 0)
        return d;
    *error = QStringLiteral("--%1: %2").arg(option, d ? QStringLiteral("must be positive") : why);
    return std::nullopt;
}

const char* kUsage =
    "usage: watchscope-cli <command> [options]\n"
    "commands:\n"
    "  scenarios                      list the built-in scenarios\n"
    "  record SOURCE [options]        run a source and record anomalies and timelines\n"
    "      SOURCE: --scenario NAME|FILE.yaml | --etcd URL[,URL...] [--prefix /registry/]\n"
    "              [--cacert CA.pem] [--cert CLIENT.pem] [--key CLIENT-KEY.pem]\n"
    "      --resources LIST  --duration 30s  --speed X|max  --seed N\n"
    "      --anomalies FILE.jsonl  --timeline FILE.(csv|jsonl|trace.json)\n"
    "  load --etcd URL[,URL...] [--rate N/s] [--duration 30s] [--objects N] [--compact-every 10s]\n"
    "                                 write Kubernetes-shaped objects (create/update/delete mix)\n";

} // namespace

int CliApp::usage(int exitCode) {
    if (exitCode == 0)
        QTextStream(stdout) << kUsage;
    else
        err() << kUsage;
    return exitCode;
}

int CliApp::run(const QStringList& arguments) {
    if (arguments.size() < 2)
        return usage(2);
    const QString command = arguments.at(1);
    if (command == QLatin1String("--help") || command == QLatin1String("-h") ||
        command == QLatin1String("help"))
        return usage(0);
    if (command == QLatin1String("--version")) {
        QTextStream(stdout) << "watchscope-cli " << WS_VERSION << Qt::endl;
        return 0;
    }
    const QStringList rest = arguments.mid(1);
    if (command == QLatin1String("scenarios")) {
        if (rest.size() > 1)
            return fail(QStringLiteral("scenarios takes no arguments (got '%1')").arg(rest.at(1)));
        return scenarios();
    }
    if (command == QLatin1String("record"))
        return record(rest);
    if (command == QLatin1String("load"))
        return load(rest);
    if (command == QLatin1String("export") || command == QLatin1String("serve"))
        return fail(QStringLiteral("'%1' is not available in this build yet").arg(command));
    return fail(QStringLiteral("unknown command '%1' (try --help)").arg(command));
}

int CliApp::recordEtcd(const QStringList& endpoints, const QString& prefix,
                       const QStringList& resources, const QStringList& tls,
                       std::int64_t durationMs, const QString& anomalies, const QString& timeline) {
#ifdef WS_HAVE_ETCD
    EtcdSessionOptions options;
    options.connect.endpoints = endpoints;
    options.connect.tls.caFile = tls.value(0);
    options.connect.tls.certFile = tls.value(1);
    options.connect.tls.keyFile = tls.value(2);
    options.prefix = prefix.toStdString();
    options.resources = resources;
    options.outputs.anomaliesPath = anomalies;
    options.outputs.timelinePath = timeline;
    options.duration = std::chrono::milliseconds(durationMs);
    QString error;
    if (!EtcdSession::probe(options.connect, &error))
        return fail(error, 1);
    EtcdSession session(options);
    QEventLoop loop;
    QString failure;
    const bool progress = isatty(fileno(stderr));
    QObject::connect(&session, &Session::failed, &loop, [&](const QString& m) { failure = m; });
    QObject::connect(&session, &Session::finished, &loop, &QEventLoop::quit);
    QObject::connect(&session, &Session::updated, &loop, [&](const EngineUpdate& u) {
        if (progress)
            err() << QStringLiteral("\r%1  %2 events  %3 events/s ")
                         .arg(formatDuration(u.now))
                         .arg(u.totalEvents)
                         .arg(qRound64(u.eventsPerSecond))
                  << Qt::flush;
    });
    // The session ends itself after the duration; the timer is a backstop.
    QTimer::singleShot(durationMs + 15000, &loop, [&] { session.stop(); });
    session.start();
    loop.exec();
    session.stop();
    if (progress)
        err() << '\n';
    if (!failure.isEmpty())
        return fail(failure, 1);
    QTextStream(stdout) << QStringLiteral("recorded %1 of %2: %3 anomalies\n")
                               .arg(formatDuration(durationMs * kUsPerMs), session.description())
                               .arg(session.anomalies().size());
    return 0;
#else
    (void)endpoints, (void)prefix, (void)resources, (void)tls, (void)durationMs, (void)anomalies,
        (void)timeline;
    return fail(QStringLiteral("record: this build has no etcd support (gRPC not found)"));
#endif
}

int CliApp::load(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption etcd(QStringLiteral("etcd"), {}, QStringLiteral("URLS"));
    const QCommandLineOption rate(QStringLiteral("rate"), {}, QStringLiteral("N/s"));
    const QCommandLineOption duration(QStringLiteral("duration"), {}, QStringLiteral("D"));
    const QCommandLineOption objects(QStringLiteral("objects"), {}, QStringLiteral("N"));
    const QCommandLineOption compactEvery(QStringLiteral("compact-every"), {}, QStringLiteral("D"));
    const QCommandLineOption cacert(QStringLiteral("cacert"), {}, QStringLiteral("FILE"));
    const QCommandLineOption cert(QStringLiteral("cert"), {}, QStringLiteral("FILE"));
    const QCommandLineOption key(QStringLiteral("key"), {}, QStringLiteral("FILE"));
    parser.addOptions({etcd, rate, duration, objects, compactEvery, cacert, cert, key});
    if (!parser.parse(arguments))
        return fail(QStringLiteral("load: %1").arg(parser.errorText()));
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("load: unexpected argument '%1'")
                        .arg(parser.positionalArguments().first()));
    if (!parser.isSet(etcd))
        return fail(QStringLiteral("load: --etcd URL[,URL...] is required"));
#ifdef WS_HAVE_ETCD
    EtcdLoadOptions options;
    options.connect.endpoints = parser.value(etcd).split(QLatin1Char(','), Qt::SkipEmptyParts);
    options.connect.tls.caFile = parser.value(cacert);
    options.connect.tls.certFile = parser.value(cert);
    options.connect.tls.keyFile = parser.value(key);
    if (parser.isSet(rate)) {
        QString v = parser.value(rate);
        if (v.endsWith(QLatin1String("/s")))
            v.chop(2);
        bool ok = false;
        options.rate = v.toDouble(&ok);
        if (!ok || options.rate <= 0)
            return fail(
                QStringLiteral("--rate: bad value '%1': expected writes per second, e.g. 200/s")
                    .arg(parser.value(rate)));
    }
    for (const auto* o : {&duration, &compactEvery}) {
        if (!parser.isSet(*o))
            continue;
        QString error;
        const auto d = positiveDuration(o->names().first(), parser.value(*o), &error);
        if (!d)
            return fail(error);
        (o == &duration ? options.duration : options.compactEvery) =
            std::chrono::milliseconds(*d / kUsPerMs);
    }
    if (parser.isSet(objects)) {
        bool ok = false;
        options.objects = parser.value(objects).toInt(&ok);
        if (!ok || options.objects <= 0)
            return fail(QStringLiteral("--objects: bad value '%1': expected a positive integer")
                            .arg(parser.value(objects)));
    }
    QString error;
    if (!EtcdSession::probe(options.connect, &error))
        return fail(error, 1);
    EtcdLoadGenerator generator(options);
    if (isatty(fileno(stderr)))
        generator.onProgress = [](const EtcdLoadStats& st) {
            err() << QStringLiteral(
                         "\r%1 writes (%2 creates, %3 updates, %4 deletes), revision %5 ")
                         .arg(st.writes())
                         .arg(st.creates)
                         .arg(st.updates)
                         .arg(st.deletes)
                         .arg(st.lastRevision)
                  << Qt::flush;
        };
    if (!generator.run(&error))
        return fail(error, 1);
    const EtcdLoadStats st = generator.stats();
    QTextStream(stdout) << QStringLiteral(
                               "wrote %1 objects' changes: %2 creates, %3 updates, %4 deletes, "
                               "%5 compactions, revisions %6..%7\n")
                               .arg(options.objects)
                               .arg(st.creates)
                               .arg(st.updates)
                               .arg(st.deletes)
                               .arg(st.compactions)
                               .arg(st.firstRevision)
                               .arg(st.lastRevision);
    return 0;
#else
    return fail(QStringLiteral("load: this build has no etcd support (gRPC not found)"));
#endif
}

int CliApp::scenarios() {
    QTextStream out(stdout);
    QString error;
    const std::vector<ScenarioSummary> list = ScenarioLoader::builtinSummaries(&error);
    if (!error.isEmpty())
        return fail(error, 1);
    int width = 0;
    for (const ScenarioSummary& s : list)
        width = std::max(width, static_cast<int>(s.name.size()));
    for (const ScenarioSummary& s : list)
        out << s.name.leftJustified(width + 2) << s.description << '\n';
    return 0;
}

int CliApp::record(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption scenario(QStringLiteral("scenario"), {}, QStringLiteral("NAME"));
    const QCommandLineOption etcd(QStringLiteral("etcd"), {}, QStringLiteral("URLS"));
    const QCommandLineOption prefix(QStringLiteral("prefix"), {}, QStringLiteral("PREFIX"));
    const QCommandLineOption kubeconfig(QStringLiteral("kubeconfig"), {}, QStringLiteral("PATH"));
    const QCommandLineOption context(QStringLiteral("context"), {}, QStringLiteral("NAME"));
    const QCommandLineOption server(QStringLiteral("server"), {}, QStringLiteral("URL"));
    const QCommandLineOption resources(QStringLiteral("resources"), {}, QStringLiteral("LIST"));
    const QCommandLineOption duration(QStringLiteral("duration"), {}, QStringLiteral("D"));
    const QCommandLineOption speed(QStringLiteral("speed"), {}, QStringLiteral("X"));
    const QCommandLineOption seed(QStringLiteral("seed"), {}, QStringLiteral("N"));
    const QCommandLineOption out(QStringLiteral("out"), {}, QStringLiteral("FILE"));
    const QCommandLineOption anomalies(QStringLiteral("anomalies"), {}, QStringLiteral("FILE"));
    const QCommandLineOption timeline(QStringLiteral("timeline"), {}, QStringLiteral("FILE"));
    const QCommandLineOption cacert(QStringLiteral("cacert"), {}, QStringLiteral("FILE"));
    const QCommandLineOption cert(QStringLiteral("cert"), {}, QStringLiteral("FILE"));
    const QCommandLineOption key(QStringLiteral("key"), {}, QStringLiteral("FILE"));
    parser.addOptions({scenario, etcd, prefix, kubeconfig, context, server, resources, duration,
                       speed, seed, out, anomalies, timeline, cacert, cert, key});
    if (!parser.parse(arguments))
        return fail(QStringLiteral("record: %1").arg(parser.errorText()));
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("record: unexpected argument '%1'")
                        .arg(parser.positionalArguments().first()));
    const int sources = int(parser.isSet(scenario)) + int(parser.isSet(etcd)) +
                        int(parser.isSet(kubeconfig)) + int(parser.isSet(server));
    if (sources != 1)
        return fail(QStringLiteral("record: give exactly one source: --scenario NAME, --etcd URLS, "
                                   "--kubeconfig PATH or --server URL"));
    if (parser.isSet(etcd)) {
        std::int64_t durationMs = 30000; // a live source runs for --duration (default 30s)
        if (parser.isSet(duration)) {
            QString error;
            const auto d =
                positiveDuration(QStringLiteral("duration"), parser.value(duration), &error);
            if (!d)
                return fail(error);
            durationMs = *d / kUsPerMs;
        }
        if (parser.isSet(out))
            return fail(QStringLiteral("--out: capture files (.wscap) are not supported yet"));
        return recordEtcd(parser.value(etcd).split(QLatin1Char(','), Qt::SkipEmptyParts),
                          parser.isSet(prefix) ? parser.value(prefix)
                                               : QStringLiteral("/registry/"),
                          parser.value(resources).split(QLatin1Char(','), Qt::SkipEmptyParts),
                          {parser.value(cacert), parser.value(cert), parser.value(key)}, durationMs,
                          parser.value(anomalies), parser.value(timeline));
    }
    if (!parser.isSet(scenario))
        return fail(QStringLiteral(
            "record: --kubeconfig and --server sources are not available in this build yet"));

    SimulationOptions options;
    options.scenario = parser.value(scenario);
    if (parser.isSet(duration)) {
        QString error;
        const auto d = positiveDuration(QStringLiteral("duration"), parser.value(duration), &error);
        if (!d)
            return fail(error);
        options.duration = *d;
    }
    if (parser.isSet(speed)) {
        const QString v = parser.value(speed);
        bool ok = false;
        const double x = v == QLatin1String("max") ? 0.0 : v.toDouble(&ok);
        if (v != QLatin1String("max") && (!ok || x <= 0 || x > 1e6))
            return fail(
                QStringLiteral("--speed: bad value '%1': expected a positive number or 'max'")
                    .arg(v));
        options.speed = x;
    }
    if (parser.isSet(seed)) {
        bool ok = false;
        const qulonglong s = parser.value(seed).toULongLong(&ok);
        if (!ok)
            return fail(QStringLiteral("--seed: bad value '%1': expected a non-negative integer")
                            .arg(parser.value(seed)));
        options.seed = s;
    }
    options.outputs.anomaliesPath = parser.value(anomalies);
    options.outputs.timelinePath = parser.value(timeline);
    options.outputs.capturePath = parser.value(out);

    SimulationRunner runner;
    QString error;
    if (!runner.prepare(options, &error))
        return fail(error);
    if (parser.isSet(resources)) {
        const QStringList known = runner.resources();
        for (const QString& r : parser.value(resources).split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (!known.contains(r))
                return fail(
                    QStringLiteral("--resources: scenario has no resource '%1' (it has: %2)")
                        .arg(r, known.join(QStringLiteral(", "))));
    }
    const bool progress = isatty(fileno(stderr));
    std::atomic<bool> stop{false};
    TimeUs lastProgress = -kUsPerSecond;
    const TimeUs total = runner.simulation().duration();
    const bool ok = runner.run(
        stop,
        [&](EngineUpdate&& u) {
            if (!progress || (u.now - lastProgress < kUsPerSecond && !u.finished))
                return;
            lastProgress = u.now;
            err() << QStringLiteral("\r%1 / %2 virtual  %3 events  %4 events/s  %5 anomalies ")
                         .arg(formatDuration(u.now), formatDuration(total))
                         .arg(u.totalEvents)
                         .arg(qRound64(u.eventsPerSecond))
                         .arg(runner.anomalies().size())
                  << (u.finished ? "\n" : "") << Qt::flush;
        },
        &error, milliseconds(200));
    if (!ok)
        return fail(error, 1);
    QTextStream(stdout) << QStringLiteral("recorded %1 of %2: %3 events, %4 anomalies\n")
                               .arg(formatDuration(runner.simulation().now()), runner.description())
                               .arg(runner.simulation().totalWrites())
                               .arg(runner.anomalies().size());
    return 0;
}

} // namespace ws
