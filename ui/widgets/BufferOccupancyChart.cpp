#include "BufferOccupancyChart.h"

#include "LiveChartView.h"
#include "models/CellFormat.h"

#include <QAreaSeries>
#include <QChart>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QProgressBar>
#include <QVBoxLayout>
#include <QValueAxis>

namespace ws {

BufferOccupancyChart::BufferOccupancyChart(QWidget* parent)
    : QWidget(parent), m_view(new LiveChartView(this)), m_caption(new QLabel(this)),
      m_gauge(new QProgressBar(this)) {
    m_view->chart()->setTitle(tr("Watch-cache buffer"));
    m_view->axisY()->setTitleText(tr("events in buffer"));
    m_view->setYIncludesZero(true);

    auto* used = new QLineSeries;
    used->setName(tr("used"));
    QPen usedPen(QColor(0x2c, 0xa0, 0x2c), 2.0);
    usedPen.setCosmetic(true);
    used->setPen(usedPen);
    auto* capacity = new QLineSeries;
    capacity->setName(tr("capacity"));
    QPen capPen(QColor(0x70, 0x70, 0x70), 1.5, Qt::DashLine);
    capPen.setCosmetic(true);
    capacity->setPen(capPen);
    // A filled area under `used` reads as occupancy at a glance; the area follows the line's
    // replace() by itself, so the line stays the only thing the view updates.
    auto* fillArea = new QAreaSeries(used);
    fillArea->setName(tr("used"));
    fillArea->setPen(Qt::NoPen);
    fillArea->setBrush(QColor(0x2c, 0xa0, 0x2c, 0x40));
    m_view->chart()->addSeries(fillArea);
    fillArea->attachAxis(m_view->axisX());
    fillArea->attachAxis(m_view->axisY());
    const auto areaMarkers = m_view->chart()->legend()->markers(fillArea);
    for (QLegendMarker* m : areaMarkers)
        m->setVisible(false);
    m_view->bindSeries(QStringLiteral("buffer_used"), used);
    m_view->bindSeries(QStringLiteral("buffer_capacity"), capacity);

    m_caption->setText(tr("Buffer"));
    m_gauge->setRange(0, 1);
    m_gauge->setValue(0);
    m_gauge->setTextVisible(true);
    m_gauge->setFormat(tr("no data"));
    m_gauge->setMinimumWidth(160);

    auto* header = new QHBoxLayout;
    header->setContentsMargins(6, 2, 6, 0);
    header->addWidget(m_caption);
    header->addWidget(m_gauge, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(header);
    layout->addWidget(m_view, 1);
}

void BufferOccupancyChart::setResource(const QString& resource) {
    m_resource = resource;
    m_view->setResource(resource);
    updateGauge();
}

void BufferOccupancyChart::applySnapshots(const QVector<CacheSnapshot>& caches) {
    if (caches.isEmpty())
        return;
    for (const CacheSnapshot& c : caches)
        m_latest.insert(c.resource + QLatin1Char('\x1f') + c.apiserver, c);
    m_gaugeRefresh.request();
}

void BufferOccupancyChart::reset() {
    m_latest.clear();
    updateGauge();
    m_view->reset();
}

void BufferOccupancyChart::updateGauge() {
    // With several apiservers, the fullest cache is the one that will evict watchers first.
    const CacheSnapshot* shown = nullptr;
    double shownFill = -1;
    for (const CacheSnapshot& c : std::as_const(m_latest)) {
        if (c.resource != m_resource)
            continue;
        const double fill = c.bufferCapacity > 0 ? double(c.bufferUsed) / c.bufferCapacity : 0;
        if (fill > shownFill) {
            shown = &c;
            shownFill = fill;
        }
    }
    if (!shown) {
        m_caption->setText(tr("Buffer"));
        m_gauge->setRange(0, 1);
        m_gauge->setValue(0);
        m_gauge->setFormat(tr("no data"));
        return;
    }
    m_caption->setText(shown->apiserver.isEmpty() ? tr("Buffer")
                                                  : tr("Buffer (%1)").arg(shown->apiserver));
    // QProgressBar counts in int; capacities are far below that, but clamp to be safe.
    const int capacity = int(std::clamp<qint64>(shown->bufferCapacity, 1, INT_MAX));
    m_gauge->setRange(0, capacity);
    m_gauge->setValue(int(std::clamp<qint64>(shown->bufferUsed, 0, capacity)));
    m_gauge->setFormat(QStringLiteral("%1 / %2 (%3%)")
                           .arg(formatCount(shown->bufferUsed), formatCount(shown->bufferCapacity))
                           .arg(qRound(std::max(shownFill, 0.0) * 100)));
}

QString BufferOccupancyChart::gaugeText() const {
    return m_gauge->text();
}

int BufferOccupancyChart::pointCount(const QString& seriesName) const {
    const QXYSeries* s = m_view->boundSeries(seriesName);
    return s ? int(s->count()) : -1;
}

} // namespace ws
