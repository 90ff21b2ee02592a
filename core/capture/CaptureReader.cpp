#include "CaptureReader.h"

#include "CaptureFormat.h"
#include "LittleEndian.h"

#include <QFile>
#include <QStringList>
#include <algorithm>
#include <cstdint>
#include <zstd.h>

namespace ws {

using namespace capture;

namespace {
QString seconds(TimeUs t) {
    return QString::number(double(t) / 1e6, 'f', 1);
}
} // namespace

CaptureReader::CaptureReader() = default;
CaptureReader::~CaptureReader() = default;

bool CaptureReader::open(const QString& path, QString* error) {
    auto file = std::make_unique<QFile>(path);
    if (!file->open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file->errorString());
        return false;
    }
    m_own = std::move(file);
    return open(m_own.get(), path, error);
}

bool CaptureReader::open(QIODevice* device, const QString& name, QString* error) {
    m_device = device;
    m_name = name;
    const QByteArray fixed = device->read(kMagic.size() + 8);
    if (fixed.isEmpty()) {
        *error = QStringLiteral("%1 is empty: not a WatchScope capture").arg(name);
        return false;
    }
    if (!fixed.startsWith(kMagic)) {
        *error = QStringLiteral("%1 is not a WatchScope capture (.wscap)").arg(name);
        return false;
    }
    if (fixed.size() < kMagic.size() + 8) {
        *error = QStringLiteral("%1 is cut short inside its header").arg(name);
        return false;
    }
    LittleEndianReader r(fixed.constData() + kMagic.size(), 8);
    std::uint16_t major = 0, minor = 0;
    std::uint32_t headerSize = 0;
    r.get(&major);
    r.get(&minor);
    r.get(&headerSize);
    if (major != kMajorVersion) {
        *error = QStringLiteral("%1 is a capture of format %2, which this WatchScope (format %3) "
                                "cannot read")
                     .arg(name)
                     .arg(major)
                     .arg(kMajorVersion);
        return false;
    }
    if (headerSize > kMaxHeaderSize) {
        *error =
            QStringLiteral("%1 is damaged: its header claims %2 bytes").arg(name).arg(headerSize);
        return false;
    }
    const QByteArray json = device->read(headerSize);
    if (json.size() != qsizetype(headerSize)) {
        *error = QStringLiteral("%1 is cut short inside its header").arg(name);
        return false;
    }
    QString why;
    if (!CaptureHeader::fromJson(json, &m_header, &why)) {
        *error = QStringLiteral("%1 is damaged: %2").arg(name, why);
        return false;
    }
    return true;
}

qint64 CaptureReader::position() const {
    return m_device ? m_device->pos() : 0;
}

qint64 CaptureReader::size() const {
    return m_device ? m_device->size() : 0;
}

void CaptureReader::stop(const QString& why, bool damaged) {
    m_ended = true;
    m_warning =
        QStringLiteral("%1 %2 at byte %3 (%4): read %5 frames, up to %6 s")
            .arg(m_name, damaged ? QStringLiteral("is damaged") : QStringLiteral("is cut short"))
            .arg(m_blockStart)
            .arg(why)
            .arg(m_frames)
            .arg(seconds(m_lastTime));
}

bool CaptureReader::readBlock() {
    m_blockStart = m_device->pos();
    const QByteArray head = m_device->read(kBlockHeaderSize);
    if (head.isEmpty()) {
        // The end of the file: clean only after the End record.
        if (!m_complete)
            stop(QStringLiteral("no end record; still being written, or the writer stopped"),
                 false);
        m_ended = true;
        return false;
    }
    if (head.size() < kBlockHeaderSize) {
        stop(QStringLiteral("an incomplete block header"), false);
        return false;
    }
    LittleEndianReader r(head.constData(), head.size());
    std::uint32_t magic = 0, compressed = 0, raw = 0;
    r.get(&magic);
    r.get(&compressed);
    r.get(&raw);
    if (magic != kBlockMagic) {
        stop(QStringLiteral("no block starts there"), true);
        return false;
    }
    if (compressed > kMaxCompressedBlock || raw > kMaxRawBlock) {
        stop(QStringLiteral("a block claims %1 bytes").arg(qMax(compressed, raw)), true);
        return false;
    }
    const QByteArray data = m_device->read(compressed);
    if (data.size() != qsizetype(compressed)) {
        stop(QStringLiteral("an incomplete block"), false);
        return false;
    }
    // The frame's own size must agree with the block header before anything is allocated.
    const unsigned long long content = ZSTD_getFrameContentSize(data.constData(), data.size());
    if (content != raw) {
        stop(QStringLiteral("a block's sizes disagree"), true);
        return false;
    }
    m_block.resize(raw);
    const std::size_t n = ZSTD_decompress(m_block.data(), raw, data.constData(), data.size());
    if (ZSTD_isError(n) || n != raw) {
        stop(QStringLiteral("a block does not decompress: %1")
                 .arg(ZSTD_isError(n) ? QString::fromUtf8(ZSTD_getErrorName(n))
                                      : QStringLiteral("size")),
             true);
        return false;
    }
    m_blockPos = 0;
    return true;
}

