#include "CliApp.h"

#include "Version.h"
#include "engine/Session.h"
#include "engine/SourceOptions.h"
#include "scenario/ScenarioLoader.h"
#include "sources/SourceFactory.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdSource.h"
#include "util/Duration.h"

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
    "      SOURCE: --scenario NAME|FILE.yaml [--speed X|max] [--seed N]\n"
    "            | --etcd URL[,URL...] [--prefix /registry/]\n"
    "              [--cacert CA.pem] [--cert CLIENT.pem] [--key CLIENT-KEY.pem]\n"
    "      --resources LIST  --duration 30s (scenarios: virtual time; default: their own)\n"
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
    if (!EtcdSource::probe(options.connect, &error))
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
    const SourceOptions sourceOptions(parser);
    const QCommandLineOption out(QStringLiteral("out"), {}, QStringLiteral("FILE"));
    const QCommandLineOption anomalies(QStringLiteral("anomalies"), {}, QStringLiteral("FILE"));
    const QCommandLineOption timeline(QStringLiteral("timeline"), {}, QStringLiteral("FILE"));
    parser.addOptions({out, anomalies, timeline});
    if (!parser.parse(arguments))
        return fail(QStringLiteral("record: %1").arg(parser.errorText()));
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("record: unexpected argument '%1'")
                        .arg(parser.positionalArguments().first()));
    QString error;
    auto spec = sourceOptions.spec(false, &error);
    if (!spec)
        return fail(QStringLiteral("record: %1").arg(error));
    if (spec->kind != SourceSpec::Kind::Scenario && !spec->duration)
        spec->duration = seconds(30); // a live source runs for --duration (default 30s)
    if (parser.isSet(out))
        return fail(QStringLiteral("--out: capture files (.wscap) are not supported yet"));
    SessionOutputs outputs;
    outputs.anomaliesPath = parser.value(anomalies);
    outputs.timelinePath = parser.value(timeline);

    auto session = Session::prepared(SourceFactory::create(*spec, &error), *spec, outputs, &error);
    if (!session)
        return fail(error);
    const bool progress = isatty(fileno(stderr));
    TimeUs lastProgress = -kUsPerSecond;
    qint64 anomalyCount = 0;
    qint64 totalEvents = 0;
    TimeUs endedAt = 0;
    const bool ok = session->runHere(
        [&](const EngineUpdate& u) {
            anomalyCount += u.anomalies.size();
            totalEvents = u.totalEvents;
            endedAt = u.now;
            if (!progress || (u.now - lastProgress < kUsPerSecond && !u.finished))
                return;
            lastProgress = u.now;
            err() << QStringLiteral("\r%1  %2 events  %3 events/s  %4 anomalies %5")
                         .arg(formatDuration(u.now))
                         .arg(u.totalEvents)
                         .arg(qRound64(u.eventsPerSecond))
                         .arg(anomalyCount)
                         .arg(u.sourceState)
                  << (u.finished ? "\n" : "") << Qt::flush;
        },
        &error);
    if (!ok)
        return fail(error, 1);
    QTextStream(stdout) << QStringLiteral("recorded %1 of %2: %3 events, %4 anomalies\n")
                               .arg(formatDuration(endedAt), session->description())
                               .arg(totalEvents)
                               .arg(anomalyCount);
    return 0;
}

} // namespace ws
