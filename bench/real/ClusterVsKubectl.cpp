// WatchScope's cluster source against `kubectl get -w -o json` on the real kube-apiserver, side
// by side in one run: a real control plane (tests/support/RealCluster.h; kube-apiserver and etcd
// built by tests/peers/build.sh), the client-go writer of tests/peers/ writing ConfigMaps through
// it, and both clients watching configmaps of all namespaces at once. Each round starts both
// together (the order alternating) and measures each one's CPU seconds (user + sys, from
// /usr/bin/time) and the events it received; the table gives CPU seconds per 100,000 events and
// their ratio pair by pair.
//
//   ws-bench-real [--rounds 3] [--seconds 60] [--rate 300] [--apiserver 1.35] [--etcd 3.6]
//                 [--wire json|protobuf]

#include "support/RealCluster.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QRegularExpression>
#include <QTextStream>

#include <cstdio>

using ws::test::RealCluster;
using User = ws::test::RealCluster::User;

namespace {

QTextStream& out() {
    static QTextStream s(stdout);
    return s;
}

// "user sys" as /usr/bin/time -f '%U %S' wrote it (its last line), summed; -1 if unreadable.
double cpuSeconds(const QString& file) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    const QList<QByteArray> parts = lines.last().split(' ');
    return parts.size() == 2 ? parts[0].toDouble() + parts[1].toDouble() : -1;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption roundsOpt("rounds", "rounds", "N", "3");
    const QCommandLineOption secondsOpt("seconds", "seconds of watching a round", "S", "60");
    const QCommandLineOption rateOpt("rate", "writes a second", "N", "300");
    const QCommandLineOption apiserverOpt("apiserver", "kube-apiserver peer", "V", "1.35");
    const QCommandLineOption etcdOpt("etcd", "etcd: 3.4 (Debian) or 3.6 (peer)", "V", "3.6");
    const QCommandLineOption wireOpt("wire", "WatchScope's wire: json or protobuf", "W", "json");
    parser.addOptions({roundsOpt, secondsOpt, rateOpt, apiserverOpt, etcdOpt, wireOpt});
    parser.process(app);
    const int rounds = parser.value(roundsOpt).toInt();
    const int seconds = parser.value(secondsOpt).toInt();
    const QString cli = QCoreApplication::applicationDirPath() + "/../app/watchscope-cli";
    const QString writer = ws::test::peerBinary("writer-0.35");

    ws::test::RealClusterOptions o;
    o.apiserverVersion = parser.value(apiserverOpt);
    o.etcd = parser.value(etcdOpt);
    RealCluster cluster(o);
    if (const QString missing = cluster.missing(); !missing.isEmpty() || writer.isEmpty()) {
        std::fprintf(stderr, "ws-bench-real: %s\n",
                     qPrintable(missing.isEmpty() ? "writer-0.35 is not built" : missing));
        return 2;
    }
    QString error;
    if (!cluster.start(&error) ||
        !cluster.kubectlAs(User::Writer, 0, {"create", "namespace", "load"}, nullptr, &error)) {
        std::fprintf(stderr, "ws-bench-real: %s\n", qPrintable(error));
        return 1;
    }
    const QString dir = cluster.dir();
    out() << "kube-apiserver " << o.apiserverVersion << " on etcd " << o.etcd << ", " << rounds
          << " rounds of " << seconds << " s at " << parser.value(rateOpt)
          << " writes/s, WatchScope --wire " << parser.value(wireOpt) << "\n"
          << "round\tclient\tcpu_s\tevents\tcpu_s_per_100k\tratio\n"
          << Qt::flush;
    for (int round = 1; round <= rounds; ++round) {
        QProcess load;
        load.start(writer, {"--kubeconfig", cluster.kubeconfig(User::Writer), "--namespace", "load",
                            "--rate", parser.value(rateOpt), "--duration",
                            QStringLiteral("%1s").arg(seconds + 10), "--objects", "1000",
                            "--workers", "16"});
        QProcess ws;
        ws.setProcessChannelMode(QProcess::MergedChannels);
        const QStringList wsArgs{"-f",
                                 "%U %S",
                                 "-o",
                                 dir + "/ws.time",
                                 cli,
                                 "record",
                                 "--kubeconfig",
                                 cluster.kubeconfig(User::Admin),
                                 "--resources",
                                 "configmaps",
                                 "--wire",
                                 parser.value(wireOpt),
                                 "--duration",
                                 QStringLiteral("%1s").arg(seconds)};
        QProcess kubectl;
        kubectl.setStandardOutputFile(dir + "/kubectl.out");
        const QStringList kubectlArgs{"-f",
                                      "%U %S",
                                      "-o",
                                      dir + "/kubectl.time",
                                      "timeout",
                                      "-s",
                                      "INT",
                                      QString::number(seconds),
                                      "kubectl",
                                      "--kubeconfig",
                                      cluster.kubeconfig(User::Admin),
                                      "get",
                                      "configmaps",
                                      "-A",
                                      "-w",
                                      "-o",
                                      "json",
                                      "--output-watch-events"};
        if (round % 2) {
            ws.start("/usr/bin/time", wsArgs);
            kubectl.start("/usr/bin/time", kubectlArgs);
        } else {
            kubectl.start("/usr/bin/time", kubectlArgs);
            ws.start("/usr/bin/time", wsArgs);
        }
        ws.waitForFinished((seconds + 60) * 1000);
        kubectl.waitForFinished((seconds + 60) * 1000);
        load.waitForFinished((seconds + 60) * 1000);
        static const QRegularExpression summary(": (\\d+) events");
        const auto m = summary.match(QString::fromUtf8(ws.readAll()));
        const double wsEvents = m.hasMatch() ? m.captured(1).toDouble() : 0;
        QFile k(dir + "/kubectl.out");
        double kubectlEvents = 0;
        // Not on a terminal, -o json --output-watch-events prints an event a line.
        if (k.open(QIODevice::ReadOnly))
            for (const QByteArray& line : k.readAll().split('\n'))
                kubectlEvents += line.startsWith("{\"type\":") ? 1 : 0;
        const double wsCpu = cpuSeconds(dir + "/ws.time");
        const double kCpu = cpuSeconds(dir + "/kubectl.time");
        const double wsPer = wsEvents > 0 ? wsCpu / wsEvents * 1e5 : 0;
        const double kPer = kubectlEvents > 0 ? kCpu / kubectlEvents * 1e5 : 0;
        out() << round << "\twatchscope\t" << QString::number(wsCpu, 'f', 2) << '\t' << wsEvents
              << '\t' << QString::number(wsPer, 'f', 3) << '\t'
              << (kPer > 0 ? QString::number(wsPer / kPer, 'f', 3) : QStringLiteral("-")) << '\n'
              << round << "\tkubectl\t" << QString::number(kCpu, 'f', 2) << '\t' << kubectlEvents
              << '\t' << QString::number(kPer, 'f', 3) << "\t1\n"
              << Qt::flush;
    }
    return 0;
}
