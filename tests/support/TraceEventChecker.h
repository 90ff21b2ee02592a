#pragma once

// A checker of the Chrome Trace Event format (the JSON that chrome://tracing and Perfetto UI
// open), strict where Perfetto's JSON importer is lenient or silently drops data, for tests of
// `*.trace.json` exports (SPEC §3):
// - valid JSON (the parse error's offset otherwise); the top level is an array of events or an
//   object with a "traceEvents" array and only keys Perfetto's tokenizer knows (it ignores the
//   rest of the file after an unknown one); "displayTimeUnit", if present, is "ms" or "ns";
// - every event an object with a known one-letter "ph", a string "name" (except "E"), an
//   integral "pid" and, where the phase needs one, "tid"; "ts" a finite number >= 0 (µs) on every
//   event but metadata; "args" an object; "X" has "dur" >= 0;
// - counters ("C"): a non-empty "args" whose values are all finite JSON numbers (Perfetto parses
//   strings too, chrome://tracing does not);
// - instants ("i"/"I"): scope "s" absent or one of g, p, t (Perfetto drops any other);
// - metadata ("M"): process_name/thread_name with a non-empty string args.name, *_sort_index with
//   an integral args.sort_index; every pid used has a process_name, every thread that carries
//   thread-scoped events a thread_name;
// - "ts" non-decreasing per track, in file order: per (pid, tid) for thread slices and instants,
//   per pid for process-scoped instants, one global track for global instants, per
//   (pid, name, id) for counters, per (pid, cat, id) for async events. (Perfetto sorts by ts
//   anyway; SPEC asks the file itself to be ordered.)
// Cross-checks against the same run's other exports:
// - checkTimeScale(): the last ts is the run's duration in µs (catches ms/s/ns scaling);
// - checkAnomalies(): every line of the anomalies JSONL is exactly one instant event named by
//   its kind with the same fields, and the instants' ts keep a constant offset to the JSONL's
//   wall-clock times (so they are µs on the capture's clock too);
// - checkCounterTracks(): one counter track per (resource, series) of the timeline CSV, a
//   resource being the process_name of the counter's pid, with as many samples as the CSV has
//   finite values (a trace counter has no "no value").
// Each check returns false with human-readable lines in errors() (the first ones; the count of
// the rest).

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

namespace ws::test {

class TraceEventChecker {
public:
    // A counter track: the process_name of its pid and the counter's name.
    using CounterTrack = std::pair<QString, QString>;

    // Parses and validates the whole file. False with errors() when anything is wrong.
    bool check(const QByteArray& json) {
        *this = TraceEventChecker();
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
        if (parseError.error != QJsonParseError::NoError) {
            fail(QStringLiteral("not JSON: %1 at offset %2")
                     .arg(parseError.errorString())
                     .arg(parseError.offset));
            return false;
        }
        QJsonArray events;
        if (doc.isArray()) {
            events = doc.array();
        } else {
            const QJsonObject top = doc.object();
            static const QSet<QString> known{
                QStringLiteral("traceEvents"), QStringLiteral("displayTimeUnit"),
                QStringLiteral("systemTraceEvents"), QStringLiteral("otherData"),
                QStringLiteral("metadata")};
            for (auto it = top.begin(); it != top.end(); ++it) {
                if (!known.contains(it.key()))
                    fail(QStringLiteral("top-level key '%1' is not one Perfetto reads (it ignores "
                                        "the rest of the file after it)")
                             .arg(it.key()));
            }
            if (!top.value(QLatin1String("traceEvents")).isArray()) {
                fail(QStringLiteral("the top-level object has no \"traceEvents\" array"));
                return false;
            }
            if (top.contains(QLatin1String("displayTimeUnit"))) {
                const QJsonValue unit = top.value(QLatin1String("displayTimeUnit"));
                if (unit != QJsonValue(QStringLiteral("ms")) &&
                    unit != QJsonValue(QStringLiteral("ns")))
                    fail(QStringLiteral("displayTimeUnit must be \"ms\" or \"ns\""));
            }
            events = top.value(QLatin1String("traceEvents")).toArray();
        }
        for (qsizetype i = 0; i < events.size(); ++i)
            checkEvent(i, events.at(i));
        checkNames();
        return m_errors.isEmpty();
    }

