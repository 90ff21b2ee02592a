#pragma once

#include <QByteArray>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

// Writes the Prometheus text exposition format 0.0.4 the way kube-apiserver's client_golang
// does: "# HELP" (\ and newline escaped) and "# TYPE" lines per family, then samples
// name{label="value",...} value, label values with \, " and newline escaped, numbers as Go's
// strconv.FormatFloat(v, 'g', -1, 64) prints them (1e+06, 0.005, NaN, +Inf, -Inf). Names are
// written as given: the caller passes valid metric and label names ([a-zA-Z_:][a-zA-Z0-9_:]*,
// labels without ':'). Nothing is checked or reordered: the caller writes each family's samples
// right after its family() line, histogram buckets with their le label last.
class MetricsText {
public:
    enum class Type { Counter, Gauge, Histogram, Summary, Untyped };
    using Labels = std::vector<std::pair<std::string, std::string>>; // written in this order

    void family(std::string_view name, std::string_view help, Type type);
    void sample(std::string_view name, const Labels& labels, double value);

    const QByteArray& text() const { return m_text; }
    void clear() { m_text.clear(); }

    // A number as Go writes it; also what a histogram bucket's le label holds ("0.005", "+Inf").
    static std::string number(double value);

private:
    QByteArray m_text;
};

} // namespace ws
