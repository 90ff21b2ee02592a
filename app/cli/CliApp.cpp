#include "CliApp.h"

#include "WatcherTableFile.h"

#include "StopSignals.h"

#include "Version.h"
#include "engine/Session.h"
#include "engine/SourceOptions.h"
#include "kube/ServerProfile.h"
#include "model/AnomalyKind.h"
#include "scenario/ScenarioLoader.h"
#include "serve/ServeRunner.h"
#include "sources/SourceFactory.h"
#include "sources/capture/CaptureReplay.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdSource.h"
#include "util/Duration.h"
#include "whatif/WhatIfComparison.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>
#include <QTextStream>
#include <QTimer>
#include <atomic>
#include <cstdio>
#include <map>
#include <tuple>
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
    "            | --kubeconfig PATH [--context NAME] | --server URL [--server URL...]\n"
    "              [--client-go V] [--min-watch-timeout D (watches ask for D..2D; 5m)]\n"
    "              [--wire json|protobuf (built-in resources' lists and watches; default:\n"
    "               as client-go V's typed clients ask, protobuf from 0.32)]\n"
    "      --resources LIST  --duration 30s (scenarios: virtual time; default: their own)\n"
    "      --out FILE.wscap  --anomalies FILE.jsonl  --timeline FILE.(csv|jsonl|trace.json)\n"
    "      --watchers FILE.jsonl  the watcher table at the end (state, RV, objects held, ...)\n"
    "      --keep-secrets    keep Secrets' values (default: salted digests, live and in --out)\n"
    "  export FILE.wscap [--anomalies FILE.jsonl] [--timeline FILE.(csv|jsonl|trace.json)]\n"
    "         [--watchers FILE.jsonl]\n"
    "                                 replay a capture: what record wrote live, again\n"
    "  whatif FILE.wscap --server-version V [--client-go V] [--feature-gates G=true,...]\n"
    "         [--etcd-version V] [--compaction-interval D] [--cluster SCENARIO]\n"
    "         [--anomalies FILE.jsonl] [--timeline FILE]\n"
    "                                 replay a scenario or etcd capture under other versions\n"
    "                                 (an etcd capture's writes go through simulated apiservers\n"
    "                                 and clients: one informer per resource, or the apiservers,\n"
    "                                 clients and faults of --cluster); compare anomalies\n"
    "  serve --listen HOST:PORT --scenario NAME [--server-version 1.16..1.36]\n"
    "        [--feature-gates G=true,...] [--etcd-version V] [--seed N] [--apiserver N]\n"
    "        [--duration D]\n"
    "        [--tls-cert F --tls-key F] [--client-ca F] [--token-file F] [--authorize-group G]\n"
    "        [--audit-log-path FILE] [--state-dir DIR]\n"
    "                                 serve a scenario as a kube-apiserver (kubectl works);\n"
    "                                 --state-dir keeps its etcd in DIR/store.jsonl (a line per\n"
    "                                 revision): started again with DIR, serve goes on from\n"
    "                                 that store with fresh watch caches, as a restarted\n"
    "                                 kube-apiserver does\n"
    "  load --etcd URL[,URL...] [--rate N/s] [--duration 30s] [--objects N] [--compact-every 10s]\n"
    "       [--writers N] [--batch N]\n"
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
    if (command == QLatin1String("serve"))
        return serve(rest);
    if (command == QLatin1String("export"))
        return exportCapture(rest);
    if (command == QLatin1String("whatif"))
        return whatIf(rest);
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
    const QCommandLineOption writers(QStringLiteral("writers"), {}, QStringLiteral("N"));
    const QCommandLineOption batch(QStringLiteral("batch"), {}, QStringLiteral("N"));
    parser.addOptions(
        {etcd, rate, duration, objects, compactEvery, cacert, cert, key, writers, batch});
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
    for (const auto& [option, field, what] :
         {std::tuple{&writers, &options.concurrency, "parallel writers"},
          std::tuple{&batch, &options.batch, "writes per transaction"}}) {
        if (!parser.isSet(*option))
            continue;
        bool ok = false;
        *field = parser.value(*option).toInt(&ok);
        if (!ok || *field <= 0 || *field > 10000)
            return fail(
                QStringLiteral("--%1: bad value '%2': expected %3, 1 to 10000")
                    .arg(option->names().first(), parser.value(*option), QLatin1String(what)));
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
    const QCommandLineOption watchers(QStringLiteral("watchers"), {}, QStringLiteral("FILE"));
    parser.addOptions({out, anomalies, timeline, watchers});
    if (!parser.parse(arguments))
        return fail(QStringLiteral("record: %1").arg(parser.errorText()));
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("record: unexpected argument '%1'")
                        .arg(parser.positionalArguments().first()));
    QString error;
    auto spec = sourceOptions.spec(false, &error);
    if (!spec)
        return fail(QStringLiteral("record: %1").arg(error));
    // A live source runs for --duration (default 30s); an audit log not followed is history,
    // read to its end.
    const bool history = spec->kind == SourceSpec::Kind::Scenario ||
                         (spec->kind == SourceSpec::Kind::AuditLog && !spec->follow);
    if (!history && !spec->duration)
        spec->duration = seconds(30);
    SessionOutputs outputs;
    outputs.capturePath = parser.value(out);
    outputs.anomaliesPath = parser.value(anomalies);
    outputs.timelinePath = parser.value(timeline);

    return runSession(*spec, outputs, QStringLiteral("recorded"), parser.value(watchers));
}

