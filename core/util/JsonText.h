#pragma once

#include <QString>
#include <string>
#include <string_view>

namespace ws {

// Appends `text` as a JSON string literal the way Go's encoding/json writes it (the apiserver's
// encoder): quotes, backslashes and control characters escaped, and <, >, & as \u003c, \u003e,
// \u0026 (HTML-safe, Go's default), so served bodies match a real apiserver's byte for byte.
inline void appendJsonString(std::string& out, std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                out += "\\u00";
                out += kHex[c >> 4];
                out += kHex[c & 0xf];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

inline void appendJsonString(std::string& out, const QString& text) {
    appendJsonString(out, std::string_view(text.toStdString()));
}

} // namespace ws
