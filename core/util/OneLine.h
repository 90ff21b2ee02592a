#pragma once

#include <QString>
#include <string>
#include <string_view>

namespace ws {

// Text from outside (a parser's message quoting the input, evidence bytes) made fit for a
// one-line error: ASCII control bytes become \n, \r, \t or \xNN; everything else is kept, so
// valid UTF-8 stays valid. Found by the fuzz targets (tests/fuzz): yaml-cpp's "unknown escape
// character: <the byte>" and a JSON value's leading bytes broke error lines in two.
inline std::string oneLine(std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c != 0x7f)
            out += ch;
        else if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else
            out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    }
    return out;
}

inline QString oneLine(const QString& text) {
    return QString::fromStdString(oneLine(text.toStdString()));
}

} // namespace ws