int CliApp::exportCapture(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption anomalies(QStringLiteral("anomalies"), {}, QStringLiteral("FILE"));
    const QCommandLineOption timeline(QStringLiteral("timeline"), {}, QStringLiteral("FILE"));
    const QCommandLineOption watchers(QStringLiteral("watchers"), {}, QStringLiteral("FILE"));
    parser.addOptions({anomalies, timeline, watchers});
    if (!parser.parse(arguments))
        return fail(QStringLiteral("export: %1").arg(parser.errorText()));
    const QStringList files = parser.positionalArguments();
    if (files.size() != 1)
        return fail(files.isEmpty()
                        ? QStringLiteral("export: which capture? (export FILE.wscap)")
                        : QStringLiteral("export: unexpected argument '%1'").arg(files.at(1)));
    if (!parser.isSet(anomalies) && !parser.isSet(timeline) && !parser.isSet(watchers))
        return fail(QStringLiteral(
            "export: nothing to write (give --anomalies, --timeline and/or --watchers)"));
    SourceSpec spec;
    spec.kind = SourceSpec::Kind::Capture;
    spec.capture = files.front();
    spec.captureSpeed = 0;
    QString error;
    const auto header = CaptureReplay::header(spec.capture, &error);
    if (!header)
        return fail(QStringLiteral("export: %1").arg(error));
    spec.resources = header->resources; // what the live session showed
    SessionOutputs outputs;
    outputs.anomaliesPath = parser.value(anomalies);
    outputs.timelinePath = parser.value(timeline);
    outputs.lossless = true; // nothing is live: the replay waits for the disk
    return runSession(spec, outputs, QStringLiteral("exported"), parser.value(watchers));
}

