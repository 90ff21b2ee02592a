#include "ObjectText.h"

#include "CellFormat.h"
#include "kube/KubernetesKeyDecoder.h"

#include <QJsonDocument>
#include <QJsonParseError>

namespace ws {

QStringList ObjectText::prettyJson(const QByteArray& json) {
    QStringList lines;
    QByteArray line;
    int indent = 0;
    bool inString = false, escaped = false;
    const auto newline = [&] {
        lines << QString::fromUtf8(line);
        line = QByteArray(qsizetype(indent) * 2, ' ');
    };
    const auto isSpace = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            line += c;
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case '"':
            inString = true;
            line += c;
            break;
        case '{':
        case '[': {
            const char close = c == '{' ? '}' : ']';
            qsizetype next = i + 1;
            while (next < json.size() && isSpace(json[next]))
                ++next;
            line += c;
            if (next < json.size() && json[next] == close) { // {} and []
                line += close;
                i = next;
                break;
            }
            ++indent;
            newline();
            break;
        }
        case '}':
        case ']':
            --indent;
            newline();
            line += c;
            break;
        case ',':
            line += c;
            newline();
            break;
        case ':':
            line += ": ";
            break;
        default:
            if (!isSpace(c))
                line += c;
        }
    }
    if (!line.trimmed().isEmpty())
        lines << QString::fromUtf8(line);
    return lines;
}

QStringList ObjectText::hexDump(const QByteArray& bytes, int max) {
    QStringList lines;
    const qsizetype n = std::min<qsizetype>(bytes.size(), max);
    for (qsizetype at = 0; at < n; at += 16) {
        QString hex, text;
        for (qsizetype i = at; i < at + 16; ++i) {
            if (i < n) {
                const auto b = static_cast<unsigned char>(bytes[i]);
                hex += QStringLiteral("%1 ").arg(b, 2, 16, QLatin1Char('0'));
                text += b >= 0x20 && b < 0x7f ? QChar(b) : QChar(u'.');
            } else {
                hex += QStringLiteral("   ");
            }
        }
        lines << QStringLiteral("%1  %2 |%3|").arg(at, 4, 16, QLatin1Char('0')).arg(hex, text);
    }
    if (bytes.size() > n)
        lines << QStringLiteral("… %1 more bytes").arg(formatCount(bytes.size() - n));
    return lines;
}

ObjectText ObjectText::of(const QByteArray& bytes) {
    ObjectText t;
    if (bytes.isEmpty()) {
        t.summary = QStringLiteral("empty");
        return t;
    }
    const QString size = QStringLiteral("%1 bytes").arg(formatCount(bytes.size()));
    QJsonParseError error;
    if (bytes.front() == '{' || bytes.front() == '[') {
        QJsonDocument::fromJson(bytes, &error);
        if (error.error == QJsonParseError::NoError) {
            t.encoding = Encoding::Json;
            t.summary = QStringLiteral("JSON, %1").arg(size);
            t.lines = prettyJson(bytes);
            return t;
        }
    }
    KubernetesKeyDecoder decoder;
    DecodedValue value;
    const std::string_view view(bytes.constData(), std::size_t(bytes.size()));
    if (decoder.decodeValue(view, &value)) {
        const auto s = [](const std::string& v) { return QString::fromStdString(v); };
        if (value.encoding == ValueEncoding::Protobuf) {
            t.encoding = Encoding::Protobuf;
            t.summary = QStringLiteral("protobuf (k8s\\0 envelope), %1").arg(size);
            t.lines << QStringLiteral("apiVersion: %1").arg(s(value.apiVersion))
                    << QStringLiteral("kind: %1").arg(s(value.kind))
                    << QStringLiteral("namespace: %1").arg(s(value.namespace_))
                    << QStringLiteral("name: %1").arg(s(value.name))
                    << QStringLiteral("uid: %1").arg(s(value.uid)) << QString();
            t.lines << hexDump(bytes);
            return t;
        }
        if (value.encoding == ValueEncoding::Encrypted) {
            t.encoding = Encoding::Encrypted;
            t.summary = QStringLiteral("encrypted (%1), %2").arg(s(value.provider), size);
            t.lines << hexDump(bytes);
            return t;
        }
    }
    const QString text = QString::fromUtf8(bytes);
    const bool printable =
        text.toUtf8() == bytes && std::none_of(text.begin(), text.end(), [](QChar c) {
            return c.unicode() < 0x20 && c != u'\n' && c != u'\t' && c != u'\r';
        });
    if (printable) {
        t.encoding = Encoding::Text;
        t.summary = QStringLiteral("text, %1").arg(size);
        t.lines = text.split(u'\n');
        return t;
    }
    t.encoding = Encoding::Binary;
    t.summary = QStringLiteral("binary, %1").arg(size);
    t.lines = hexDump(bytes);
    return t;
}

} // namespace ws
