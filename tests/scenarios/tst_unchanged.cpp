// The one-engine redesign changed where the simulator runs, not what it finds: every built-in
// scenario with seeds 1, 2 and 3 gives the same anomalies (time, kind, severity, source,
// resource, key, RV, watcher, message) and the same timeline samples (a SHA-256 over every
// sample, sorted) as the commit before the redesign (b989854), recorded in tests/fixtures/.
//
// A later change that means to alter the simulator's behaviour (issue 12's corrections) updates
// the fixtures on purpose: WS_WRITE_FIXTURES=1 tst_unchanged rewrites them from this build, and
// the diff shows exactly which anomalies changed.
#include "scenario/ScenarioLoader.h"
#include "sim/ScenarioRun.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTest>
#include <QTextStream>

using namespace ws;

namespace {

// A sanitizer build runs the simulator 10-40x slower: there seed 1 of each scenario, compared
// with the fixtures' seed-1 lines, finds what it looks for (memory errors on every path); the
// plain build compares all three seeds.
#ifdef WS_SANITIZED_BUILD
constexpr int kSeeds = 1;
#else
constexpr int kSeeds = 3;
#endif

QString fixture(const char* name) {
    return qEnvironmentVariable("WS_SOURCE_DIR") + QStringLiteral("/tests/fixtures/") +
           QLatin1String(name);
}

struct Outputs {
    QString anomalies; // one TSV line per anomaly
    QString timelines; // one TSV line per run: scenario, seed, samples, sha256
};

Outputs runAll() {
    Outputs out;
    QTextStream as(&out.anomalies), ts(&out.timelines);
    for (const QString& name : ScenarioLoader::builtinNames()) {
        for (int seed = 1; seed <= kSeeds; ++seed) {
            ScenarioSourceSpec spec;
            spec.scenario = name;
            spec.speed = 0;
            spec.seed = seed;
            std::vector<std::unique_ptr<Source>> sources;
            sources.push_back(std::make_unique<SimSource>(spec, std::nullopt));
            Session session(std::move(sources), {});
            QString error;
            if (!session.prepare(&error))
                qFatal("%s", qPrintable(error));
            QStringList samples;
            TimelineStore& tl = session.pipeline().timeline();
            tl.addListener([&](SeriesId id, TimeUs t, double v) {
                samples << tl.resource(id) + QLatin1Char(',') + tl.name(id) + QLatin1Char(',') +
                               QString::number(t) + QLatin1Char(',') + QString::number(v, 'g', 17);
            });
            if (!session.runHere({}, &error))
                qFatal("%s", qPrintable(error));
            for (const Anomaly& a : session.anomalies())
                as << name << '\t' << seed << '\t' << a.time << '\t' << kindName(a.kind) << '\t'
                   << severityName(a.severity) << '\t' << sourceName(a.source) << '\t' << a.resource
                   << '\t' << a.key << '\t' << a.rv << '\t' << a.watcher << '\t' << a.message
                   << '\n';
            std::stable_sort(samples.begin(), samples.end());
            ts << name << '\t' << seed << '\t' << samples.size() << '\t'
               << QCryptographicHash::hash(samples.join(QLatin1Char('\n')).toUtf8(),
                                           QCryptographicHash::Sha256)
                      .toHex()
               << '\n';
        }
    }
    return out;
}

// A fixture's lines (scenario, seed, ...) for the seeds this build runs.
QString read(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    const QString text = QString::fromUtf8(f.readAll());
    if (kSeeds == 3)
        return text;
    QString kept;
    for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (line.section(QLatin1Char('\t'), 1, 1).toInt() <= kSeeds)
            kept += line + QLatin1Char('\n');
    return kept;
}

} // namespace

class TestUnchanged : public QObject {
    Q_OBJECT
private slots:
    void sameAnomaliesAndTimelinesAsBeforeTheRedesign() {
        const Outputs now = runAll();
        const QString anomaliesPath = fixture("scenario-anomalies-b989854.tsv");
        const QString timelinesPath = fixture("scenario-timelines-b989854.tsv");
        if (qEnvironmentVariableIntValue("WS_WRITE_FIXTURES") == 1) {
            if (kSeeds != 3)
                QSKIP("fixtures are written from the plain build (all three seeds)");
            for (const auto& [path, text] : {std::pair{anomaliesPath, now.anomalies},
                                             std::pair{timelinesPath, now.timelines}}) {
                QFile f(path);
                QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
                f.write(text.toUtf8());
            }
            QSKIP("fixtures rewritten");
        }
        const QStringList want = read(anomaliesPath).split(QLatin1Char('\n'));
        const QStringList got = now.anomalies.split(QLatin1Char('\n'));
        for (int i = 0; i < std::min(want.size(), got.size()); ++i)
            QVERIFY2(want[i] == got[i],
                     qPrintable(QStringLiteral("anomaly line %1:\n  was %2\n  now %3")
                                    .arg(i + 1)
                                    .arg(want[i], got[i])));
        QCOMPARE(got.size(), want.size());
        QCOMPARE(now.timelines, read(timelinesPath));
    }
};

QTEST_GUILESS_MAIN(TestUnchanged)
#include "tst_unchanged.moc"
