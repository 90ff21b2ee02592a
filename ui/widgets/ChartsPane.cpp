#include "ChartsPane.h"

#include "BufferOccupancyChart.h"
#include "LagChart.h"
#include "ListPressureChart.h"
#include "LiveChartView.h"
#include "RvTimelineChart.h"

#include <QAction>
#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace ws {

ChartsPane::ChartsPane(const ChartData* data, QWidget* parent)
    : QWidget(parent), m_rvChart(new RvTimelineChart), m_lagChart(new LagChart),
      m_bufferChart(new BufferOccupancyChart), m_listChart(new ListPressureChart), m_data(data),
      m_stack(new QStackedWidget), m_viewButtons(new QButtonGroup(this)), m_unitBox(new QComboBox) {
    m_rvChart->setObjectName(QStringLiteral("rvChart"));
    m_lagChart->setObjectName(QStringLiteral("lagChart"));
    m_listChart->setObjectName(QStringLiteral("listPressureChart"));
    m_rvChart->setWatcherPalette(&m_palette);
    m_lagChart->setWatcherPalette(&m_palette);
    for (LiveChartView* v : views())
        v->setChartData(data);

    // Which chart the left side shows: resource versions, or the lag of each watcher.
    auto* header = new QHBoxLayout;
    header->setContentsMargins(4, 2, 4, 0);
    header->setSpacing(2);
    const auto addViewButton = [&](const QString& text, const QString& tip, View view) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setToolTip(tip);
        b->setCheckable(true);
        b->setAutoRaise(true);
        m_viewButtons->addButton(b, int(view));
        header->addWidget(b);
    };
    addViewButton(tr("Resource versions"),
                  tr("etcd head, watch cache and every watcher on one RV axis"),
                  View::ResourceVersions);
    addViewButton(tr("Watcher lag"),
                  tr("How far each watcher is behind the head: a lagging or stuck watcher rises "
                     "from 0 (Ctrl+L toggles)"),
                  View::Lag);
    m_viewButtons->setExclusive(true);
    m_viewButtons->button(int(View::ResourceVersions))->setChecked(true);
    auto* unitLabel = new QLabel(tr("  behind in "));
    m_unitBox->addItem(tr("revisions"), int(LagChart::Unit::Revisions));
    m_unitBox->addItem(tr("seconds"), int(LagChart::Unit::Seconds));
    m_unitBox->setToolTip(tr("Lag in revisions (head RV − watcher RV) or in seconds (age of the "
                             "oldest event the watcher has not received)"));
    header->addWidget(unitLabel);
    header->addWidget(m_unitBox);
    header->addStretch(1);
    auto* hint = new QLabel(tr("wheel/+/− zoom · drag/←/→ pan · Home start · End live"));
    hint->setEnabled(false); // a quiet hint
    header->addWidget(hint);
    unitLabel->setVisible(false);
    m_unitBox->setVisible(false);

    m_stack->addWidget(m_rvChart);
    m_stack->addWidget(m_lagChart);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->setSpacing(0);
    leftLayout->addLayout(header);
    // The list-pressure chart under the RV / lag chart, the same time axis, a third of the room.
    auto* leftSplitter = new QSplitter(Qt::Vertical);
    leftSplitter->setObjectName(QStringLiteral("listPressureSplitter"));
    leftSplitter->addWidget(m_stack);
    leftSplitter->addWidget(m_listChart);
    leftSplitter->setStretchFactor(0, 2);
    leftSplitter->setStretchFactor(1, 1);
    m_listChart->setVisible(false);
    leftLayout->addWidget(leftSplitter, 1);

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->setObjectName(QStringLiteral("chartsSplitter"));
    splitter->addWidget(left);
    splitter->addWidget(m_bufferChart);
    // The buffer panel shows every apiserver's ring in a table above its chart: it needs room.
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({580, 500});
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_viewButtons, &QButtonGroup::idClicked, this, [this](int id) { setView(View(id)); });
    connect(m_unitBox, &QComboBox::activated, this, [this](int index) {
        m_lagChart->setUnit(LagChart::Unit(m_unitBox->itemData(index).toInt()));
    });
    connect(this, &ChartsPane::viewChanged, this, [unitLabel, this](View view) {
        unitLabel->setVisible(view == View::Lag);
        m_unitBox->setVisible(view == View::Lag);
    });
    auto* toggle = new QAction(tr("Watcher lag / resource versions chart"), this);
    toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    toggle->setShortcutContext(Qt::WindowShortcut);
    connect(toggle, &QAction::triggered, this,
            [this] { setView(view() == View::Lag ? View::ResourceVersions : View::Lag); });
    addAction(toggle);

    connect(m_rvChart, &RvTimelineChart::anomalyClicked, this, &ChartsPane::anomalyClicked);
    connect(m_lagChart, &LagChart::anomalyClicked, this, &ChartsPane::anomalyClicked);
    for (LiveChartView* v : views()) {
        connect(v, &LiveChartView::spanChanged, this, &ChartsPane::spanChanged);
        connect(v, &LiveChartView::followLiveChanged, this, &ChartsPane::followLiveChanged);
        // A chart the reader moved takes the others along.
        connect(v, &LiveChartView::navigated, this, [this, v](double centreMs) {
            for (LiveChartView* other : views())
                if (other != v)
                    other->centerOn(centreMs);
        });
    }
}

