#pragma once

#include <QString>
#include <string>
#include <string_view>

namespace ws {

// How appendJsonString escapes: Plain escapes what JSON requires (quotes, backslashes, control
// characters); GoHtmlSafe also writes <, >, & as \u003c, \u003e, \u0026, as Go's encoding/json
// does by default (the apiserver's encoder), so served bodies match a real apiserver's.
enum class JsonEscape { Plain, GoHtmlSafe };

// Appends UTF-8 `text` as a JSON string literal.
inline void appendJsonString(std::string& out, std::string_view text,
                             JsonEscape escape = JsonEscape::GoHtmlSafe) {
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
            if (c < 0x20 ||
                (escape == JsonEscape::GoHtmlSafe && (c == '<' || c == '>' || c == '&'))) {
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

inline void appendJsonString(std::string& out, const QString& text,
                             JsonEscape escape = JsonEscape::GoHtmlSafe) {
    const QByteArray utf8 = text.toUtf8();
    appendJsonString(out, std::string_view(utf8.constData(), static_cast<std::size_t>(utf8.size())),
                     escape);
}

} // namespace ws
