#include "ListPressureDetector.h"

namespace ws {

namespace {
QString gb(std::int64_t bytes) {
    return QString::number(static_cast<double>(bytes) / (1 << 30), 'f', 2) + QStringLiteral(" GiB");
}
} // namespace

std::int64_t ListPressureDetector::threshold(const ApiserverMemory& m) const {
    const DetectorThresholds& t = m_ctx.thresholds();
    return m.limitBytes > 0 ? static_cast<std::int64_t>(static_cast<double>(m.limitBytes) *
                                                        t.listPressureShareOfLimit)
                            : t.listPressureBytes;
}

void ListPressureDetector::onMemory(TimeUs now, const ApiserverMemory& m) {
    const std::int64_t limit = threshold(m);
    const std::int64_t level = m.limitBytes > 0 ? m.memoryBytes : m.listBytesInflight;
    bool& raised = m_raised[m.apiserver];
    if (!m.oomKilled && raised && level < limit / 2)
        raised = false;
    if (!m.oomKilled && (raised || level < limit))
        return;
    raised = true;
    Anomaly a;
    a.time = now;
    a.kind = AnomalyKind::ListPressure;
    a.severity = m.oomKilled ? Severity::Error : Severity::Warning;
    a.source = AnomalySource::Apiserver;
    a.resource = m.resource;
    a.watcher = m.apiserver;
    const QString lists = QStringLiteral("%1 lists in flight hold %2")
                              .arg(m.listsInflight)
                              .arg(gb(m.listBytesInflight));
    if (m.oomKilled)
        a.message = QStringLiteral("%1 OOM-killed: memory %2 above its limit %3; %4")
                        .arg(m.apiserver, gb(m.memoryBytes), gb(m.limitBytes), lists);
    else if (m.limitBytes > 0)
        a.message = QStringLiteral("%1 memory %2 of its limit %3; %4")
                        .arg(m.apiserver, gb(m.memoryBytes), gb(m.limitBytes), lists);
    else
        a.message = QStringLiteral("%1: %2 (memory %3)").arg(m.apiserver, lists, gb(m.memoryBytes));
    m_ctx.raise(a);
}

} // namespace ws
