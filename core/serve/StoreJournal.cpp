#include "StoreJournal.h"

#include "sources/sim/etcd/SimEtcd.h"
#include "util/JsonText.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <unistd.h>

namespace ws {

namespace {

void appendNumber(std::string& out, std::int64_t n) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, n);
    out.append(buf, r.ptr);
}

} // namespace

StoreJournal::~StoreJournal() {
    if (m_file)
        std::fclose(m_file);
}

bool StoreJournal::open(const QString& dir, QString* error) {
    if (!QDir().mkpath(dir)) {
        *error = QStringLiteral("--state-dir %1: cannot create the directory").arg(dir);
        return false;
    }
    m_path = QDir(dir).filePath(fileName());
    m_file = std::fopen(QFile::encodeName(m_path).constData(), "a+");
    if (!m_file) {
        *error = QStringLiteral("--state-dir: cannot open %1: %2")
                     .arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

bool StoreJournal::restore(SimKeyspace& keyspace, SimEtcd& etcd, QString* error, QString* warning) {
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("--state-dir: cannot read %1: %2").arg(m_path, file.errorString());
        return false;
    }
    const QByteArray all = file.readAll();
    file.close();
    qsizetype pos = 0;
    int line = 0;
    auto bad = [&](const QString& why) {
        *error = QStringLiteral("--state-dir: %1 line %2: %3").arg(m_path).arg(line).arg(why);
        return false;
    };
    while (pos < all.size()) {
        const qsizetype end = all.indexOf('\n', pos);
        ++line;
        if (end < 0) {
            // Cut short by a kill mid-write: nobody was answered from it (sync() returns first).
            *warning = QStringLiteral("--state-dir: %1 line %2 is incomplete (%3 bytes): dropped")
                           .arg(m_path)
                           .arg(line)
                           .arg(all.size() - pos);
            if (::ftruncate(::fileno(m_file), static_cast<off_t>(pos)) != 0)
                return bad(QStringLiteral("cannot drop the incomplete line: %1")
                               .arg(QString::fromLocal8Bit(std::strerror(errno))));
            break;
        }
        const QByteArray text = all.mid(pos, end - pos);
        pos = end + 1;
        QJsonParseError perr;
        const QJsonDocument doc = QJsonDocument::fromJson(text, &perr);
        if (!doc.isObject())
            return bad(perr.error == QJsonParseError::NoError ? QStringLiteral("not an object")
                                                              : perr.errorString());
        const QJsonObject o = doc.object();
        const auto rev = static_cast<ResourceVersion>(o.value(QLatin1String("rev")).toDouble(-1));
        const QString op = o.value(QLatin1String("op")).toString();
        if (op == QLatin1String("compact")) {
            if (rev != etcd.compactRevision() && !etcd.compact(rev))
                return bad(QStringLiteral("compaction to %1 outside (%2, %3]")
                               .arg(rev)
                               .arg(etcd.compactRevision())
                               .arg(etcd.currentRevision()));
            continue;
        }
        if (op != QLatin1String("put") && op != QLatin1String("delete"))
            return bad(QStringLiteral("unknown op '%1'").arg(op));
        if (rev != etcd.currentRevision() + 1)
            return bad(QStringLiteral("revision %1 where %2 was next")
                           .arg(rev)
                           .arg(etcd.currentRevision() + 1));
        const QString resourceName = o.value(QLatin1String("resource")).toString();
        const int resource = keyspace.resourceIndex(resourceName);
        if (resource < 0)
            return bad(
                QStringLiteral("resource '%1' is not served by this scenario").arg(resourceName));
        const QString ns = o.value(QLatin1String("namespace")).toString();
        const QString name = o.value(QLatin1String("name")).toString();
        KeyId key = keyspace.findKey(resource, ns, name);
        if (op == QLatin1String("delete")) {
            if (key == kNoKey || etcd.remove(0, key) != rev)
                return bad(QStringLiteral("delete of %1/%2, which does not exist").arg(ns, name));
        } else {
            if (key == kNoKey)
                key =
                    keyspace.addKey(resource, ns, name, o.value(QLatin1String("group")).toInt(-1));
            if (o.value(QLatin1String("external")).toBool())
                keyspace.setExternal(key);
            const QByteArray value = o.value(QLatin1String("value")).toString().toUtf8();
            etcd.put(0, key, std::string_view(value.constData(), std::size_t(value.size())));
        }
        ++m_restored;
    }
    m_written = etcd.currentRevision();
    m_compacted = etcd.compactRevision();
    std::fseek(m_file, 0, SEEK_END);
    return true;
}

bool StoreJournal::sync(const SimEtcd& etcd, const SimKeyspace& keyspace, QString* error) {
    if (!m_file)
        return true;
    m_buffer.clear();
    for (ResourceVersion rev = m_written + 1; rev <= etcd.currentRevision(); ++rev) {
        const MvccEvent* e = etcd.eventAt(rev);
        if (!e) {
            // Compacted before it was written: cannot happen while sync() follows every step
            // and every client write; say so rather than write a store that cannot be replayed.
            *error = QStringLiteral("--state-dir: revision %1 was compacted before it was kept")
                         .arg(rev);
            return false;
        }
        const bool put = e->type == MvccEventType::Put;
        m_buffer += R"({"rev":)";
        appendNumber(m_buffer, rev);
        m_buffer += put ? R"(,"op":"put","resource":)" : R"(,"op":"delete","resource":)";
        appendJsonString(m_buffer, keyspace.resourceName(keyspace.resourceOf(e->key)),
                         JsonEscape::Plain);
        m_buffer += R"(,"namespace":)";
        appendJsonString(m_buffer, keyspace.namespaceUtf8(e->key), JsonEscape::Plain);
        m_buffer += R"(,"name":)";
        appendJsonString(m_buffer, keyspace.nameUtf8(e->key), JsonEscape::Plain);
        if (put) {
            m_buffer += R"(,"group":)";
            appendNumber(m_buffer, keyspace.selectorGroupOf(e->key));
            m_buffer +=
                keyspace.isExternal(e->key) ? R"(,"external":true)" : R"(,"external":false)";
            m_buffer += R"(,"value":)";
            appendJsonString(m_buffer, e->kv->value(), JsonEscape::Plain);
        }
        m_buffer += "}\n";
    }
    m_written = etcd.currentRevision();
    if (etcd.compactRevision() != m_compacted) {
        m_compacted = etcd.compactRevision();
        m_buffer += R"({"rev":)";
        appendNumber(m_buffer, m_compacted);
        m_buffer += R"(,"op":"compact"})";
        m_buffer += '\n';
    }
    if (m_buffer.empty())
        return true;
    // One write per step; fflush hands it to the kernel, where it survives this process.
    if (std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file) != m_buffer.size() ||
        std::fflush(m_file) != 0) {
        *error = QStringLiteral("--state-dir: cannot write %1: %2")
                     .arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

} // namespace ws
