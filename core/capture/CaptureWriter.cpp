#include "CaptureWriter.h"

#include "CaptureFormat.h"
#include "LittleEndian.h"

#include <zstd.h>

namespace ws {

using namespace capture;

struct CaptureWriter::Compressor {
    ZSTD_CCtx* ctx = ZSTD_createCCtx();
    ~Compressor() { ZSTD_freeCCtx(ctx); }
};

CaptureWriter::CaptureWriter() = default;

CaptureWriter::~CaptureWriter() {
    if (isOpen()) {
        QString ignored;
        close(0, &ignored);
    }
}

bool CaptureWriter::open(const QString& path, const CaptureHeader& header, QString* error) {
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, m_file.errorString());
        return false;
    }
    m_zstd = std::make_unique<Compressor>();
    // Level 3 (zstd's default) keeps up with 50,000 events/s on one core with room to spare;
    // the content checksum lets a reader tell a flipped byte from data.
    ZSTD_CCtx_setParameter(m_zstd->ctx, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(m_zstd->ctx, ZSTD_c_checksumFlag, 1);
    QByteArray head;
    LittleEndianWriter w(head);
    w.putBytes(kMagic);
    w.put<std::uint16_t>(kMajorVersion);
    w.put<std::uint16_t>(kMinorVersion);
    const QByteArray json = header.toJson();
    w.put<std::uint32_t>(static_cast<std::uint32_t>(json.size()));
    w.putBytes(json);
    if (m_file.write(head) != head.size() || !m_file.flush()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, m_file.errorString());
        m_file.close();
        return false;
    }
    m_fileBytes = head.size();
    m_blockAge.start();
    return true;
}

void CaptureWriter::appendRecord(std::uint8_t type, const QByteArray& payload) {
    if (!isOpen())
        return;
    if (m_block.isEmpty())
        m_blockAge.restart();
    LittleEndianWriter w(m_block);
    w.put<std::uint8_t>(type);
    w.put<std::uint32_t>(static_cast<std::uint32_t>(payload.size()));
    w.putBytes(payload);
    maybeFlush();
}

void CaptureWriter::writeConnection(const ConnectionInfo& c) {
    m_payload.clear();
    LittleEndianWriter w(m_payload);
    w.put<std::uint32_t>(static_cast<std::uint32_t>(c.id));
    w.putString(c.sourceKind);
    w.putString(c.endpoint);
    w.putString(c.resource);
    w.putString(c.versions);
    appendRecord(static_cast<std::uint8_t>(RecordType::Connection), m_payload);
}

void CaptureWriter::writeFrame(const Frame& f) {
    if (!isOpen())
        return;
    // The hot path: fields and bytes go straight into the block, copied once.
    if (m_block.isEmpty())
        m_blockAge.restart();
    LittleEndianWriter w(m_block);
    w.put<std::uint8_t>(static_cast<std::uint8_t>(RecordType::Frame));
    w.put<std::uint32_t>(static_cast<std::uint32_t>(4 + 8 + 2 + f.bytes.size()));
    w.put<std::uint32_t>(static_cast<std::uint32_t>(f.connection));
    w.put<std::int64_t>(f.received);
    w.put<std::uint16_t>(f.kind);
    w.putBytes(f.bytes);
    ++m_frames;
    m_frameBytes += f.bytes.size();
    maybeFlush();
}

void CaptureWriter::maybeFlush() {
    if (m_block.size() >= m_blockLimit || m_blockAge.elapsed() >= m_blockAgeMs)
        flush();
}

bool CaptureWriter::flush() {
    if (!isOpen() || m_block.isEmpty())
        return m_error.isEmpty();
    const std::size_t bound = ZSTD_compressBound(static_cast<std::size_t>(m_block.size()));
    m_scratch.resize(static_cast<qsizetype>(bound) + kBlockHeaderSize);
    const std::size_t n =
        ZSTD_compress2(m_zstd->ctx, m_scratch.data() + kBlockHeaderSize, bound, m_block.constData(),
                       static_cast<std::size_t>(m_block.size()));
    if (ZSTD_isError(n)) {
        if (m_error.isEmpty())
            m_error = QStringLiteral("compressing %1: %2")
                          .arg(m_file.fileName(), QString::fromUtf8(ZSTD_getErrorName(n)));
        m_block.clear();
        return false;
    }
    QByteArray head;
    LittleEndianWriter w(head);
    w.put<std::uint32_t>(kBlockMagic);
    w.put<std::uint32_t>(static_cast<std::uint32_t>(n));
    w.put<std::uint32_t>(static_cast<std::uint32_t>(m_block.size()));
    std::memcpy(m_scratch.data(), head.constData(), kBlockHeaderSize);
    const qint64 total = static_cast<qint64>(n) + kBlockHeaderSize;
    if (m_file.write(m_scratch.constData(), total) != total || !m_file.flush()) {
        if (m_error.isEmpty())
            m_error =
                QStringLiteral("cannot write %1: %2").arg(m_file.fileName(), m_file.errorString());
    } else {
        m_fileBytes += total;
    }
    m_block.clear();
    m_blockAge.restart();
    return m_error.isEmpty();
}

bool CaptureWriter::close(TimeUs endTime, QString* error) {
    if (!isOpen())
        return true;
    m_payload.clear();
    LittleEndianWriter w(m_payload);
    w.put<std::int64_t>(endTime);
    w.put<std::uint64_t>(static_cast<std::uint64_t>(m_frames));
    w.put<std::uint64_t>(static_cast<std::uint64_t>(m_frameBytes));
    appendRecord(static_cast<std::uint8_t>(RecordType::End), m_payload);
    flush();
    m_file.close();
    if (!m_error.isEmpty()) {
        *error = m_error;
        return false;
    }
    return true;
}

} // namespace ws
