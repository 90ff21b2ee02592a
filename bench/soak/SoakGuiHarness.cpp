// The window's side of the soak (bench/soak/soak.sh): the real MainWindow on a live source, as
// `watchscope` opens it, with a 10 ms timer whose lateness is the event loop's latency. The
// latency has to be measured inside the window's process, and the product has no hook for it,
// so this is the program's main() with the timer added; soak.sh reads /proc for the rest.
//   ws-bench-soak-gui --minutes N SOURCE-OPTIONS   (the source options of `watchscope`)
// Prints, flushed, one line every 10 s and one a minute:
//   sample <seconds> <events received> <ticks> <p50 ms> <p99 ms> <max ms>   (the last 10 s)
//   minute <n> <ticks> <p50 ms> <p99 ms> <max ms>
// and at the end `total <ticks> <p50 ms> <p99 ms> <max ms>` over the whole run.
#include "engine/Session.h"
#include "engine/SourceOptions.h"
#include "session/SessionSwitcher.h"
#include "sources/SourceFactory.h"
#include "widgets/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

using namespace ws;

namespace {

// Lateness in whole milliseconds: a histogram keeps an hour of ticks (360,000) in constant
// memory, so the harness's own memory does not grow with the run it measures.
class LatencyHistogram {
public:
    void add(qint64 ms) {
        m_counts[static_cast<std::size_t>(std::clamp<qint64>(ms, 0, kMax))]++;
        ++m_total;
        m_max = std::max(m_max, ms);
    }
    void merge(const LatencyHistogram& other) {
        for (std::size_t i = 0; i < m_counts.size(); ++i)
            m_counts[i] += other.m_counts[i];
        m_total += other.m_total;
        m_max = std::max(m_max, other.m_max);
    }
    qint64 percentile(double p) const {
        if (m_total == 0)
            return 0;
        const auto rank = static_cast<qint64>(p * static_cast<double>(m_total - 1));
        qint64 seen = 0;
        for (std::size_t i = 0; i < m_counts.size(); ++i) {
            seen += m_counts[i];
            if (seen > rank)
                return static_cast<qint64>(i);
        }
        return kMax;
    }
    qint64 total() const { return m_total; }
    qint64 max() const { return m_max; }
    QString line() const {
        return QStringLiteral("%1 %2 %3 %4")
            .arg(m_total)
            .arg(percentile(0.5))
            .arg(percentile(0.99))
            .arg(m_max);
    }

private:
    static constexpr qint64 kMax = 10000; // 10 s: beyond that the window is simply frozen
    std::vector<qint64> m_counts = std::vector<qint64>(kMax + 1, 0);
    qint64 m_total = 0;
    qint64 m_max = 0;
};

void printLine(const QString& line) {
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    const SourceOptions sourceOptions(parser);
    const QCommandLineOption minutes(QStringLiteral("minutes"), {}, QStringLiteral("N"));
    parser.addOption(minutes);
    if (!parser.parse(QApplication::arguments())) {
        std::fprintf(stderr, "ws-bench-soak-gui: %s\n", qPrintable(parser.errorText()));
        return 2;
    }
    bool ok = false;
    const double runMinutes = parser.value(minutes).toDouble(&ok);
    if (!ok || runMinutes <= 0) {
        std::fprintf(stderr, "ws-bench-soak-gui: --minutes N (N > 0) is required\n");
        return 2;
    }
    QString error;
    const auto spec = sourceOptions.spec(false, &error);
    if (!spec) {
        std::fprintf(stderr, "ws-bench-soak-gui: %s\n", qPrintable(error));
        return 2;
    }
    // As watchscope's main() opens it: the window's journal limits, the switcher owning the
    // session.
    auto session = Session::prepared(SourceFactory::create(*spec, &error), *spec, {}, &error,
                                     EventJournalLimits::window());
    if (!session) {
        std::fprintf(stderr, "ws-bench-soak-gui: %s\n", qPrintable(error));
        return 1;
    }
    qint64 events = 0;
    QObject::connect(session.get(), &Session::updated,
                     [&](const EngineUpdate& u) { events = u.totalEvents; });
    MainWindow window(session.get());
    SessionSwitcher switcher(&window, session.release(), *spec);
    window.resize(1400, 900);
    window.show();
    switcher.start();

    QElapsedTimer clock;
    clock.start();
    LatencyHistogram window10s, minute, whole;
    qint64 expected = 10;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(10);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        window10s.add(std::max<qint64>(0, now - expected));
        expected = now + 10;
    });
    tick.start();

    int samples = 0;
    QTimer sampler;
    sampler.setInterval(10000);
    QObject::connect(&sampler, &QTimer::timeout, [&] {
        ++samples;
        printLine(
            QStringLiteral("sample %1 %2 %3").arg(samples * 10).arg(events).arg(window10s.line()));
        minute.merge(window10s);
        window10s = LatencyHistogram();
        if (samples % 6 == 0) {
            printLine(QStringLiteral("minute %1 %2").arg(samples / 6).arg(minute.line()));
            whole.merge(minute);
            minute = LatencyHistogram();
        }
    });
    sampler.start();
    QTimer::singleShot(static_cast<int>(runMinutes * 60000) + 500, &app, [&] {
        whole.merge(minute);
        printLine(QStringLiteral("total %1").arg(whole.line()));
        QApplication::quit();
    });
    const int rc = QApplication::exec();
    switcher.stop();
    return rc;
}
