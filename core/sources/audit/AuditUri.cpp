#include "AuditUri.h"

#include "kube/ApiRequest.h"

#include <array>
#include <tuple>
#include <utility>

namespace ws {

namespace {

bool pathChar(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '/';
}

// Query bytes QUrl keeps as they are and decodes to themselves: unreserved characters and the
// sub-delimiters, ':', '@', '/', '?'. '%' starts an escape; '&' and '=' split.
bool queryChar(unsigned char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '-':
    case '.':
    case '_':
    case '~':
    case '!':
    case '$':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case ':':
    case '@':
    case '/':
    case '?':
        return true;
    default:
        return false;
    }
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// A query value with its %XX escapes decoded; false when one is malformed or decodes to what is
// not printable ASCII (QUrl's tolerant rules and UTF-8 would have a say).
bool decode(std::string_view in, std::string* out) {
    out->clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
        const auto c = static_cast<unsigned char>(in[i]);
        if (c != '%') {
            if (!queryChar(c) && c != '=')
                return false;
            out->push_back(static_cast<char>(c));
            continue;
        }
        if (i + 2 >= in.size())
            return false;
        const int h = hexValue(in[i + 1]), l = hexValue(in[i + 2]);
        if (h < 0 || l < 0)
            return false;
        const int byte = h * 16 + l;
        if (byte < 0x20 || byte > 0x7e)
            return false;
        out->push_back(static_cast<char>(byte));
        i += 2;
    }
    return true;
}

bool allDigits(std::string_view s) {
    if (s.empty() || s.size() > 18) // 18 digits never overflow int64
        return false;
    for (char c : s)
        if (c < '0' || c > '9')
            return false;
    return true;
}

std::int64_t digitsValue(std::string_view s) {
    std::int64_t v = 0;
    for (char c : s)
        v = v * 10 + (c - '0');
    return v;
}

// QString::toLongLong's answer for what is not plain digits (a sign, spaces, too long).
std::optional<std::int64_t> qtNumber(std::string_view s) {
    bool ok = false;
    const qint64 v = QString::fromLatin1(s.data(), qsizetype(s.size())).toLongLong(&ok);
    return ok ? std::optional<std::int64_t>(v) : std::nullopt;
}

bool truthy(std::string_view v) {
    if (v == "1")
        return true;
    if (v.size() != 4)
        return false;
    static constexpr char kTrue[] = "true";
    for (std::size_t i = 0; i < 4; ++i)
        if ((v[i] | 0x20) != kTrue[i])
            return false;
    return true;
}

} // namespace

void AuditUri::reset() {
    group.clear();
    resource.clear();
    labelSelector.clear();
    fieldSelector.clear();
    resourceVersion.clear();
    continued = false;
    limit = timeoutSeconds = 0;
    allowWatchBookmarks = false;
    sendInitialEvents.reset();
}

bool AuditUri::parse(std::string_view uri, QString* error) {
    error->clear();
    reset();
    const Simple s = parseSimple(uri, error);
    if (s != Simple::TooHard)
        return s == Simple::Done;
    reset();
    error->clear();
    return parseWithQUrl(uri, error);
}