    // The last counter sample (or, without counters, the last event) is at the run's end
    // (tolerance: a fraction of the duration) and no event is after it: a ts written in ms or s
    // is 1000 or 10^6 times too small, one in ns 1000 times too large. Counters, being sampled
    // to the end, are checked on their own so that µs instants cannot hide ms counters.
    bool checkTimeScale(double durationUs, double tolerance = 0.1) {
        if (!m_lastTs) {
            fail(QStringLiteral("no timed event"));
            return false;
        }
        const double last = m_lastCounterTs.value_or(*m_lastTs);
        if (std::fabs(last - durationUs) > tolerance * durationUs)
            fail(QStringLiteral("the last %1 ts is %2 but the run lasted %3 µs: timestamps are "
                                "not in µs (ms would be %4)")
                     .arg(m_lastCounterTs ? QStringLiteral("counter") : QStringLiteral("event"))
                     .arg(last, 0, 'f', 0)
                     .arg(durationUs, 0, 'f', 0)
                     .arg(durationUs / 1000, 0, 'f', 0));
        if (*m_lastTs > (1 + tolerance) * durationUs)
            fail(QStringLiteral("an event at ts %1 is after the run's %2 µs: timestamps are not "
                                "in µs")
                     .arg(*m_lastTs, 0, 'f', 0)
                     .arg(durationUs, 0, 'f', 0));
        return m_errors.isEmpty();
    }

    // The anomalies JSONL of the same run (SPEC §2): one instant per line, in the same order
    // per kind, with the same fields in args.
    bool checkAnomalies(const QByteArray& jsonl) {
        QHash<QString, QList<QJsonObject>> lines; // kind -> lines, in file order
        qsizetype count = 0;
        for (const QByteArray& line : jsonl.split('\n')) {
            if (line.trimmed().isEmpty())
                continue;
            const QJsonObject a = QJsonDocument::fromJson(line).object();
            if (!a.value(QLatin1String("kind")).isString()) {
                fail(QStringLiteral("anomalies line %1 has no kind").arg(count + 1));
                return false;
            }
            lines[a.value(QLatin1String("kind")).toString()].append(a);
            ++count;
        }
        QHash<QString, QList<QJsonObject>> instants;
        for (const QJsonObject& e : std::as_const(m_instants))
            instants[e.value(QLatin1String("name")).toString()].append(e);
        if (m_instants.size() != count)
            fail(QStringLiteral("%1 instant events for %2 anomalies")
                     .arg(m_instants.size())
                     .arg(count));
        QSet<QString> kinds;
        for (auto it = lines.cbegin(); it != lines.cend(); ++it)
            kinds.insert(it.key());
        for (auto it = instants.cbegin(); it != instants.cend(); ++it)
            kinds.insert(it.key());
        std::optional<qint64> minOffset, maxOffset; // wall-clock ms minus ts in ms
        for (const QString& kind : std::as_const(kinds)) {
            const QList<QJsonObject>& want = lines.value(kind);
            const QList<QJsonObject>& got = instants.value(kind);
            if (want.size() != got.size()) {
                fail(QStringLiteral("kind %1: %2 anomalies, %3 instant events")
                         .arg(kind)
                         .arg(want.size())
                         .arg(got.size()));
                continue;
            }
            for (qsizetype i = 0; i < want.size(); ++i) {
                const QJsonObject args = got[i].value(QLatin1String("args")).toObject();
                for (auto f = want[i].begin(); f != want[i].end(); ++f) {
                    if (f.key() == QLatin1String("time") || f.key() == QLatin1String("kind") ||
                        f.key() == QLatin1String("incident"))
                        continue;
                    if (args.value(f.key()) != f.value()) {
                        fail(QStringLiteral("kind %1, #%2: args.%3 is %4, the anomaly's %5")
                                 .arg(kind)
                                 .arg(i + 1)
                                 .arg(f.key(), text(args.value(f.key())), text(f.value())));
                        break;
                    }
                }
                const QDateTime wall = QDateTime::fromString(
                    want[i].value(QLatin1String("time")).toString(), Qt::ISODateWithMs);
                if (!wall.isValid()) {
                    fail(QStringLiteral("kind %1, #%2: bad time").arg(kind).arg(i + 1));
                    continue;
                }
                const auto tsMs = static_cast<qint64>(
                    std::floor(got[i].value(QLatin1String("ts")).toDouble() / 1000));
                const qint64 offset = wall.toMSecsSinceEpoch() - tsMs;
                minOffset = minOffset ? std::min(*minOffset, offset) : offset;
                maxOffset = maxOffset ? std::max(*maxOffset, offset) : offset;
            }
        }
        // The JSONL prints wall-clock start + floor(ms): the offset varies by at most 1 ms.
        if (minOffset && *maxOffset - *minOffset > 1)
            fail(QStringLiteral("instant ts and the anomalies' times drift by %1 ms: not µs on "
                                "the capture's clock")
                     .arg(*maxOffset - *minOffset));
        return m_errors.isEmpty();
    }

