#pragma once

#include <QString>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ws {

enum class PrometheusType { Untyped, Counter, Gauge, Histogram, Summary };

// A metric family as its "# HELP" and "# TYPE" lines describe it.
struct PrometheusFamily {
    std::string name;
    std::string help;                              // unescaped; empty without a # HELP line
    PrometheusType type = PrometheusType::Untyped; // also without a # TYPE line
};

struct PrometheusLabelView {
    std::string_view name;
    std::string_view value; // unescaped
};

// One sample as the parser hands it to a visitor. The views point into the body or into the
// parser's scratch space: valid only during the call.
struct PrometheusSampleView {
    std::string_view name;   // as written: "x_bucket"
    std::string_view family; // "x" for x_bucket of histogram x; the name when nothing declares it
    PrometheusType type = PrometheusType::Untyped; // the family's
    std::span<const PrometheusLabelView> labels;   // in written order
    double value = 0;
    std::optional<std::int64_t> timestampMs;

    // The label's value; nullopt when the sample has no such label (label="" is present).
    std::optional<std::string_view> label(std::string_view labelName) const;
};

// The owning form of a sample (PrometheusTextParser::parseAll).
struct PrometheusSample {
    std::string name;
    std::string family;
    PrometheusType type = PrometheusType::Untyped;
    std::vector<std::pair<std::string, std::string>> labels; // in written order
    double value = 0;
    std::optional<std::int64_t> timestampMs;

    // nullptr when the sample has no such label.
    const std::string* label(std::string_view labelName) const;
};

// A whole body, parsed.
struct PrometheusText {
    std::vector<PrometheusFamily> families; // in the order first declared
    std::vector<PrometheusSample> samples;  // in body order
    int skippedLines = 0;
    QString firstSkipped; // "line 12: <why> (<the line's start>)"; empty when nothing was skipped
};

// The Prometheus text exposition format 0.0.4, what kube-apiserver serves on /metrics: "# HELP"
// and "# TYPE" lines, other comments, blank lines, and samples
//   name{label="value",...} value [timestamp_ms]
// with label values escaped (\\ \" \n), values as Go writes floats (NaN, +Inf, -Inf, 1.5e+06),
// histogram/summary samples (_bucket, _sum, _count) tied to their family.
//
// A malformed line is skipped and counted, never fatal: one bad exporter line must not hide a
// 5 MB body. The whole body is an error only when it has lines and not one of them parses (no
// sample, no HELP/TYPE): not this format at all, e.g. an HTML error page or a JSON Status. A
// second HELP or TYPE for one family, an unknown TYPE, a duplicate label name, an escape other
// than \\ \" \n in a label value are malformed lines (as in Prometheus' own parser); an unknown
// escape in a HELP text is kept as written (it is only documentation).
class PrometheusTextParser {
public:
    using Visitor = std::function<void(const PrometheusSampleView&)>;

    // Parses the whole body (each call starts over), calling visit for every good sample in
    // order. False when nothing parsed; error() says why.
    bool parse(std::string_view body, const Visitor& visit);
    // The same, collecting everything. nullopt (and *error, may be null) when nothing parsed.
    static std::optional<PrometheusText> parseAll(std::string_view body, QString* error);
    // The start of a body that was cut at an arbitrary byte, up to the last family of which
    // every line is there: the cut line and the family it belongs to (from its first "# HELP"
    // or "# TYPE" line) are dropped, since the family's later samples are gone. A body without
    // such lines loses the cut line only.
    static std::string_view wholeFamilies(std::string_view cut);

    int samples() const { return m_samples; }
    int skippedLines() const { return m_skipped; }
    const QString& firstSkipped() const { return m_firstSkipped; }
    const QString& error() const { return m_error; }
    const std::vector<PrometheusFamily>& families() const { return m_families; }
    const PrometheusFamily* family(std::string_view name) const;

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept {
            return std::hash<std::string_view>{}(s);
        }
    };

    const char* parseComment(std::string_view rest);
    const char* parseSample(std::string_view line, const Visitor& visit);
    PrometheusFamily& familyFor(std::string_view name);
    int resolveFamily(std::string_view sampleName);
    void skip(int lineNumber, std::string_view line, const char* why);

    std::vector<PrometheusFamily> m_families;
    std::unordered_map<std::string, int, Hash, std::equal_to<>> m_familyIndex;
    std::vector<std::uint8_t> m_declared; // per family: bit 0 HELP seen, bit 1 TYPE seen
    std::vector<PrometheusLabelView> m_labels;
    std::string m_scratch; // unescaped label values of the current line
    std::string m_lastSampleName;
    int m_lastFamily = -1;
    int m_samples = 0;
    int m_declarations = 0;
    int m_skipped = 0;
    QString m_firstSkipped;
    QString m_error;
};

} // namespace ws