CaptureReader::Parsed CaptureReader::parseRecord(CaptureRecord* record) {
    LittleEndianReader head(m_block.constData() + m_blockPos,
                            static_cast<std::size_t>(m_block.size() - m_blockPos));
    std::uint8_t type = 0;
    std::uint32_t size = 0;
    if (!head.get(&type) || !head.get(&size) || head.remaining() < size) {
        stop(QStringLiteral("a record runs past its block"), true);
        return Parsed::Failed;
    }
    const char* payload = m_block.constData() + m_blockPos + kRecordHeaderSize;
    m_blockPos += kRecordHeaderSize + qsizetype(size);
    LittleEndianReader r(payload, size);
    switch (static_cast<RecordType>(type)) {
    case RecordType::Connection: {
        std::uint32_t id = 0;
        ConnectionInfo& c = record->connection;
        if (!r.get(&id) || !r.getString(&c.sourceKind) || !r.getString(&c.endpoint) ||
            !r.getString(&c.resource) || !r.getString(&c.versions)) {
            stop(QStringLiteral("a malformed connection record"), true);
            return Parsed::Failed;
        }
        c.id = static_cast<int>(id);
        record->type = CaptureRecord::Type::Connection;
        return Parsed::Record;
    }
    case RecordType::Frame: {
        std::uint32_t connection = 0;
        std::int64_t received = 0;
        std::uint16_t kind = 0;
        if (!r.get(&connection) || !r.get(&received) || !r.get(&kind)) {
            stop(QStringLiteral("a malformed frame record"), true);
            return Parsed::Failed;
        }
        record->type = CaptureRecord::Type::Frame;
        record->frame.connection = static_cast<int>(connection);
        record->frame.received = received;
        record->frame.kind = kind;
        record->frame.bytes = r.rest();
        ++m_frames;
        m_lastTime = received;
        return Parsed::Record;
    }
    case RecordType::End: {
        std::int64_t end = 0;
        std::uint64_t frames = 0, bytes = 0;
        if (!r.get(&end) || !r.get(&frames) || !r.get(&bytes)) {
            stop(QStringLiteral("a malformed end record"), true);
            return Parsed::Failed;
        }
        record->type = CaptureRecord::Type::End;
        record->endTime = end;
        record->endFrames = static_cast<qint64>(frames);
        m_complete = true;
        m_ended = true; // nothing after a clean end is part of the capture
        return Parsed::Record;
    }
    case RecordType::Dropped: {
        DroppedSpan d;
        std::int64_t from = 0, to = 0;
        std::uint64_t frames = 0, bytes = 0;
        if (!r.get(&from) || !r.get(&to) || !r.get(&frames) || !r.get(&bytes)) {
            stop(QStringLiteral("a malformed dropped record"), true);
            return Parsed::Failed;
        }
        // Bounded: a damaged file cannot make the list grow past one entry per record.
        d.from = from;
        d.to = to;
        d.frames = static_cast<qint64>(std::min<std::uint64_t>(frames, INT64_MAX));
        d.bytes = static_cast<qint64>(std::min<std::uint64_t>(bytes, INT64_MAX));
        if (m_dropped.size() < 10000)
            m_dropped.push_back(d);
        else
            m_dropped.back().frames += d.frames, m_dropped.back().bytes += d.bytes,
                m_dropped.back().to = d.to;
        return Parsed::Skipped;
    }
    }
    return Parsed::Skipped; // a record type of a newer minor version
}

QString CaptureReader::droppedNote() const {
    if (m_dropped.empty())
        return {};
    qint64 frames = 0, bytes = 0;
    for (const DroppedSpan& d : m_dropped)
        frames += d.frames, bytes += d.bytes;
    QStringList where;
    for (std::size_t i = 0; i < m_dropped.size() && i < 3; ++i)
        where << QStringLiteral("%1 frames at %2 s-%3 s")
                     .arg(m_dropped[i].frames)
                     .arg(double(m_dropped[i].from) / kUsPerSecond, 0, 'f', 1)
                     .arg(double(m_dropped[i].to) / kUsPerSecond, 0, 'f', 1);
    if (m_dropped.size() > 3)
        where << QStringLiteral("...");
    return QStringLiteral("%1: the recording dropped %2 frames (%3 bytes) its disk could not take "
                          "in time, so the replay has holes there (%4)")
        .arg(m_name)
        .arg(frames)
        .arg(bytes)
        .arg(where.join(QStringLiteral(", ")));
}

bool CaptureReader::next(CaptureRecord* record) {
    for (;;) {
        if (m_ended || !m_device)
            return false;
        if (m_blockPos < m_block.size()) {
            const Parsed p = parseRecord(record);
            if (p == Parsed::Skipped)
                continue;
            return p == Parsed::Record;
        }
        if (!readBlock())
            return false;
    }
}

} // namespace ws