    // The timeline CSV of the same run (SPEC §3: `time_ms,resource,series,value`). Each track's
    // last sample is at the CSV's last time of the series (time_ms × 1000).
    bool checkCounterTracks(const QByteArray& csv) {
        QList<QByteArray> rows = csv.split('\n');
        if (rows.isEmpty() || rows.takeFirst().trimmed() != "time_ms,resource,series,value") {
            fail(QStringLiteral("the CSV has no time_ms,resource,series,value header"));
            return false;
        }
        QMap<CounterTrack, qint64> want;
        QHash<CounterTrack, double> wantLastUs;
        for (const QByteArray& row : std::as_const(rows)) {
            if (row.isEmpty())
                continue;
            const QStringList cols = splitCsv(QString::fromUtf8(row));
            if (cols.size() != 4) {
                fail(QStringLiteral("CSV row '%1'").arg(QString::fromUtf8(row)));
                return false;
            }
            bool ok = false;
            const double value = cols[3].toDouble(&ok);
            CounterTrack track{cols[1], cols[2]};
            if (ok && std::isfinite(value)) {
                ++want[track];
                wantLastUs.insert(track, cols[0].toDouble() * 1000);
            } else
                want.insert(track, want.value(track)); // a series of gaps only: no track
        }
        QMap<CounterTrack, qint64> got;
        QHash<CounterTrack, double> gotLastUs;
        for (auto it = m_counters.cbegin(); it != m_counters.cend(); ++it) {
            const QString process = m_processNames.value(it.key().first);
            const CounterTrack track{process, it.key().second};
            if (got.contains(track))
                fail(QStringLiteral("counter %1 of %2 is on two processes named alike")
                         .arg(track.second, track.first));
            got[track] += it.value();
            gotLastUs.insert(track,
                             std::max(gotLastUs.value(track), m_counterLastTs.value(it.key())));
        }
        for (auto it = want.cbegin(); it != want.cend(); ++it) {
            if (it.value() == 0) {
                if (got.contains(it.key()))
                    fail(QStringLiteral("counter %1 of %2 has samples the CSV has not")
                             .arg(it.key().second, it.key().first));
            } else if (!got.contains(it.key())) {
                fail(QStringLiteral("no counter track for series %1 of %2")
                         .arg(it.key().second, it.key().first));
            } else if (got.value(it.key()) != it.value()) {
                fail(QStringLiteral("counter %1 of %2: %3 samples, the CSV has %4")
                         .arg(it.key().second, it.key().first)
                         .arg(got.value(it.key()))
                         .arg(it.value()));
            } else if (std::fabs(gotLastUs.value(it.key()) - wantLastUs.value(it.key())) > 1) {
                fail(QStringLiteral("counter %1 of %2 ends at ts %3, the CSV at %4 µs")
                         .arg(it.key().second, it.key().first)
                         .arg(gotLastUs.value(it.key()), 0, 'f', 0)
                         .arg(wantLastUs.value(it.key()), 0, 'f', 0));
            }
        }
        for (auto it = got.cbegin(); it != got.cend(); ++it) {
            if (!want.contains(it.key()))
                fail(QStringLiteral("counter track %1 of %2 is no series of the CSV")
                         .arg(it.key().second, it.key().first));
        }
        return m_errors.isEmpty();
    }