int CliApp::whatIf(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption version(QStringLiteral("server-version"), {}, QStringLiteral("V"));
    const QCommandLineOption clientGo(QStringLiteral("client-go"), {}, QStringLiteral("V"));
    const QCommandLineOption gates(QStringLiteral("feature-gates"), {}, QStringLiteral("G"));
    const QCommandLineOption anomalies(QStringLiteral("anomalies"), {}, QStringLiteral("FILE"));
    const QCommandLineOption timeline(QStringLiteral("timeline"), {}, QStringLiteral("FILE"));
    const QCommandLineOption etcdVersion(QStringLiteral("etcd-version"), {}, QStringLiteral("V"));
    const QCommandLineOption compaction(QStringLiteral("compaction-interval"), {},
                                        QStringLiteral("D"));
    const QCommandLineOption cluster(QStringLiteral("cluster"), {}, QStringLiteral("SCENARIO"));
    parser.addOptions(
        {version, clientGo, gates, anomalies, timeline, etcdVersion, compaction, cluster});
    if (!parser.parse(arguments))
        return fail(QStringLiteral("whatif: %1").arg(parser.errorText()));
    const QStringList files = parser.positionalArguments();
    if (files.size() != 1)
        return fail(QStringLiteral("whatif: give exactly one capture (whatif FILE.wscap ...)"));
    SourceSpec spec;
    spec.kind = SourceSpec::Kind::Capture;
    spec.capture = files.front();
    for (const QString& g : parser.values(gates))
        spec.whatIf.featureGates << g.split(u',', Qt::SkipEmptyParts);
    spec.whatIf.serverVersion = parser.value(version);
    spec.whatIf.clientGo = parser.value(clientGo);
    spec.whatIf.etcdVersion = parser.value(etcdVersion);
    spec.whatIf.cluster = parser.value(cluster);
    if (parser.isSet(compaction)) {
        QString why;
        const auto d = parseDuration(parser.value(compaction), &why);
        if (!d)
            return fail(QStringLiteral("whatif: --compaction-interval: %1").arg(why));
        spec.whatIf.compactionInterval = *d;
    }
    if (!spec.whatIf.any())
        return fail(QStringLiteral("whatif: what if what? (give --server-version, --client-go, "
                                   "--feature-gates, --etcd-version, --compaction-interval or "
                                   "--cluster)"));
    QString error;
    const auto header = CaptureReplay::header(spec.capture, &error);
    if (!header)
        return fail(QStringLiteral("whatif: %1").arg(error));
    spec.resources = header->resources;

    SessionOutputs outputs;
    outputs.anomaliesPath = parser.value(anomalies);
    outputs.timelinePath = parser.value(timeline);
    outputs.lossless = true; // nothing is live: the replays wait for the disk
    const bool progress = isatty(fileno(stderr));
    TimeUs lastProgress = -kUsPerSecond;
    int lastRun = 0;
    const auto result = WhatIfComparison::run(
        spec, outputs,
        [&](int run, TimeUs now) {
            if (run != lastRun)
                lastRun = run, lastProgress = -kUsPerSecond;
            if (!progress || now - lastProgress < kUsPerSecond)
                return;
            lastProgress = now;
            err() << QStringLiteral("\r%1 %2").arg(run == 0 ? "as recorded" : "what if    ",
                                                   formatDuration(now))
                  << Qt::flush;
        },
        nullptr, &error);
    if (progress)
        err() << "\r" << QString(40, u' ') << "\r" << Qt::flush;
    if (!result)
        return fail(QStringLiteral("whatif: %1").arg(error), 1);
    QTextStream out(stdout);
    out << QStringLiteral("%1  %2  %3\n")
               .arg(QStringLiteral("anomaly kind"), -22)
               .arg(QStringLiteral("as recorded"), 12)
               .arg(result->whatIfLabel);
    for (const WhatIfKindCount& k : result->kinds) {
        const QString change = k.change();
        out << QStringLiteral("%1  %2  %3%4\n")
                   .arg(k.kind, -22)
                   .arg(k.recorded, 12)
                   .arg(k.whatIf)
                   .arg(change.isEmpty() ? QString() : QStringLiteral("   (%1)").arg(change));
    }
    if (result->kinds.empty())
        out << "no anomalies either way\n";
    return 0;
}

