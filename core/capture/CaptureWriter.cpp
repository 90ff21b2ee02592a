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

CaptureWriter::CaptureWriter(Overflow overflow, qint64 maxQueuedBytes)
    : m_sink(overflow, maxQueuedBytes) {}

CaptureWriter::~CaptureWriter() {
    if (isOpen()) {
        QString ignored;
        close(0, &ignored);
    }
}

bool CaptureWriter::open(const QString& path, const CaptureHeader& header, QString* error) {
    m_path = path;
    QString reason;
    if (!m_sink.open(path, &reason)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, reason);
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
    m_sink.append(head); // the first chunk always fits; a failure shows in error()
    m_blockAge.start();
    return true;
}

qint64 CaptureWriter::fileBytes() const {
    return m_sink.stats().writtenBytes;
}

// The writer also counts the blocks it refused: those are counted here already.
qint64 CaptureWriter::droppedFrames() const {
    return m_droppedFrames + m_sink.stats().droppedRecords - m_refusedFrames;
}

qint64 CaptureWriter::droppedFrameBytes() const {
    return m_droppedBytes + m_sink.stats().droppedBytes - m_refusedFileBytes;
}

qint64 CaptureWriter::queuedBytes() const {
    return m_sink.stats().queuedBytes;
}

QString CaptureWriter::error() const {
    if (m_error.isEmpty() && m_sink.failed())
        m_error = QStringLiteral("cannot write %1: %2").arg(m_path, m_sink.error());
    return m_error;
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
    if (type == static_cast<std::uint8_t>(RecordType::Connection)) {
        LittleEndianWriter c(m_blockConnections);
        c.put<std::uint8_t>(type);
        c.put<std::uint32_t>(static_cast<std::uint32_t>(payload.size()));
        c.putBytes(payload);
    }
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

void CaptureWriter::noteFrame(const Frame& f) {
    if (m_blockFrames == 0)
        m_blockFirst = f.received;
    m_blockLast = f.received;
    ++m_blockFrames;
    m_blockFrameBytes += f.bytes.size();
    ++m_frames;
    m_frameBytes += f.bytes.size();
}

void CaptureWriter::writeFrame(const Frame& f) {
    // Stopped by a write error: nothing more is worth compressing.
    if (!isOpen() || m_sink.failed())
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
    noteFrame(f);
    maybeFlush();
}

void CaptureWriter::maybeFlush() {
    // Not flush(): the session thread does not wait for the disk.
    if (m_block.size() >= m_blockLimit || m_blockAge.elapsed() >= m_blockAgeMs)
        submitBlock();
}

bool CaptureWriter::flush() {
    const bool ok = submitBlock();
    m_sink.waitWritten(AsyncFileWriter::kCloseWaitMs);
    return ok && error().isEmpty();
}

bool CaptureWriter::submitBlock() {
    if (!isOpen() || m_block.isEmpty())
        return error().isEmpty();
    if (m_sink.failed()) {
        m_droppedFrames += m_blockFrames;
        m_droppedBytes += m_blockFrameBytes;
        m_block.clear();
        m_blockConnections.clear();
        m_blockFrames = m_blockFrameBytes = 0;
        return false;
    }
    // Frames dropped before this block are told first, in its place in the stream.
    QByteArray raw;
    if (m_unmarkedFrames > 0) {
        QByteArray payload;
        LittleEndianWriter p(payload);
        p.put<std::int64_t>(m_unmarkedFirst);
        p.put<std::int64_t>(m_unmarkedLast);
        p.put<std::uint64_t>(static_cast<std::uint64_t>(m_unmarkedFrames));
        p.put<std::uint64_t>(static_cast<std::uint64_t>(m_unmarkedBytes));
        LittleEndianWriter w(raw);
        w.put<std::uint8_t>(static_cast<std::uint8_t>(RecordType::Dropped));
        w.put<std::uint32_t>(static_cast<std::uint32_t>(payload.size()));
        w.putBytes(payload);
    }
    const QByteArray& records = raw.isEmpty() ? m_block : (raw += m_block);
    const std::size_t bound = ZSTD_compressBound(static_cast<std::size_t>(records.size()));
    QByteArray out(static_cast<qsizetype>(bound) + kBlockHeaderSize, Qt::Uninitialized);
    const std::size_t n =
        ZSTD_compress2(m_zstd->ctx, out.data() + kBlockHeaderSize, bound, records.constData(),
                       static_cast<std::size_t>(records.size()));
    if (ZSTD_isError(n)) {
        if (m_error.isEmpty())
            m_error = QStringLiteral("compressing %1: %2")
                          .arg(m_path, QString::fromUtf8(ZSTD_getErrorName(n)));
        m_block.clear();
        return false;
    }
    QByteArray head;
    LittleEndianWriter w(head);
    w.put<std::uint32_t>(kBlockMagic);
    w.put<std::uint32_t>(static_cast<std::uint32_t>(n));
    w.put<std::uint32_t>(static_cast<std::uint32_t>(records.size()));
    std::memcpy(out.data(), head.constData(), kBlockHeaderSize);
    out.resize(static_cast<qsizetype>(n) + kBlockHeaderSize);
    const qint64 fileBytes = out.size();
    if (m_sink.append(std::move(out), m_blockFrames)) {
        m_unmarkedFrames = m_unmarkedBytes = 0;
        m_block.clear();
        m_blockConnections.clear();
    } else {
        // No room (the disk or pipe is behind): the block's frames are dropped whole, counted
        // here rather than by the writer, and told in the next block that is written. Its
        // Connection records start the next block: later frames need them.
        if (m_unmarkedFrames == 0)
            m_unmarkedFirst = m_blockFirst;
        m_unmarkedLast = m_blockLast;
        m_unmarkedFrames += m_blockFrames;
        m_unmarkedBytes += m_blockFrameBytes;
        m_droppedFrames += m_blockFrames;
        m_droppedBytes += m_blockFrameBytes;
        m_refusedFrames += m_blockFrames;
        m_refusedFileBytes += fileBytes;
        m_block = m_blockConnections;
    }
    m_blockFrames = m_blockFrameBytes = 0;
    m_blockAge.restart();
    return error().isEmpty();
}

bool CaptureWriter::close(TimeUs endTime, QString* error) {
    if (!isOpen())
        return true;
    // The last block waits for room (a while): it holds the End record, which counts the
    // frames the file holds (those handed to it, less those dropped on the way).
    m_sink.waitWritten(AsyncFileWriter::kCloseWaitMs);
    submitBlock();
    m_payload.clear();
    LittleEndianWriter w(m_payload);
    w.put<std::int64_t>(endTime);
    // (Were blocks lost after the writer took them, this record is lost with them.)
    w.put<std::uint64_t>(static_cast<std::uint64_t>(m_frames - m_droppedFrames));
    w.put<std::uint64_t>(static_cast<std::uint64_t>(m_frameBytes - m_droppedBytes));
    appendRecord(static_cast<std::uint8_t>(RecordType::End), m_payload);
    submitBlock();
    QString reason;
    if (!m_sink.close(AsyncFileWriter::kCloseWaitMs, &reason) && m_error.isEmpty())
        m_error = QStringLiteral("cannot write %1: %2").arg(m_path, reason);
    if (!m_error.isEmpty()) {
        *error = m_error;
        return false;
    }
    return true;
}

} // namespace ws