    QStringList errors() const {
        QStringList out = m_errors;
        if (m_dropped > 0)
            out << QStringLiteral("... and %1 more").arg(m_dropped);
        return out;
    }
    QString errorText() const { return errors().join(QLatin1Char('\n')); }

    qsizetype eventCount() const { return m_eventCount; }
    const QList<QJsonObject>& instants() const { return m_instants; }
    // Counter tracks by (pid, name) with their number of samples.
    const QMap<std::pair<qint64, QString>, qint64>& counters() const { return m_counters; }
    const QHash<qint64, QString>& processNames() const { return m_processNames; }
    std::optional<double> lastTimestamp() const { return m_lastTs; }

private:
    static constexpr qsizetype kMaxErrors = 20;

    QStringList m_errors;
    qsizetype m_dropped = 0;
    qsizetype m_eventCount = 0;
    std::optional<double> m_lastTs;
    std::optional<double> m_lastCounterTs;
    QList<QJsonObject> m_instants;
    QMap<std::pair<qint64, QString>, qint64> m_counters;
    QMap<std::pair<qint64, QString>, double> m_counterLastTs;
    QHash<qint64, QString> m_processNames;
    QHash<std::pair<qint64, qint64>, QString> m_threadNames;
    QSet<qint64> m_pidsUsed;
    QSet<std::pair<qint64, qint64>> m_threadsUsed;
    QHash<QString, double> m_lastTsOfTrack;

    void fail(const QString& message) {
        if (m_errors.size() < kMaxErrors)
            m_errors << message;
        else
            ++m_dropped;
    }