int CliApp::runSession(const SourceSpec& spec, const SessionOutputs& outputs, const QString& verb,
                       const QString& watchersPath) {
    QString error;
    // Said before the session runs, not after it: the table is written at its end.
    if (!watchersPath.isEmpty() && !WatcherTableFile::writable(watchersPath, &error))
        return fail(error);
    auto session = Session::prepared(SourceFactory::create(spec, &error), spec, outputs, &error);
    if (!session)
        return fail(error);
    // Before anything is sent: the user may still stop it.
    for (const QString& w : session->securityWarnings())
        err() << QStringLiteral("watchscope-cli: warning: %1\n").arg(w) << Qt::flush;
    const bool progress = isatty(fileno(stderr));
    TimeUs lastProgress = -kUsPerSecond;
    qint64 anomalyCount = 0;
    qint64 totalEvents = 0;
    TimeUs endedAt = 0;
    FlowStats flow;
    QVector<WatcherSnapshot> lastWatchers;
    qsizetype warningsPrinted = 0; // the sources' session warnings, each printed once
    const StopSignals stopSignals(*session);
    const bool ok = session->runHere(
        [&](const EngineUpdate& u) {
            anomalyCount += u.anomalies.size();
            for (; warningsPrinted < u.warnings.size(); ++warningsPrinted)
                err() << (progress ? QStringLiteral("\r%1\r").arg(QString(79, u' ')) : QString())
                      << QStringLiteral("watchscope-cli: warning: %1\n")
                             .arg(u.warnings[warningsPrinted])
                      << Qt::flush;
            // A file that failed says so at once; the session goes on without it.
            if (!u.flow.fileError.isEmpty() && flow.fileError.isEmpty())
                err() << (progress ? "\n" : "")
                      << QStringLiteral("watchscope-cli: %1 (recording stopped)\n")
                             .arg(u.flow.fileError)
                      << Qt::flush;
            flow = u.flow;
            totalEvents = u.totalEvents;
            if (!watchersPath.isEmpty())
                lastWatchers = u.watchers; // shared, not copied

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
        &error,
        // Progress shows once a second and reads nothing of an update but counts: an update 30
        // times a second (a snapshot of every watcher each time) was 7 % of reading an audit log.
        milliseconds(250));
    if (!ok) {
        if (!flow.fileError.isEmpty() && error == flow.fileError)
            return 1; // said already, when it happened
        return fail(error, 1);
    }
    if (const int signal = StopSignals::received())
        err() << (progress ? "\n" : "")
              << QStringLiteral("watchscope-cli: stopped by %1; everything up to here is written\n")
                     .arg(signal == SIGINT ? QStringLiteral("Ctrl-C (SIGINT)")
                                           : QStringLiteral("SIGTERM"))
              << Qt::flush;
    for (int i = 0; i < session->sourceCount(); ++i)
        if (const QString w = session->source(i)->warning(); !w.isEmpty())
            err() << QStringLiteral("watchscope-cli: warning: %1\n").arg(w) << Qt::flush;
    // What the files could not take in time (and how often the sources waited for the engine).
    flow.fileError.clear();
    if (const QString f = flow.summary(); !f.isEmpty())
        err() << QStringLiteral("watchscope-cli: warning: %1\n").arg(f) << Qt::flush;
    const auto incidents = static_cast<qint64>(session->pipeline().incidents().size());
    QTextStream(stdout) << QStringLiteral("%1 %2 of %3: %4 events, %5 anomalies in %6 %7\n")
                               .arg(verb, formatDuration(endedAt), session->description())
                               .arg(totalEvents)
                               .arg(anomalyCount)
                               .arg(incidents)
                               .arg(incidents == 1 ? QStringLiteral("incident")
                                                   : QStringLiteral("incidents"));
    // The session's memory holds a bounded number of anomalies: say how many it let go, and
    // where every one of them still is.
    if (const AnomalyStore& store = session->pipeline().anomalyStore(); store.evicted() > 0)
        QTextStream(stdout)
            << QStringLiteral("%1 older anomalies not kept in memory (it holds the "
                              "newest %2 of %3); the incidents count every one%4\n")
                   .arg(store.evicted())
                   .arg(store.added() - store.evicted())
                   .arg(store.added())
                   .arg(outputs.anomaliesPath.isEmpty()
                            ? QString()
                            : QStringLiteral(", %1 has every one").arg(outputs.anomaliesPath));
    // Every revision a live source was responsible for: seen, reported lost, or still owed.
    for (int i = 0; i < session->sourceCount(); ++i)
        for (const SourceRevisionAccount& a : session->source(i)->revisionAccounts())
            QTextStream(stdout) << QStringLiteral("revision account of the %1: %2\n")
                                       .arg(a.name, a.account.summary());
    if (!outputs.capturePath.isEmpty() && session->pipeline().bytesReceived() > 0) {
        const qint64 onDisk = QFileInfo(outputs.capturePath).size();
        const qint64 received = session->pipeline().bytesReceived();
        QTextStream(stdout) << QStringLiteral("capture %1: %2 bytes, %3 of the %4 bytes received\n")
                                   .arg(outputs.capturePath)
                                   .arg(onDisk)
                                   .arg(received > 0 ? double(onDisk) / double(received) : 0.0, 0,
                                        'f', 3)
                                   .arg(received);
    }
    if (!watchersPath.isEmpty() && !WatcherTableFile::write(watchersPath, lastWatchers, &error))
        return fail(error, 1);
    return 0;
}

int CliApp::serve(const QStringList& arguments) {
    if (arguments.contains(QLatin1String("--help")) || arguments.contains(QLatin1String("-h")))
        return usage(0);
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption listen(QStringLiteral("listen"), {}, QStringLiteral("HOST:PORT"));
    const QCommandLineOption scenario(QStringLiteral("scenario"), {}, QStringLiteral("NAME"));
    const QCommandLineOption etcd(QStringLiteral("etcd"), {}, QStringLiteral("URLS"));
    const QCommandLineOption version(QStringLiteral("server-version"), {}, QStringLiteral("V"));
    const QCommandLineOption gates(QStringLiteral("feature-gates"), {}, QStringLiteral("G"));
    const QCommandLineOption seed(QStringLiteral("seed"), {}, QStringLiteral("N"));
    const QCommandLineOption apiserver(QStringLiteral("apiserver"), {}, QStringLiteral("N"));
    const QCommandLineOption duration(QStringLiteral("duration"), {}, QStringLiteral("D"));
    const QCommandLineOption speed(QStringLiteral("speed"), {}, QStringLiteral("X"));
    const QCommandLineOption tlsCert(QStringLiteral("tls-cert"), {}, QStringLiteral("FILE"));
    const QCommandLineOption tlsKey(QStringLiteral("tls-key"), {}, QStringLiteral("FILE"));
    const QCommandLineOption clientCa(QStringLiteral("client-ca"), {}, QStringLiteral("FILE"));
    const QCommandLineOption tokenFile(QStringLiteral("token-file"), {}, QStringLiteral("FILE"));
    const QCommandLineOption authorize(QStringLiteral("authorize-group"), {}, QStringLiteral("G"));
    const QCommandLineOption etcdVersion(QStringLiteral("etcd-version"), {}, QStringLiteral("V"));
    const QCommandLineOption auditLog(QStringLiteral("audit-log-path"), {}, QStringLiteral("FILE"));
    const QCommandLineOption stateDir(QStringLiteral("state-dir"), {}, QStringLiteral("DIR"));
    parser.addOptions({listen, scenario, etcd, version, gates, etcdVersion, seed, apiserver,
                       duration, speed, tlsCert, tlsKey, clientCa, tokenFile, authorize, auditLog,
                       stateDir});
    if (!parser.parse(arguments))
        return fail(QStringLiteral("serve: %1").arg(parser.errorText()));
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("serve: unexpected argument '%1'")
                        .arg(parser.positionalArguments().first()));
    if (parser.isSet(etcd))
        return fail(QStringLiteral("serve --etcd is not available in this build yet: serve a "
                                   "--scenario"));
    ServeOptions options;
    if (parser.isSet(scenario))
        options.scenario = parser.value(scenario);
    if (!parser.isSet(listen))
        return fail(QStringLiteral("serve: --listen HOST:PORT is required (e.g. 127.0.0.1:6443; "
                                   "port 0 picks a free one)"));
    {
        // HOST:PORT, [V6]:PORT, :PORT or PORT; no host means loopback: serving to the network
        // is something to ask for (0.0.0.0:PORT), never a default.
        const QString l = parser.value(listen);
        const qsizetype colon = l.lastIndexOf(u':');
        bool ok = false;
        const uint port = l.mid(colon + 1).toUInt(&ok);
        if (!ok || port > 65535)
            return fail(QStringLiteral("--listen: bad value '%1': expected HOST:PORT").arg(l));
        QString host = colon < 0 ? QString() : l.left(colon);
        if (host.startsWith(u'[') && host.endsWith(u']'))
            host = host.mid(1, host.size() - 2);
        if (host.isEmpty() || host == QLatin1String("localhost"))
            host = QStringLiteral("127.0.0.1");
        options.listenHost = host;
        options.listenPort = static_cast<quint16>(port);
    }
    if (parser.isSet(version)) {
        QString why;
        if (!ServerProfile::fromVersion(parser.value(version), &why))
            return fail(QStringLiteral("--server-version: %1").arg(why));
        options.serverVersion = parser.value(version);
    }
    options.etcdVersion = parser.value(etcdVersion);
    for (const QString& g : parser.values(gates))
        options.featureGates << g.split(u',', Qt::SkipEmptyParts);
    if (parser.isSet(seed)) {
        bool ok = false;
        options.seed = parser.value(seed).toULongLong(&ok);
        if (!ok)
            return fail(QStringLiteral("--seed: bad value '%1'").arg(parser.value(seed)));
    }
    if (parser.isSet(apiserver)) {
        bool ok = false;
        options.apiserver = parser.value(apiserver).toInt(&ok);
        if (!ok || options.apiserver < 0)
            return fail(QStringLiteral("--apiserver: bad value '%1'").arg(parser.value(apiserver)));
    }
    if (parser.isSet(duration)) {
        QString error;
        const auto d = positiveDuration(QStringLiteral("duration"), parser.value(duration), &error);
        if (!d)
            return fail(error);
        options.duration = d;
    }
    if (parser.isSet(speed)) {
        bool ok = false;
        options.speed = parser.value(speed).toDouble(&ok);
        if (!ok || options.speed <= 0)
            return fail(QStringLiteral("--speed: bad value '%1'").arg(parser.value(speed)));
    }
    options.tlsCertFile = parser.value(tlsCert);
    options.tlsKeyFile = parser.value(tlsKey);
    options.clientCaFile = parser.value(clientCa);
    options.tokenFile = parser.value(tokenFile);
    options.auditLogPath = parser.value(auditLog);
    if (parser.isSet(auditLog) && options.auditLogPath.isEmpty())
        return fail(QStringLiteral("--audit-log-path: empty file name"));
    options.stateDir = parser.value(stateDir);
    if (parser.isSet(stateDir) && options.stateDir.isEmpty())
        return fail(QStringLiteral("--state-dir: empty directory name"));
    for (const QString& g : parser.values(authorize))
        options.authorizeGroups << g.split(u',', Qt::SkipEmptyParts);
    if (!options.tlsKeyFile.isEmpty() && options.tlsCertFile.isEmpty())
        return fail(QStringLiteral("--tls-key needs --tls-cert"));
    if (!options.authorizeGroups.isEmpty() && !options.authenticates())
        return fail(QStringLiteral("--authorize-group needs --client-ca or --token-file"));
    QTextStream out(stdout);
    return ServeRunner::run(
        options, [&out](const QString& line) { out << line << Qt::endl; },
        [](const QString& line) { fail(line); });
}

} // namespace ws
