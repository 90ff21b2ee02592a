// libFuzzer target for scenario files (ScenarioLoader::parse, yaml-cpp underneath): a file a user
// copied and edited loads or is refused with one line naming the file and what was wrong.
#include "FuzzExpect.h"
#include "scenario/ScenarioLoader.h"

#include <QByteArray>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray yaml(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    QString error;
    if (!ws::ScenarioLoader::parse(yaml, QStringLiteral("fuzz.yaml"), &error))
        ws::fuzz::expectOneLine(error);
    return 0;
}
