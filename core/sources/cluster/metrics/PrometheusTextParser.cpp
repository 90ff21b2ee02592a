#include "PrometheusTextParser.h"

#include <charconv>
#include <system_error>

namespace ws {

namespace {

bool isBlank(char c) {
    return c == ' ' || c == '\t';
}
bool isLabelStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isLabelChar(char c) {
    return isLabelStart(c) || (c >= '0' && c <= '9');
}
// Metric names may also hold colons (recording rules' names); label names may not.
bool isNameStart(char c) {
    return isLabelStart(c) || c == ':';
}
bool isNameChar(char c) {
    return isLabelChar(c) || c == ':';
}

void skipBlanks(std::string_view s, std::size_t& i) {
    while (i < s.size() && isBlank(s[i]))
        ++i;
}

std::string_view token(std::string_view s, std::size_t& i) {
    const std::size_t start = i;
    while (i < s.size() && !isBlank(s[i]))
        ++i;
    return s.substr(start, i - start);
}

// As Go's strconv.ParseFloat reads what client_golang writes: decimals, exponents, NaN, Inf
// with either sign. from_chars takes inf/infinity/nan in any case and a '-', but not a '+'.
bool parseValue(std::string_view t, double* out) {
    if (!t.empty() && t.front() == '+') {
        t.remove_prefix(1);
        if (t.empty() || t.front() == '-' || t.front() == '+')
            return false;
    }
    if (t.empty())
        return false;
    const char* end = t.data() + t.size();
    const auto [p, ec] = std::from_chars(t.data(), end, *out);
    return ec == std::errc() && p == end;
}

bool parseTimestamp(std::string_view t, std::int64_t* out) {
    if (!t.empty() && t.front() == '+') {
        t.remove_prefix(1);
        if (t.empty() || t.front() == '-')
            return false;
    }
    if (t.empty())
        return false;
    const char* end = t.data() + t.size();
    const auto [p, ec] = std::from_chars(t.data(), end, *out);
    return ec == std::errc() && p == end;
}

bool parseType(std::string_view t, PrometheusType* out) {
    if (t == "counter")
        *out = PrometheusType::Counter;
    else if (t == "gauge")
        *out = PrometheusType::Gauge;
    else if (t == "histogram")
        *out = PrometheusType::Histogram;
    else if (t == "summary")
        *out = PrometheusType::Summary;
    else if (t == "untyped")
        *out = PrometheusType::Untyped;
    else
        return false;
    return true;
}

// The start of a skipped line, printable ASCII only, as evidence in the message.
QString excerpt(std::string_view line) {
    constexpr std::size_t kMax = 40;
    QString out;
    for (std::size_t i = 0; i < line.size() && i < kMax; ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        out += (c >= 0x20 && c < 0x7f) ? QChar(c) : QChar(u'?');
    }
    if (line.size() > kMax)
        out += QStringLiteral("...");
    return out;
}

constexpr std::uint8_t kHelpSeen = 1;
constexpr std::uint8_t kTypeSeen = 2;

} // namespace

std::optional<std::string_view> PrometheusSampleView::label(std::string_view labelName) const {
    for (const PrometheusLabelView& l : labels)
        if (l.name == labelName)
            return l.value;
    return std::nullopt;
}

const std::string* PrometheusSample::label(std::string_view labelName) const {
    for (const auto& [name, value] : labels)
        if (name == labelName)
            return &value;
    return nullptr;
}

const PrometheusFamily* PrometheusTextParser::family(std::string_view name) const {
    const auto it = m_familyIndex.find(name);
    return it == m_familyIndex.end() ? nullptr : &m_families[std::size_t(it->second)];
}

bool PrometheusTextParser::parse(std::string_view body, const Visitor& visit) {
    m_families.clear();
    m_familyIndex.clear();
    m_declared.clear();
    m_lastSampleName.clear();
    m_lastFamily = -1;
    m_samples = 0;
    m_declarations = 0;
    m_skipped = 0;
    m_firstSkipped.clear();
    m_error.clear();

    int lineNumber = 0;
    int nonBlank = 0;
    std::size_t pos = 0;
    while (pos < body.size()) {
        std::size_t end = body.find('\n', pos);
        if (end == std::string_view::npos)
            end = body.size();
        std::string_view line = body.substr(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        std::size_t i = 0;
        skipBlanks(line, i);
        line.remove_prefix(i);
        if (line.empty())
            continue;
        ++nonBlank;
        const char* why =
            line.front() == '#' ? parseComment(line.substr(1)) : parseSample(line, visit);
        if (why)
            skip(lineNumber, line, why);
    }
    if (nonBlank > 0 && m_samples == 0 && m_declarations == 0) {
        m_error = m_firstSkipped.isEmpty()
                      ? QStringLiteral("not the Prometheus text format: only comments")
                      : QStringLiteral("not the Prometheus text format: none of %1 lines parsed "
                                       "(%2)")
                            .arg(nonBlank)
                            .arg(m_firstSkipped);
        return false;
    }
    return true;
}

std::optional<PrometheusText> PrometheusTextParser::parseAll(std::string_view body,
                                                             QString* error) {
    PrometheusTextParser parser;
    PrometheusText text;
    const bool ok = parser.parse(body, [&](const PrometheusSampleView& s) {
        PrometheusSample& out = text.samples.emplace_back();
        out.name.assign(s.name);
        out.family.assign(s.family);
        out.type = s.type;
        out.labels.reserve(s.labels.size());
        for (const PrometheusLabelView& l : s.labels)
            out.labels.emplace_back(std::string(l.name), std::string(l.value));
        out.value = s.value;
        out.timestampMs = s.timestampMs;
    });
    if (!ok) {
        if (error)
            *error = parser.error();
        return std::nullopt;
    }
    text.families = std::move(parser.m_families);
    text.skippedLines = parser.m_skipped;
    text.firstSkipped = parser.m_firstSkipped;
    return text;
}

void PrometheusTextParser::skip(int lineNumber, std::string_view line, const char* why) {
    if (m_skipped++ == 0)
        m_firstSkipped = QStringLiteral("line %1: %2 (%3)")
                             .arg(lineNumber)
                             .arg(QLatin1String(why), excerpt(line));
}

PrometheusFamily& PrometheusTextParser::familyFor(std::string_view name) {
    const auto it = m_familyIndex.find(name);
    if (it != m_familyIndex.end())
        return m_families[std::size_t(it->second)];
    m_familyIndex.emplace(std::string(name), int(m_families.size()));
    m_declared.push_back(0);
    PrometheusFamily& f = m_families.emplace_back();
    f.name.assign(name);
    return f;
}

const char* PrometheusTextParser::parseComment(std::string_view rest) {
    std::size_t i = 0;
    skipBlanks(rest, i);
    const std::string_view keyword = token(rest, i);
    const bool help = keyword == "HELP";
    if (!help && keyword != "TYPE")
        return nullptr; // an ordinary comment
    skipBlanks(rest, i);
    if (i >= rest.size())
        return help ? "HELP without a metric name" : "TYPE without a metric name";
    const std::size_t nameStart = i;
    if (!isNameStart(rest[i]))
        return "bad metric name";
    while (i < rest.size() && isNameChar(rest[i]))
        ++i;
    if (i < rest.size() && !isBlank(rest[i]))
        return "bad metric name";
    const std::string_view name = rest.substr(nameStart, i - nameStart);
    skipBlanks(rest, i);
    const std::string_view text = rest.substr(i);

    std::string helpText;
    PrometheusType type = PrometheusType::Untyped;
    if (help) {
        helpText.reserve(text.size());
        for (std::size_t k = 0; k < text.size(); ++k) {
            if (text[k] == '\\' && k + 1 < text.size() &&
                (text[k + 1] == '\\' || text[k + 1] == 'n')) {
                helpText += text[k + 1] == 'n' ? '\n' : '\\';
                ++k;
            } else {
                helpText += text[k];
            }
        }
    } else {
        std::size_t k = 0;
        const std::string_view word = token(text, k);
        skipBlanks(text, k);
        if (k != text.size())
            return "TYPE with more than one word";
        if (!parseType(word, &type))
            return "unknown TYPE";
    }
    // Checked before familyFor creates anything, so a rejected line leaves no trace.
    const auto it = m_familyIndex.find(name);
    const std::uint8_t bit = help ? kHelpSeen : kTypeSeen;
    if (it != m_familyIndex.end() && (m_declared[std::size_t(it->second)] & bit))
        return help ? "second HELP for this family" : "second TYPE for this family";
    PrometheusFamily& f = familyFor(name);
    m_declared[std::size_t(m_familyIndex.find(name)->second)] |= bit;
    if (help)
        f.help = std::move(helpText);
    else
        f.type = type;
    ++m_declarations;
    // A declaration may change which family a name already seen resolves to.
    m_lastSampleName.clear();
    m_lastFamily = -1;
    return nullptr;
}

int PrometheusTextParser::resolveFamily(std::string_view sampleName) {
    if (!m_lastSampleName.empty() && sampleName == m_lastSampleName)
        return m_lastFamily;
    int found = -1;
    const auto exact = m_familyIndex.find(sampleName);
    if (exact != m_familyIndex.end()) {
        found = exact->second;
    } else {
        for (const std::string_view suffix : {"_bucket", "_sum", "_count"}) {
            if (sampleName.size() <= suffix.size() || !sampleName.ends_with(suffix))
                continue;
            const auto base =
                m_familyIndex.find(sampleName.substr(0, sampleName.size() - suffix.size()));
            if (base == m_familyIndex.end())
                continue;
            const PrometheusType t = m_families[std::size_t(base->second)].type;
            if (t == PrometheusType::Histogram ||
                (t == PrometheusType::Summary && suffix != "_bucket"))
                found = base->second;
            break;
        }
    }
    m_lastSampleName.assign(sampleName);
    m_lastFamily = found;
    return found;
}

const char* PrometheusTextParser::parseSample(std::string_view line, const Visitor& visit) {
    const std::size_t n = line.size();
    std::size_t i = 0;
    if (!isNameStart(line[0]))
        return "bad metric name";
    while (i < n && isNameChar(line[i]))
        ++i;
    const std::string_view name = line.substr(0, i);
    if (i < n && !isBlank(line[i]) && line[i] != '{')
        return "bad metric name";
    m_labels.clear();
    m_scratch.clear();
    skipBlanks(line, i);
    if (i < n && line[i] == '{') {
        ++i;
        for (;;) {
            skipBlanks(line, i);
            if (i >= n)
                return "labels not closed";
            if (line[i] == '}') {
                ++i;
                break;
            }
            if (!isLabelStart(line[i]))
                return "bad label name";
            const std::size_t labelStart = i;
            while (i < n && isLabelChar(line[i]))
                ++i;
            const std::string_view labelName = line.substr(labelStart, i - labelStart);
            skipBlanks(line, i);
            if (i >= n || line[i] != '=')
                return "expected '=' after a label name";
            ++i;
            skipBlanks(line, i);
            if (i >= n || line[i] != '"')
                return "expected a quoted label value";
            ++i;
            const std::size_t valueStart = i;
            while (i < n && line[i] != '"' && line[i] != '\\')
                ++i;
            if (i >= n)
                return "label value not closed";
            std::string_view value;
            if (line[i] == '"') {
                value = line.substr(valueStart, i - valueStart); // no escapes: a view of the body
                ++i;
            } else {
                // Unescaped values of one line never outgrow the line: with this capacity no
                // append reallocates, so earlier values' views stay valid.
                if (m_scratch.capacity() < n)
                    m_scratch.reserve(n);
                const std::size_t start = m_scratch.size();
                m_scratch.append(line.substr(valueStart, i - valueStart));
                for (;;) {
                    if (i >= n)
                        return "label value not closed";
                    const char c = line[i];
                    if (c == '"') {
                        ++i;
                        break;
                    }
                    if (c != '\\') {
                        m_scratch += c;
                        ++i;
                        continue;
                    }
                    if (i + 1 >= n)
                        return "label value not closed";
                    const char e = line[i + 1];
                    if (e == '\\' || e == '"')
                        m_scratch += e;
                    else if (e == 'n')
                        m_scratch += '\n';
                    else
                        return "invalid escape in a label value";
                    i += 2;
                }
                value = std::string_view(m_scratch).substr(start);
            }
            for (const PrometheusLabelView& l : m_labels)
                if (l.name == labelName)
                    return "duplicate label name";
            m_labels.push_back({labelName, value});
            skipBlanks(line, i);
            if (i < n && line[i] == ',') {
                ++i; // a trailing comma before '}' is allowed
                continue;
            }
            if (i < n && line[i] == '}') {
                ++i;
                break;
            }
            return "expected ',' or '}' after a label value";
        }
        skipBlanks(line, i);
    }
    if (i >= n)
        return "no value";
    PrometheusSampleView sample;
    if (!parseValue(token(line, i), &sample.value))
        return "bad value";
    skipBlanks(line, i);
    if (i < n) {
        std::int64_t ts = 0;
        if (!parseTimestamp(token(line, i), &ts))
            return "bad timestamp";
        sample.timestampMs = ts;
        skipBlanks(line, i);
        if (i < n)
            return "unexpected text after the timestamp";
    }
    const int family = resolveFamily(name);
    sample.name = name;
    if (family >= 0) {
        sample.family = m_families[std::size_t(family)].name;
        sample.type = m_families[std::size_t(family)].type;
    } else {
        sample.family = name;
    }
    sample.labels = m_labels;
    ++m_samples;
    if (visit)
        visit(sample);
    return nullptr;
}

std::string_view PrometheusTextParser::wholeFamilies(std::string_view cut) {
    const std::size_t lastNewline = cut.rfind('\n');
    if (lastNewline == std::string_view::npos)
        return {};
    const std::string_view lines = cut.substr(0, lastNewline + 1);
    // The start of the line before the one starting at `at` (> 0).
    const auto previousLine = [&](std::size_t at) -> std::size_t {
        if (at < 2)
            return 0;
        const std::size_t newline = lines.rfind('\n', at - 2);
        return newline == std::string_view::npos ? 0 : newline + 1;
    };
    // The family a "# HELP name ..." or "# TYPE name ..." line starting at `at` declares.
    const auto declared = [&](std::size_t at) -> std::optional<std::string_view> {
        const std::string_view line = lines.substr(at, lines.find('\n', at) - at);
        if (!line.starts_with("# HELP ") && !line.starts_with("# TYPE "))
            return std::nullopt;
        const std::string_view rest = line.substr(7);
        return rest.substr(0, rest.find(' '));
    };
    std::size_t start = lines.size();
    std::optional<std::string_view> family;
    while (start > 0 && !family) {
        start = previousLine(start);
        family = declared(start);
    }
    if (!family)
        return lines; // no declarations: only the cut line goes
    // The family's declaration lines just before (HELP before TYPE).
    while (start > 0) {
        const std::size_t before = previousLine(start);
        if (declared(before) != family)
            break;
        start = before;
    }
    return lines.substr(0, start);
}

} // namespace ws