AuditUri::Simple AuditUri::parseSimple(std::string_view uri, QString* error) {
    if (uri.size() >= 2 && uri[0] == '/' && uri[1] == '/')
        return Simple::TooHard; // an authority
    const std::size_t q = uri.find('?');
    const std::string_view path = uri.substr(0, q);
    for (char c : path)
        if (!pathChar(static_cast<unsigned char>(c)))
            return Simple::TooHard;

    // The path's segments, empty ones skipped (QString::split with SkipEmptyParts).
    std::array<std::string_view, 10> parts;
    std::size_t n = 0;
    for (std::size_t at = 0; at <= path.size();) {
        std::size_t end = path.find('/', at);
        if (end == std::string_view::npos)
            end = path.size();
        if (end > at) {
            if (n == parts.size())
                return Simple::Failed; // more segments than any resource path has
            parts[n++] = path.substr(at, end - at);
        }
        at = end + 1;
    }
    std::size_t first = 0;
    if (n >= 3 && parts[0] == "api") {
        first = 2;
    } else if (n >= 4 && parts[0] == "apis") {
        group.assign(parts[1]);
        first = 3;
    } else {
        return Simple::Failed;
    }
    if (n - first >= 3 && parts[first] == "namespaces")
        first += 2;
    if (n - first > 3)
        return Simple::Failed;
    resource.assign(parts[first]);
    if (q == std::string_view::npos)
        return Simple::Done;

    // The query: '&'-separated items, key=value; the first item of a key counts. Every value is
    // decoded, used or not: a byte QUrl would have a say on sends the whole URI to it.
    std::string_view limitText, timeoutText;
    bool seenRv = false, seenContinue = false, seenLabel = false, seenField = false,
         seenBookmarks = false, seenInitial = false, seenLimit = false, seenTimeout = false;
    std::string value;
    const std::string_view query = uri.substr(q + 1);
    for (std::size_t at = 0; at <= query.size();) {
        std::size_t end = query.find('&', at);
        if (end == std::string_view::npos)
            end = query.size();
        const std::string_view item = query.substr(at, end - at);
        at = end + 1;
        const std::size_t eq = item.find('=');
        const std::string_view key = item.substr(0, eq);
        const std::string_view raw =
            eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
        for (char c : key)
            if (!queryChar(static_cast<unsigned char>(c)))
                return Simple::TooHard; // an escaped key: QUrl may decode it to one of ours
        if (!decode(raw, &value))
            return Simple::TooHard;
        auto first = [](bool& seen) { return !std::exchange(seen, true); };
        if (key == "resourceVersion") {
            if (first(seenRv))
                resourceVersion = value;
        } else if (key == "continue") {
            if (first(seenContinue))
                continued = !value.empty();
        } else if (key == "labelSelector") {
            if (first(seenLabel))
                labelSelector = value;
        } else if (key == "fieldSelector") {
            if (first(seenField))
                fieldSelector = value;
        } else if (key == "allowWatchBookmarks") {
            if (first(seenBookmarks))
                allowWatchBookmarks = truthy(value);
        } else if (key == "sendInitialEvents") {
            if (first(seenInitial))
                sendInitialEvents = truthy(value);
        } else if (key == "limit") {
            if (first(seenLimit))
                limitText = raw;
        } else if (key == "timeoutSeconds") {
            if (first(seenTimeout))
                timeoutText = raw;
        }
    }
    for (auto [key, text, out] : {std::tuple{"limit", limitText, &limit},
                                  std::tuple{"timeoutSeconds", timeoutText, &timeoutSeconds}}) {
        if (!decode(text, &value))
            return Simple::TooHard;
        if (value.empty())
            continue;
        const std::optional<std::int64_t> v =
            allDigits(value) ? std::optional(digitsValue(value)) : qtNumber(value);
        if (!v || *v < 0) {
            *error = QStringLiteral("%1: invalid value '%2'")
                         .arg(QLatin1String(key), QString::fromLatin1(value));
            return Simple::Failed;
        }
        *out = *v;
    }
    return Simple::Done;
}

bool AuditUri::parseWithQUrl(std::string_view uri, QString* error) {
    const auto r = ApiRequest::parse(QStringLiteral("GET"),
                                     QString::fromUtf8(uri.data(), qsizetype(uri.size())), error);
    if (!r)
        return false;
    group = r->group.toStdString();
    resource = r->resource.toStdString();
    labelSelector = r->labelSelector.toStdString();
    fieldSelector = r->fieldSelector.toStdString();
    resourceVersion = r->resourceVersion.toStdString();
    continued = !r->continueToken.isEmpty();
    limit = r->limit;
    timeoutSeconds = r->timeoutSeconds;
    allowWatchBookmarks = r->allowWatchBookmarks;
    sendInitialEvents = r->sendInitialEvents;
    return true;
}

ResourceVersion AuditUri::requestedRv() const {
    if (allDigits(resourceVersion))
        return digitsValue(resourceVersion);
    if (resourceVersion.empty())
        return 0;
    const std::optional<std::int64_t> v = qtNumber(resourceVersion);
    return v && *v > 0 ? *v : 0;
}

} // namespace ws
