// Reads an audit log with the audit-log source's reader and parser (AuditStream: lines through
// zlib or read(2), simdjson On-Demand, list and watch events out) and, with --requests, puts
// their stages together into requests (AuditRequestTracker) too. Prints MB/s, events/s and the
// peak resident memory. Run by vs-jq.sh against jq over the same file.
//
//   ws-bench-audit FILE [--requests]

#include "sources/audit/AuditProblems.h"
#include "sources/audit/AuditRequestTracker.h"
#include "sources/audit/AuditStream.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <cstdio>
#include <sys/resource.h>

using namespace ws;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: ws-bench-audit FILE [--requests]\n");
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    const bool requests = argc > 2 && QByteArray(argv[2]) == "--requests";
    AuditProblems problems;
    AuditStream stream(0, AuditLogGroup{QFileInfo(path).fileName(), {path}}, false, problems);
    QString error;
    if (!stream.open(&error)) {
        std::fprintf(stderr, "ws-bench-audit: %s\n", qPrintable(error));
        return 1;
    }
    std::int64_t lists = 0, watches = 0, done = 0;
    AuditRequestTracker tracker({path}, {[](const AuditRequest&) {}, [](const AuditRequest&) {},
                                         [&done](const AuditRequest&) { ++done; }});
    QElapsedTimer clock;
    clock.start();
    AuditEvent event;
    while (stream.next(&event) == AuditStream::Status::Event) {
        (event.watch ? watches : lists)++;
        if (requests)
            tracker.add(event, &error);
    }
    const double s = double(clock.nsecsElapsed()) / 1e9;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double mb = double(stream.bytesRead()) / 1e6;
    std::printf("%s: %.1f MB, %lld lines in %.2f s: %.1f MB/s, %.0f lines/s; %lld list and %lld "
                "watch events%s; peak RSS %.1f MB; %lld problems\n",
                argv[1], mb, static_cast<long long>(stream.linesRead()), s, mb / s,
                double(stream.linesRead()) / s, static_cast<long long>(lists),
                static_cast<long long>(watches),
                requests ? qPrintable(QStringLiteral(", %1 requests completed").arg(done)) : "",
                double(usage.ru_maxrss) / 1024.0, static_cast<long long>(problems.total()));
    return 0;
}
