#pragma once

#include <QByteArray>
#include <cstdint>

namespace ws::capture {

// The .wscap layout (docs/capture-format.md is the reference for writing a reader):
//   file header: kMagic, u16 major, u16 minor, u32 n, n bytes of UTF-8 JSON (CaptureHeader)
//   blocks until the end: u32 kBlockMagic, u32 compressed size, u32 raw size, then one zstd
//   frame (with its content checksum) holding `raw size` bytes of whole records
//   record: u8 type, u32 payload size, payload
// Integers are little-endian. A block is written with one write and then flushed, so a reader
// of a file still being written sees whole blocks and at most one incomplete one at the end.

// 0x89 (not ASCII: a 7-bit channel is caught), "WSCAP", CR LF (a newline conversion is caught).
inline const QByteArray kMagic = QByteArray::fromRawData("\x89WSCAP\r\n", 8);
constexpr std::uint16_t kMajorVersion = 1;        // a reader refuses another major version
constexpr std::uint16_t kMinorVersion = 1;        // a reader skips record types it does not know
constexpr std::uint32_t kBlockMagic = 0x4B425357; // "WSBK" as bytes
constexpr std::uint32_t kMaxHeaderSize = 1u << 20;
constexpr std::uint32_t kMaxCompressedBlock = 32u << 20;
constexpr std::uint32_t kMaxRawBlock = 64u << 20;
constexpr int kBlockHeaderSize = 12;
constexpr int kRecordHeaderSize = 5;

enum class RecordType : std::uint8_t {
    Connection = 1, // u32 id, then strings (u32 size + UTF-8): source kind, endpoint, resource,
                    // versions
    Frame = 2,      // u32 connection, i64 receive time in µs of session time, u16 kind, bytes
    End = 3, // i64 session time at the end in µs, u64 frames, u64 frame bytes: a clean close
    // Format 1.1. i64 first and i64 last receive time (µs) of the frames dropped, u64 frames,
    // u64 frame bytes: the writer could not keep up (a slow or stalled disk or pipe) and dropped
    // these frames whole, in the place of this record. A 1.0 reader skips it.
    Dropped = 4,
};

} // namespace ws::capture