QList<LiveChartView*> ChartsPane::views() const {
    return {m_rvChart, m_lagChart, m_bufferChart->view(), m_listChart};
}

void ChartsPane::updateListChartVisibility() {
    const bool show = ListPressureChart::hasSeries(m_data, m_resource);
    if (show != m_listChart->isVisibleTo(this))
        m_listChart->setVisible(show);
}

void ChartsPane::setView(View view) {
    if (view == this->view())
        return;
    m_stack->setCurrentWidget(view == View::Lag ? static_cast<QWidget*>(m_lagChart)
                                                : static_cast<QWidget*>(m_rvChart));
    m_viewButtons->button(int(view))->setChecked(true);
    emit viewChanged(view);
}

ChartsPane::View ChartsPane::view() const {
    return m_stack->currentWidget() == m_lagChart ? View::Lag : View::ResourceVersions;
}

void ChartsPane::setResource(const QString& resource) {
    m_rvChart->setResource(resource);
    m_lagChart->setResource(resource);
    m_bufferChart->setResource(resource);
    m_listChart->setResource(resource);
    m_resource = resource;
    updateListChartVisibility();
}

void ChartsPane::setSpan(double seconds) {
    for (LiveChartView* v : views())
        v->setSpanSeconds(seconds);
}

void ChartsPane::setFollowLive(bool follow) {
    // The focus line of a selected anomaly stays: it still marks the anomaly in the detail.
    for (LiveChartView* v : views())
        v->setFollowLive(follow);
}

void ChartsPane::setFrozen(bool frozen) {
    for (LiveChartView* v : views())
        v->setFrozen(frozen);
}

void ChartsPane::setLiveEdge(double ms) {
    for (LiveChartView* v : views())
        v->setLiveEdge(ms);
    if (!m_listChart->isVisibleTo(this))
        updateListChartVisibility(); // the series appear with the first samples
}

void ChartsPane::addAnomalies(const AnomalyList& batch, qint64 firstSerial) {
    m_rvChart->addAnomalies(batch, firstSerial);
    m_lagChart->addAnomalies(batch, firstSerial);
}

void ChartsPane::applySnapshots(const QVector<CacheSnapshot>& caches, TimeUs now) {
    m_bufferChart->applySnapshots(caches, now);
}

void ChartsPane::focusAnomaly(const Anomaly& anomaly) {
    const double ms = double(anomaly.time) / double(kUsPerMs);
    m_rvChart->focusAnomaly(anomaly);
    m_lagChart->centerOn(ms);
    m_bufferChart->view()->centerOn(ms);
    m_listChart->centerOn(ms);
}

void ChartsPane::reset() {
    m_rvChart->reset(); // clears the shared palette too
    m_lagChart->reset();
    m_bufferChart->reset();
    m_listChart->reset();
    updateListChartVisibility();
}

} // namespace ws
