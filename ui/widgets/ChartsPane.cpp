#include "ChartsPane.h"

#include "BufferOccupancyChart.h"
#include "LiveChartView.h"
#include "RvTimelineChart.h"

#include <QHBoxLayout>
#include <QSplitter>

namespace ws {

ChartsPane::ChartsPane(const ChartData* data, QWidget* parent)
    : QWidget(parent), m_rvChart(new RvTimelineChart), m_bufferChart(new BufferOccupancyChart) {
    m_rvChart->setChartData(data);
    m_bufferChart->view()->setChartData(data);

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->setObjectName(QStringLiteral("chartsSplitter"));
    splitter->addWidget(m_rvChart);
    splitter->addWidget(m_bufferChart);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({930, 470});
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_rvChart, &RvTimelineChart::anomalyClicked, this, &ChartsPane::anomalyClicked);
    connect(m_rvChart, &LiveChartView::spanChanged, this, &ChartsPane::spanChanged);
    connect(m_bufferChart->view(), &LiveChartView::spanChanged, this, &ChartsPane::spanChanged);
    connect(m_rvChart, &LiveChartView::followLiveChanged, this, &ChartsPane::followLiveChanged);
}

void ChartsPane::setResource(const QString& resource) {
    m_rvChart->setResource(resource);
    m_bufferChart->setResource(resource);
}

void ChartsPane::setSpan(double seconds) {
    m_rvChart->setSpanSeconds(seconds);
    m_bufferChart->view()->setSpanSeconds(seconds);
}

void ChartsPane::setFollowLive(bool follow) {
    // The focus line of a selected anomaly stays: it still marks the anomaly in the detail.
    m_rvChart->setFollowLive(follow);
    m_bufferChart->view()->setFollowLive(follow);
}

void ChartsPane::setFrozen(bool frozen) {
    m_rvChart->setFrozen(frozen);
    m_bufferChart->view()->setFrozen(frozen);
}

void ChartsPane::setLiveEdge(double ms) {
    m_rvChart->setLiveEdge(ms);
    m_bufferChart->view()->setLiveEdge(ms);
}

void ChartsPane::addAnomalies(const AnomalyList& batch, qint64 firstSerial) {
    m_rvChart->addAnomalies(batch, firstSerial);
}

void ChartsPane::applySnapshots(const QVector<CacheSnapshot>& caches) {
    m_bufferChart->applySnapshots(caches);
}

void ChartsPane::focusAnomaly(const Anomaly& anomaly) {
    m_rvChart->focusAnomaly(anomaly);
    m_bufferChart->view()->centerOn(double(anomaly.time) / double(kUsPerMs));
}

void ChartsPane::reset() {
    m_rvChart->reset();
    m_bufferChart->reset();
}

} // namespace ws
