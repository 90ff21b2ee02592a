#include "TimelineWriter.h"

#include "AnomalyJsonlWriter.h"
#include "BufferedFile.h"
#include "TextFormat.h"
#include "timeline/TimelineStore.h"

#include <QHash>
#include <cmath>
#include <utility>
#include <vector>

namespace ws {

namespace {
constexpr int kWatchScopePid = 1;
} // namespace

// Shared with the store listeners, which must not dangle if the writer goes first.
struct TimelineWriter::State {
    BufferedFile file;
    TimelineFormat format = TimelineFormat::Csv;
    bool open = false;
    bool firstEvent = true;   // trace: no separator before the array's first element
    QHash<QString, int> pids; // trace: resource -> pid (and tid)
    QHash<std::pair<QString, QString>, std::string> prefixes; // for writeSample()

    // Starts a trace event: the separator, unless it is the first.
    std::string& beginEvent() {
        std::string& out = file.buffer();
        if (!firstEvent)
            out += ",\n";
        firstEvent = false;
        return out;
    }

    void metadata(int pid, const char* name, const char* argKey, QStringView argText, int argInt) {
        std::string& out = beginEvent();
        out += "{\"name\":\"";
        out += name;
        out += "\",\"ph\":\"M\",\"pid\":";
        appendInt(out, pid);
        out += ",\"tid\":";
        appendInt(out, pid);
        out += ",\"args\":{\"";
        out += argKey;
        out += "\":";
        if (argText.isNull())
            appendInt(out, argInt);
        else
            appendJsonString(out, argText);
        out += "}}";
    }

    void labelProcess(int pid, const QString& label) {
        metadata(pid, "process_name", "name", label, 0);
        metadata(pid, "process_sort_index", "sort_index", {}, pid);
        metadata(pid, "thread_name", "name", label, 0);
    }

    int pidFor(const QString& resource) {
        if (auto it = pids.constFind(resource); it != pids.constEnd())
            return it.value();
        const int pid = kWatchScopePid + 1 + static_cast<int>(pids.size());
        pids.insert(resource, pid);
        labelProcess(pid, resource);
        return pid;
    }

    // The constant part of a series' rows, built once per series: everything between the time
    // and the value (csv, jsonl) or everything before the time (trace).
    std::string prefix(const QString& resource, const QString& series) {
        std::string p;
        switch (format) {
        case TimelineFormat::Csv:
            p += ',';
            appendCsvField(p, resource);
            p += ',';
            appendCsvField(p, series);
            p += ',';
            break;
        case TimelineFormat::Jsonl:
            p += ",\"resource\":";
            appendJsonString(p, resource);
            p += ",\"series\":";
            appendJsonString(p, series);
            p += ",\"value\":";
            break;
        case TimelineFormat::ChromeTrace: {
            const int pid = pidFor(resource);
            p += "{\"name\":";
            appendJsonString(p, series);
            p += ",\"ph\":\"C\",\"pid\":";
            appendInt(p, pid);
            p += ",\"tid\":";
            appendInt(p, pid);
            p += ",\"ts\":";
            break;
        }
        }
        return p;
    }

    void row(const std::string& prefix, TimeUs time, double value) {
        std::string& out = file.buffer();
        switch (format) {
        case TimelineFormat::Csv:
            appendMillis(out, time);
            out += prefix;
            appendNumber(out, value);
            out += '\n';
            break;
        case TimelineFormat::Jsonl:
            out += "{\"time_ms\":";
            appendMillis(out, time);
            out += prefix;
            appendJsonNumber(out, value);
            out += "}\n";
            break;
        case TimelineFormat::ChromeTrace:
            if (!std::isfinite(value))
                return; // a counter has no "no value"; the track keeps its previous one
            beginEvent();
            out += prefix;
            appendInt(out, time);
            out += ",\"args\":{\"value\":";
            appendJsonNumber(out, value);
            out += "}}";
            break;
        }
        file.maybeFlush();
    }
};

TimelineWriter::TimelineWriter() : d(std::make_shared<State>()) {}

TimelineWriter::~TimelineWriter() {
    close();
}

bool TimelineWriter::open(const QString& path, QString* error) {
    close();
    const auto format = timelineFormatForPath(path, error);
    if (!format)
        return false;
    // A fresh state: listeners attached to a previous file stay bound to it (and closed).
    d = std::make_shared<State>();
    d->format = *format;
    d->file.setOverflow(m_overflow, m_maxQueued);
    if (!d->file.open(path, error))
        return false;
    d->open = true;
    switch (d->format) {
    case TimelineFormat::Csv:
        d->file.buffer() += "time_ms,resource,series,value\n";
        break;
    case TimelineFormat::Jsonl:
        break;
    case TimelineFormat::ChromeTrace:
        d->file.buffer() += "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
        d->metadata(kWatchScopePid, "process_name", "name", u"watchscope", 0);
        d->metadata(kWatchScopePid, "thread_name", "name", u"anomalies", 0);
        break;
    }
    return true;
}

qint64 TimelineWriter::droppedRows() const {
    return d->file.droppedLines();
}

AsyncFileWriter::Stats TimelineWriter::stats() const {
    return d->file.stats();
}

bool TimelineWriter::isOpen() const {
    return d->open;
}

TimelineFormat TimelineWriter::format() const {
    return d->format;
}

void TimelineWriter::attach(TimelineStore& store) {
    // Prefixes indexed by SeriesId: the per-sample cost is a vector lookup and number formatting.
    auto prefixes = std::make_shared<std::vector<std::string>>();
    store.addListener(
        [state = d, prefixes, store = &store](SeriesId id, TimeUs time, double value) {
            if (!state->open || id < 0)
                return;
            const auto index = static_cast<std::size_t>(id);
            if (index >= prefixes->size())
                prefixes->resize(index + 1);
            std::string& prefix = (*prefixes)[index];
            if (prefix.empty())
                prefix = state->prefix(store->resource(id), store->name(id));
            state->row(prefix, time, value);
        });
}

void TimelineWriter::writeSample(const QString& resource, const QString& series, TimeUs time,
                                 double value) {
    if (!d->open)
        return;
    auto key = std::make_pair(resource, series);
    auto it = d->prefixes.find(key);
    if (it == d->prefixes.end())
        it = d->prefixes.insert(key, d->prefix(resource, series));
    d->row(it.value(), time, value);
}

void TimelineWriter::addAnomaly(const Anomaly& a) {
    if (!d->open || d->format != TimelineFormat::ChromeTrace)
        return;
    std::string& out = d->beginEvent();
    out += "{\"name\":";
    appendJsonString(out, kindName(a.kind));
    out += ",\"cat\":\"anomaly\",\"ph\":\"i\",\"s\":\"g\",\"pid\":";
    appendInt(out, kWatchScopePid);
    out += ",\"tid\":";
    appendInt(out, kWatchScopePid);
    out += ",\"ts\":";
    appendInt(out, a.time);
    out += ",\"args\":{";
    AnomalyJsonlWriter::appendFields(out, a);
    out += "}}";
    d->file.maybeFlush();
}

bool TimelineWriter::close(QString* error) {
    if (!d->open)
        return d->file.close(error);
    if (d->format == TimelineFormat::ChromeTrace)
        d->file.buffer() += "\n]}\n";
    d->open = false;
    return d->file.close(error);
}

} // namespace ws
