// How the window holds up (issue "light on the machine"): drives the real MainWindow with real
// sessions and prints one table.
//   1. History: bench/scenarios/history-1m.yaml at --speed max fills the charts' buffers (15
//      minutes of 126 series, >= 1,000,000 points); then the RV chart is replotted and rendered
//      30 times showing all of it and 30 times showing the last minute: frame time p50/p99.
//   2. Live: bench/scenarios/firehose-50k.yaml served by `watchscope-cli serve` (50,000 events/s),
//      watched by the window as a cluster, for --seconds (60): the
//      event loop's latency (a 10 ms timer's lateness) p50/p99, the GUI thread's CPU, the
//      resident memory at the start and end of the run (after a 10 s warm-up).
// Run offscreen (QT_QPA_PLATFORM=offscreen, the default here) or on a display (Xvfb) to count
// the X server's side too. Not a test: numbers to read side by side.
//   ws-bench-gui [--seconds N] [--source-dir DIR] [--cli PATH]
#include "engine/Session.h"
#include "session/SessionSwitcher.h"
#include "sources/SourceFactory.h"
#include "util/ProcessMemory.h"
#include "widgets/MainWindow.h"
#include "widgets/RvTimelineChart.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <memory>
#include <vector>

using namespace ws;

namespace {

double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double rssMiB() {
    return double(residentMemoryBytes()) / (1024.0 * 1024.0);
}

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

struct Window {
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<SessionSwitcher> switcher;
    Session* session = nullptr;

    bool open(const QString& scenario, double speed) {
        SourceSpec spec;
        spec.scenario.scenario = scenario;
        spec.scenario.speed = speed;
        return open(spec);
    }
    bool open(const SourceSpec& spec) {
        QString error;
        session = Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error,
                                    EventJournalLimits::window()) // as the program's window has it
                      .release();
        if (!session) {
            std::fprintf(stderr, "ws-bench-gui: %s\n", qPrintable(error));
            return false;
        }
        window = std::make_unique<MainWindow>(session);
        switcher = std::make_unique<SessionSwitcher>(window.get(), session, spec);
        window->resize(1400, 900);
        window->show();
        switcher->start();
        return true;
    }
    ~Window() {
        switcher.reset();
        window.reset();
    }
};

// Frame time of the RV chart: one replot (decimation into the series) and one render of the
// whole view into an image, as a repaint does.
struct FrameTimes {
    std::vector<double> total, replot; // ms
};

