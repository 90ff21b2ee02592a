// watchscope-cli: the engine without widgets (SPEC §1).
#include "CliApp.h"
#include "Version.h"

#include <QCoreApplication>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("watchscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(WS_VERSION));
    return ws::CliApp().run(QCoreApplication::arguments());
}