    static QString text(const QJsonValue& v) {
        if (v.isUndefined())
            return QStringLiteral("absent");
        return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))
            .mid(1)
            .chopped(1);
    }

    // An integral JSON number in [0, 2^32) (Perfetto's pid/tid range); nullopt otherwise.
    static std::optional<qint64> id(const QJsonValue& v) {
        if (!v.isDouble())
            return std::nullopt;
        const double d = v.toDouble();
        if (!std::isfinite(d) || d < 0 || d > std::numeric_limits<quint32>::max() ||
            d != std::trunc(d))
            return std::nullopt;
        return static_cast<qint64>(d);
    }

    static QStringList splitCsv(const QString& row) {
        QStringList cols;
        QString cur;
        bool quoted = false;
        for (qsizetype i = 0; i < row.size(); ++i) {
            const QChar c = row[i];
            if (quoted) {
                if (c == u'"' && i + 1 < row.size() && row[i + 1] == u'"') {
                    cur += c;
                    ++i;
                } else if (c == u'"') {
                    quoted = false;
                } else {
                    cur += c;
                }
            } else if (c == u'"') {
                quoted = true;
            } else if (c == u',') {
                cols << cur;
                cur.clear();
            } else if (c != u'\r') {
                cur += c;
            }
        }
        cols << cur;
        return cols;
    }

    void checkEvent(qsizetype index, const QJsonValue& value) {
        ++m_eventCount;
        const QString at = QStringLiteral("event #%1").arg(index);
        if (!value.isObject()) {
            fail(at + QStringLiteral(": not an object"));
            return;
        }
        const QJsonObject e = value.toObject();
        const QJsonValue phValue = e.value(QLatin1String("ph"));
        if (!phValue.isString() || phValue.toString().size() != 1) {
            fail(at + QStringLiteral(": no one-letter \"ph\""));
            return;
        }
        const QChar ph = phValue.toString().at(0);
        static const QString phases = QStringLiteral("BEXiICbneSTpFstfPNODMVvRc()");
        if (!phases.contains(ph)) {
            fail(at + QStringLiteral(": unknown phase '%1'").arg(ph));
            return;
        }
        const QString name = e.value(QLatin1String("name")).toString();
        if (ph != u'E' && !e.value(QLatin1String("name")).isString())
            fail(at + QStringLiteral(" (ph %1): no string \"name\"").arg(ph));
        const std::optional<qint64> pid = id(e.value(QLatin1String("pid")));
        if (!pid) {
            fail(at + QStringLiteral(" (%1): \"pid\" is %2, not an id")
                          .arg(name, text(e.value(QLatin1String("pid")))));
            return;
        }
        const QString scope = e.value(QLatin1String("s")).toString();
        const bool instant = ph == u'i' || ph == u'I' || ph == u'R';
        if (instant && e.contains(QLatin1String("s")) && scope != QLatin1String("g") &&
            scope != QLatin1String("p") && scope != QLatin1String("t"))
            fail(at + QStringLiteral(" (%1): instant scope \"s\" is %2, not g, p or t")
                          .arg(name, text(e.value(QLatin1String("s")))));
        const bool threadScoped =
            QStringLiteral("BEXstfP").contains(ph) ||
            (instant && scope != QLatin1String("g") && scope != QLatin1String("p")) ||
            (ph == u'M' && name.startsWith(QLatin1String("thread_")));
        std::optional<qint64> tid;
        if (e.contains(QLatin1String("tid"))) {
            tid = id(e.value(QLatin1String("tid")));
            if (!tid)
                fail(at + QStringLiteral(" (%1): \"tid\" is %2, not an id")
                              .arg(name, text(e.value(QLatin1String("tid")))));
        } else if (threadScoped) {
            fail(at + QStringLiteral(" (%1, ph %2): no \"tid\"").arg(name).arg(ph));
        }
        if (e.contains(QLatin1String("args")) && !e.value(QLatin1String("args")).isObject())
            fail(at + QStringLiteral(" (%1): \"args\" is not an object").arg(name));
        if (e.contains(QLatin1String("cat")) && !e.value(QLatin1String("cat")).isString())
            fail(at + QStringLiteral(" (%1): \"cat\" is not a string").arg(name));
        const QJsonObject args = e.value(QLatin1String("args")).toObject();

        const QJsonValue tsValue = e.value(QLatin1String("ts"));
        const double ts = tsValue.toDouble(-1);
        const bool tsOk = tsValue.isDouble() && std::isfinite(ts) && ts >= 0;
        if (ph == u'M') { // ts optional
            if (e.contains(QLatin1String("ts")) && !tsOk)
                fail(at + QStringLiteral(" (%1): \"ts\" is %2").arg(name, text(tsValue)));
            checkMetadata(at, name, *pid, tid, args);
            return;
        }
        if (!tsOk) {
            fail(at + QStringLiteral(" (%1): \"ts\" is %2, not a number of µs >= 0")
                          .arg(name, text(tsValue)));
            return;
        }
        m_lastTs = m_lastTs ? std::max(*m_lastTs, ts) : ts;
        m_pidsUsed.insert(*pid);
        if (threadScoped && tid)
            m_threadsUsed.insert({*pid, *tid});
        if (ph == u'X') {
            const double dur = e.value(QLatin1String("dur")).toDouble(-1);
            if (!e.value(QLatin1String("dur")).isDouble() || !std::isfinite(dur) || dur < 0)
                fail(at + QStringLiteral(" (%1): \"dur\" is not a number >= 0").arg(name));
        }
        if (ph == u'C') {
            if (args.isEmpty())
                fail(at + QStringLiteral(" (counter %1): no args").arg(name));
            for (auto it = args.begin(); it != args.end(); ++it) {
                if (!it.value().isDouble() || !std::isfinite(it.value().toDouble()))
                    fail(at + QStringLiteral(" (counter %1): args.%2 is %3, not a finite number")
                                  .arg(name, it.key(), text(it.value())));
            }
            ++m_counters[{*pid, name}];
            m_lastCounterTs = m_lastCounterTs ? std::max(*m_lastCounterTs, ts) : ts;
            double& trackLast = m_counterLastTs[{*pid, name}];
            trackLast = std::max(trackLast, ts);
        }
        if (instant)
            m_instants.append(e);

        // The track this event is ordered on.
        QString track;
        const QString idText = text(e.value(QLatin1String("id")));
        if (ph == u'C')
            track = QStringLiteral("counter %1/%2/%3").arg(*pid).arg(name, idText);
        else if (instant && scope == QLatin1String("g"))
            track = QStringLiteral("global instants");
        else if (instant && scope == QLatin1String("p"))
            track = QStringLiteral("process %1 instants").arg(*pid);
        else if (QStringLiteral("bneSTpF").contains(ph))
            track = QStringLiteral("async %1/%2/%3")
                        .arg(*pid)
                        .arg(e.value(QLatin1String("cat")).toString(), idText);
        else if (tid)
            track = QStringLiteral("thread %1/%2").arg(*pid).arg(*tid);
        if (track.isEmpty())
            return;
        if (const auto it = m_lastTsOfTrack.constFind(track);
            it != m_lastTsOfTrack.constEnd() && ts < it.value())
            fail(at + QStringLiteral(" (%1): ts %2 before the %3 of the previous event on %4")
                          .arg(name)
                          .arg(ts, 0, 'f', 3)
                          .arg(it.value(), 0, 'f', 3)
                          .arg(track));
        m_lastTsOfTrack.insert(track, ts);
    }

    void checkMetadata(const QString& at, const QString& name, qint64 pid,
                       std::optional<qint64> tid, const QJsonObject& args) {
        if (name == QLatin1String("process_name") || name == QLatin1String("thread_name")) {
            const QString label = args.value(QLatin1String("name")).toString();
            if (label.isEmpty()) {
                fail(at + QStringLiteral(" (%1): no args.name").arg(name));
                return;
            }
            if (name == QLatin1String("process_name")) {
                if (m_processNames.contains(pid) && m_processNames.value(pid) != label)
                    fail(at + QStringLiteral(": process %1 named twice").arg(pid));
                m_processNames.insert(pid, label);
            } else if (tid) {
                m_threadNames.insert({pid, *tid}, label);
            }
        } else if (name == QLatin1String("process_sort_index") ||
                   name == QLatin1String("thread_sort_index")) {
            const QJsonValue index = args.value(QLatin1String("sort_index"));
            if (!index.isDouble() || index.toDouble() != std::trunc(index.toDouble()))
                fail(at + QStringLiteral(" (%1): args.sort_index is not an integer").arg(name));
        } else if (name != QLatin1String("process_labels") &&
                   name != QLatin1String("process_uptime_seconds")) {
            fail(at + QStringLiteral(": unknown metadata '%1'").arg(name));
        }
    }

    void checkNames() {
        for (const qint64 pid : std::as_const(m_pidsUsed)) {
            if (!m_processNames.contains(pid))
                fail(QStringLiteral("process %1 has events but no process_name").arg(pid));
        }
        for (const auto& thread : std::as_const(m_threadsUsed)) {
            if (!m_threadNames.contains(thread))
                fail(QStringLiteral("thread %1/%2 has events but no thread_name")
                         .arg(thread.first)
                         .arg(thread.second));
        }
    }
};

} // namespace ws::test
