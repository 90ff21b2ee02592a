// libFuzzer target for the .wscap reader (docs/capture-format.md): any bytes, opened and read to
// the end, must neither crash nor trip ASan/UBSan, and must end either in records, a warning or
// one error line. CI runs it for a bounded time from the seed corpus (tests/fuzz/corpus).
#include "capture/CaptureReader.h"

#include <QBuffer>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    QByteArray bytes =
        QByteArray::fromRawData(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::ReadOnly);
    ws::CaptureReader reader;
    QString error;
    if (!reader.open(&buffer, QStringLiteral("fuzz.wscap"), &error)) {
        if (error.isEmpty() || error.contains(u'\n'))
            __builtin_trap(); // a refusal is one line, always
        return 0;
    }
    ws::CaptureRecord record;
    std::size_t records = 0;
    while (reader.next(&record))
        ++records;
    if (!reader.complete() && reader.warning().isEmpty())
        __builtin_trap(); // an early end always says why
    return records > 0 ? 0 : 0;
}
