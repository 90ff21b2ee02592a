// libFuzzer target for an apiserver's /metrics body (the Prometheus text format, read by
// PrometheusTextParser and turned into watch-cache rows by WatchCacheMetrics::fromText, as the
// cluster source does after every scrape). Malformed lines are skipped and counted; what is said
// about them, and about a body that is not metrics at all, is one line.
#include "FuzzExpect.h"
#include "sources/cluster/metrics/PrometheusTextParser.h"
#include "sources/cluster/metrics/WatchCacheMetrics.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    QString error;
    const auto text = ws::PrometheusTextParser::parseAll(body, &error);
    if (!text)
        ws::fuzz::expectOneLine(error);
    else if (text->skippedLines > 0)
        ws::fuzz::expectOneLine(text->firstSkipped);
    QString warning;
    (void)ws::WatchCacheMetrics::fromText(body, &warning);
    if (!warning.isEmpty())
        ws::fuzz::expectOneLine(warning);
    return 0;
}
