#pragma once

// Looks for secrets where none may be: each secret is a marked string (a token, a password, a
// piece of key material), searched as is, in hex and in base64 at each of the three byte
// alignments it can have inside a longer base64 text (a kubeconfig's *-data fields, a Secret's
// data). A hit names the place, the secret and the byte offset. Captures (.wscap) are searched
// decompressed as well: their blocks are zstd frames, handed to the `zstd` program.

#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QString>
#include <QStringList>

#include <vector>

namespace ws::test {

class SecretScan {
public:
    // "WSSECRET-<what>-<16 random hex digits>": unique per run, so a hit is never a coincidence.
    static QByteArray marker(const char* what) {
        return QByteArray("WSSECRET-") + what + '-' +
               QByteArray::number(QRandomGenerator::global()->generate64(), 16)
                   .rightJustified(16, '0');
    }

    // `secret` must be at least 12 bytes: its shorter encoded forms would match by chance.
    void add(const QByteArray& secret, const QString& what) {
        m_forms.push_back({secret, what});
        m_forms.push_back({secret.toHex(), what + QStringLiteral(" (hex)")});
        m_forms.push_back({secret.toHex().toUpper(), what + QStringLiteral(" (HEX)")});
        for (int shift = 0; shift < 3; ++shift) {
            // The characters that depend on the secret's bytes only: not the first group when
            // bytes precede it, not a last, partial one (bytes may follow it).
            QByteArray b64 = (QByteArray(shift, '\0') + secret).toBase64();
            const int head = shift == 0 ? 0 : 4;
            const auto whole = static_cast<int>((shift + secret.size()) / 3 * 4);
            b64 = b64.mid(head, whole - head);
            if (b64.size() < 12)
                continue;
            const QString form = QStringLiteral(" (base64, offset %1)").arg(shift);
            m_forms.push_back({b64, what + form});
            QByteArray url = b64;
            url.replace('+', '-').replace('/', '_');
            if (url != b64)
                m_forms.push_back(
                    {url, what + QStringLiteral(" (base64url, offset %1)").arg(shift)});
        }
    }

    int size() const { return static_cast<int>(m_forms.size()); }

    // "<where>: <secret> at offset N" for every form found in `data`.
    QStringList find(const QByteArray& data, const QString& where) const {
        QStringList hits;
        for (const Form& f : m_forms) {
            const qsizetype at = data.indexOf(f.bytes);
            if (at >= 0)
                hits << QStringLiteral("%1: %2 at offset %3").arg(where, f.what).arg(at);
        }
        return hits;
    }

    // A file as written and, for a capture, its blocks decompressed (offsets there count in
    // the decompressed bytes). An unreadable file is a hit: nothing may go unsearched.
    QStringList findInFile(const QString& path) const {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {QStringLiteral("%1: cannot be read to search it").arg(path)};
        const QByteArray bytes = f.readAll();
        QStringList hits = find(bytes, path);
        if (bytes.startsWith(QByteArray("\x89WSCAP\r\n", 8))) {
            QString error;
            const QByteArray raw = decompressCapture(bytes, &error);
            if (!error.isEmpty())
                hits << QStringLiteral("%1: %2").arg(path, error);
            hits << find(raw, path + QStringLiteral(" (decompressed)"));
        }
        return hits;
    }

    // The zstd frames of a capture's blocks, concatenated and decompressed by `zstd -d`: the
    // records of every block (docs/capture-format.md), read without the program's own reader.
    static QByteArray decompressCapture(const QByteArray& file, QString* error) {
        auto u32 = [&](qsizetype at) {
            quint32 v = 0;
            for (int i = 3; i >= 0; --i)
                v = (v << 8) | static_cast<quint8>(file.at(at + i));
            return v;
        };
        if (file.size() < 16) {
            *error = QStringLiteral("a capture shorter than its header");
            return {};
        }
        qsizetype at = 16 + u32(12);
        QByteArray frames;
        while (at + 12 <= file.size()) {
            if (u32(at) != 0x4B425357u)
                break; // an incomplete last block is allowed; garbage is not read on
            const quint32 compressed = u32(at + 4);
            frames += file.mid(at + 12, compressed);
            at += 12 + compressed;
        }
        if (frames.isEmpty())
            return {};
        QProcess zstd;
        zstd.start(QStringLiteral("zstd"),
                   {QStringLiteral("-d"), QStringLiteral("-c"), QStringLiteral("-q")});
        if (!zstd.waitForStarted(10000)) {
            *error = QStringLiteral("zstd cannot be started");
            return {};
        }
        zstd.write(frames);
        zstd.closeWriteChannel();
        QByteArray out;
        while (zstd.waitForReadyRead(30000) || zstd.bytesAvailable() > 0)
            out += zstd.readAllStandardOutput();
        zstd.waitForFinished(30000);
        out += zstd.readAllStandardOutput();
        if (zstd.exitStatus() != QProcess::NormalExit || zstd.exitCode() != 0)
            *error = QStringLiteral("zstd -d failed: %1")
                         .arg(QString::fromUtf8(zstd.readAllStandardError()).trimmed());
        return out;
    }

private:
    struct Form {
        QByteArray bytes;
        QString what;
    };
    std::vector<Form> m_forms;
};

} // namespace ws::test