FrameTimes frameTimes(RvTimelineChart* chart, int frames) {
    FrameTimes out;
    QImage image(chart->size(), QImage::Format_ARGB32_Premultiplied);
    for (int i = 0; i < frames; ++i) {
        QElapsedTimer t;
        t.start();
        chart->replotNow();
        const double replot = static_cast<double>(t.nsecsElapsed()) / 1e6;
        static_cast<QWidget*>(chart)->render(&image); // as a repaint draws it
        out.total.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        out.replot.push_back(replot);
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    int liveSeconds = 60;
    QString sourceDir = QStringLiteral(WS_SOURCE_DIR);
    QString cli = QStringLiteral(WS_CLI);
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--seconds") && i + 1 < args.size())
            liveSeconds = args[++i].toInt();
        else if (args[i] == QLatin1String("--source-dir") && i + 1 < args.size())
            sourceDir = args[++i];
        else if (args[i] == QLatin1String("--cli") && i + 1 < args.size())
            cli = args[++i];
        else {
            std::fprintf(
                stderr,
                "usage: ws-bench-gui [--seconds N] [--source-dir DIR] [--cli watchscope-cli]\n");
            return 2;
        }
    }
    std::printf("platform: %s\n", qPrintable(QGuiApplication::platformName()));

    // 1. History and frame time.
    {
        Window w;
        if (!w.open(sourceDir + QStringLiteral("/bench/scenarios/history-1m.yaml"), 0))
            return 1;
        QEventLoop loop;
        QObject::connect(w.session, &Session::finished, &loop, &QEventLoop::quit);
        QElapsedTimer t;
        t.start();
        loop.exec();
        QCoreApplication::processEvents();
        const std::size_t points = w.window->chartData().retainedPoints();
        const int series = int(w.window->chartData().seriesNames(QStringLiteral("pods")).size());
        std::printf("history: %d series, %zu points, filled in %.1f s\n", series, points,
                    static_cast<double>(t.elapsed()) / 1000.0);
        RvTimelineChart* chart = w.window->rvChart();
        chart->setFollowLive(true);
        for (double span : {15 * 60.0, 60.0}) {
            w.window->setSpan(span);
            frameTimes(chart, 3); // warm
            const auto ms = frameTimes(chart, 30);
            std::printf("frame time, %4.0f s shown: p50 %.1f ms  p99 %.1f ms  (replot p50 %.1f "
                        "ms; %d lines, %d columns)\n",
                        span, percentile(ms.total, 0.5), percentile(ms.total, 0.99),
                        percentile(ms.replot, 0.5), int(chart->boundNames().size()),
                        chart->lastReplotColumns());
        }
    }

    // 2. Live at 50,000 events/s from `watchscope-cli serve` in a process of its own (so the
    // memory and CPU measured are the window's and its cluster source's, not the simulator's).
    {
        QProcess serve;
        serve.setProcessChannelMode(QProcess::MergedChannels);
        serve.start(cli, {QStringLiteral("serve"), QStringLiteral("--listen"),
                          QStringLiteral("127.0.0.1:0"), QStringLiteral("--scenario"),
                          sourceDir + QStringLiteral("/bench/scenarios/firehose-50k.yaml")});
        QString url;
        for (int i = 0; i < 100 && url.isEmpty(); ++i) {
            serve.waitForReadyRead(100);
            const auto m = QRegularExpression(QStringLiteral("http://[0-9.:]+"))
                               .match(QString::fromUtf8(serve.peek(4096)));
            if (m.hasMatch())
                url = m.captured(0);
        }
        if (url.isEmpty()) {
            std::fprintf(stderr, "ws-bench-gui: %s serve did not start: %s\n", qPrintable(cli),
                         serve.readAll().constData());
            return 1;
        }
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Server;
        spec.servers = {url};
        spec.resources = {QStringLiteral("configmaps")};
        Window w;
        if (!w.open(spec))
            return 1;
        std::vector<double> lateness;
        QElapsedTimer clock;
        clock.start();
        qint64 expected = 10;
        bool measuring = false;
        QTimer tick;
        tick.setTimerType(Qt::PreciseTimer);
        tick.setInterval(10);
        QObject::connect(&tick, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            if (measuring)
                lateness.push_back(static_cast<double>(std::max<qint64>(0, now - expected)));
            expected = now + 10;
        });
        tick.start();
        double cpu0 = 0, rss0 = 0, events0 = 0;
        qint64 lastEvents = 0;
        QObject::connect(w.session, &Session::updated,
                         [&](const EngineUpdate& u) { lastEvents = u.totalEvents; });
        QEventLoop loop;
        QTimer::singleShot(10000, [&] { // warm-up over
            measuring = true;
            cpu0 = threadCpuSeconds();
            rss0 = rssMiB();
            events0 = static_cast<double>(lastEvents);
        });
        // Resident memory each minute: bounded means it levels off, not only that it is finite.
        std::vector<double> rssByMinute;
        QTimer minute;
        minute.setInterval(60000);
        QObject::connect(&minute, &QTimer::timeout, [&] { rssByMinute.push_back(rssMiB()); });
        QTimer::singleShot(10000, &minute, qOverload<>(&QTimer::start));
        QTimer::singleShot(10000 + liveSeconds * 1000, &loop, &QEventLoop::quit);
        loop.exec();
        const double cpu = threadCpuSeconds() - cpu0;
        const double rss1 = rssMiB();
        std::printf("live %d s at 50,000 events/s: %.0f events/s shown\n", liveSeconds,
                    (static_cast<double>(lastEvents) - events0) / liveSeconds);
        std::printf("event-loop latency: p50 %.1f ms  p99 %.1f ms  max %.1f ms  (%zu ticks)\n",
                    percentile(lateness, 0.5), percentile(lateness, 0.99),
                    percentile(lateness, 1.0), lateness.size());
        std::printf("GUI thread CPU: %.1f s in %d s (%.1f %% of a core)\n", cpu, liveSeconds,
                    100.0 * cpu / liveSeconds);
        std::printf(
            "resident memory: %.0f MiB after warm-up, %.0f MiB at the end (%+.1f MiB/min)\n", rss0,
            rss1, (rss1 - rss0) * 60.0 / liveSeconds);
        if (!rssByMinute.empty()) {
            std::printf("resident memory each minute (MiB):");
            for (const double m : rssByMinute)
                std::printf(" %.0f", m);
            std::printf("\n");
        }
        w.switcher.reset();
        w.window.reset();
        serve.terminate();
        serve.waitForFinished(5000);
    }
    return 0;
}
