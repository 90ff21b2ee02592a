#include "MetricsText.h"

#include <charconv>
#include <cmath>

namespace ws {

namespace {

const char* typeName(MetricsText::Type type) {
    switch (type) {
    case MetricsText::Type::Counter:
        return "counter";
    case MetricsText::Type::Gauge:
        return "gauge";
    case MetricsText::Type::Histogram:
        return "histogram";
    case MetricsText::Type::Summary:
        return "summary";
    case MetricsText::Type::Untyped:
        break;
    }
    return "untyped";
}

void append(QByteArray& out, std::string_view s) {
    out.append(s.data(), qsizetype(s.size()));
}

} // namespace

std::string MetricsText::number(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == 0)
        return "0"; // client_golang writes -0 as 0 too
    // Go's 'g' with the shortest digits: %e when the decimal exponent is < -4 or >= 6 (the
    // precision Go uses for the shortest form), %f otherwise. Both C++ and Go pick the shortest
    // digits that read back to the same double, so the digits agree.
    char buf[64];
    const auto sci = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    const std::string_view s(buf, std::size_t(sci.ptr - buf));
    int exponent = 0;
    const std::size_t e = s.find('e');
    std::string_view digits = s.substr(e + 1);
    if (!digits.empty() && digits.front() == '+')
        digits.remove_prefix(1);
    std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (exponent < -4 || exponent >= 6)
        return std::string(s);
    const auto fixed = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
    return std::string(buf, fixed.ptr);
}

void MetricsText::family(std::string_view name, std::string_view help, Type type) {
    m_text += "# HELP ";
    append(m_text, name);
    m_text += ' ';
    for (const char c : help) {
        if (c == '\\')
            m_text += "\\\\";
        else if (c == '\n')
            m_text += "\\n";
        else
            m_text += c;
    }
    m_text += "\n# TYPE ";
    append(m_text, name);
    m_text += ' ';
    m_text += typeName(type);
    m_text += '\n';
}

void MetricsText::sample(std::string_view name, const Labels& labels, double value) {
    append(m_text, name);
    if (!labels.empty()) {
        m_text += '{';
        bool first = true;
        for (const auto& [labelName, labelValue] : labels) {
            if (!first)
                m_text += ',';
            first = false;
            append(m_text, labelName);
            m_text += "=\"";
            for (const char c : labelValue) {
                if (c == '\\')
                    m_text += "\\\\";
                else if (c == '"')
                    m_text += "\\\"";
                else if (c == '\n')
                    m_text += "\\n";
                else
                    m_text += c;
            }
            m_text += '"';
        }
        m_text += '}';
    }
    m_text += ' ';
    append(m_text, number(value));
    m_text += '\n';
}

} // namespace ws
