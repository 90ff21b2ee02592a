#include "BufferOccupancyChart.h"

#include "LiveChartView.h"
#include "TableSetup.h"
#include "charts/ChartData.h"
#include "models/RingBufferModel.h"

#include <QAreaSeries>
#include <QChart>
#include <QFont>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

namespace ws {

namespace {

const QString kUsed = QStringLiteral("buffer_used");
const QString kCapacity = QStringLiteral("buffer_capacity");

QColor apiserverColor(int index) {
    static const QColor palette[] = {QColor(0x2c, 0xa0, 0x2c), QColor(0x1f, 0x77, 0xb4),
                                     QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                     QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf)};
    return palette[std::size_t(std::max(index, 0)) % std::size(palette)];
}

// "buffer_used:apiserver-1" -> 1; the unsuffixed series are the first apiserver's.
int apiserverIndex(const QString& name) {
    const qsizetype colon = name.indexOf(QLatin1Char(':'));
    if (colon < 0)
        return 0;
    const QString suffix = name.mid(colon + 1);
    const qsizetype dash = suffix.lastIndexOf(QLatin1Char('-'));
    bool ok = false;
    const int n = suffix.mid(dash + 1).toInt(&ok);
    return ok ? n : 0;
}

QString apiserverName(const QString& name) {
    const qsizetype colon = name.indexOf(QLatin1Char(':'));
    return colon < 0 ? QStringLiteral("apiserver-0") : name.mid(colon + 1);
}

QLineSeries* makeLine(const QColor& color, qreal width, Qt::PenStyle style) {
    auto* s = new QLineSeries;
    QPen pen(color, width, style);
    pen.setCosmetic(true);
    s->setPen(pen);
    return s;
}

// The time chart of BufferOccupancyChart: binds every apiserver's used and capacity series of
// the shown resource as they appear, and draws the ring model's marks in the visible window.
class BufferChartView : public LiveChartView {
public:
    explicit BufferChartView(const RingBufferModel* model, QWidget* parent = nullptr)
        : LiveChartView(parent), m_model(model), m_evictions(new QScatterSeries),
          m_resizes(new QScatterSeries) {
        chart()->setTitle(tr("Watch-cache buffer"));
        axisY()->setTitleText(tr("events in buffer"));
        setYIncludesZero(true);

        auto* used = makeLine(apiserverColor(0), 2.0, Qt::SolidLine);
        used->setName(tr("used"));
        // A filled area under the first apiserver's `used` reads as occupancy at a glance; the
        // area follows the line's replace() by itself.
        auto* fillArea = new QAreaSeries(used);
        fillArea->setName(tr("used"));
        fillArea->setPen(Qt::NoPen);
        QColor fillColor = apiserverColor(0);
        fillColor.setAlpha(0x40);
        fillArea->setBrush(fillColor);
        chart()->addSeries(fillArea);
        fillArea->attachAxis(axisX());
        fillArea->attachAxis(axisY());
        const auto areaMarkers = chart()->legend()->markers(fillArea);
        for (QLegendMarker* m : areaMarkers)
            m->setVisible(false);
        bindSeries(kUsed, used);
        auto* capacity = makeLine(QColor(0x70, 0x70, 0x70), 1.5, Qt::DashLine);
        capacity->setName(tr("capacity"));
        bindSeries(kCapacity, capacity);

        m_evictions->setName(tr("eviction"));
        m_evictions->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        m_evictions->setMarkerSize(9);
        m_evictions->setColor(QColor(0xd6, 0x27, 0x28));
        m_evictions->setBorderColor(Qt::white);
        m_resizes->setName(tr("resize"));
        m_resizes->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
        m_resizes->setMarkerSize(11);
        m_resizes->setColor(QColor(0x30, 0x30, 0x30));
        m_resizes->setBorderColor(Qt::white);
        for (QScatterSeries* s : {m_evictions, m_resizes}) {
            chart()->addSeries(s);
            s->attachAxis(axisX());
            s->attachAxis(axisY());
        }
        QFont legendFont = chart()->legend()->font();
        legendFont.setPointSizeF(legendFont.pointSizeF() * 0.8);
        chart()->legend()->setFont(legendFont);
    }

    int evictionsDrawn() const { return int(m_evictions->count()); }
    int resizesDrawn() const { return int(m_resizes->count()); }

protected:
    void prepareReplot() override {
        QStringList wanted{kUsed, kCapacity};
        int apiservers = 1;
        if (m_data) {
            const QStringList names = m_data->seriesNames(m_resource);
            for (const QString& name : names) {
                if (!name.startsWith(kUsed + QLatin1Char(':')) &&
                    !name.startsWith(kCapacity + QLatin1Char(':')))
                    continue;
                wanted << name;
                apiservers = std::max(apiservers, apiserverIndex(name) + 1);
            }
        }
        bool changed = false;
        const QStringList bound = boundNames();
        for (const QString& name : bound) {
            if (!wanted.contains(name)) {
                unbindSeries(name);
                changed = true;
            }
        }
        for (const QString& name : std::as_const(wanted)) {
            if (isBound(name))
                continue;
            const bool used = name.startsWith(kUsed);
            const QColor color = apiserverColor(apiserverIndex(name));
            bindSeries(name,
                       makeLine(color, used ? 2.0 : 1.5, used ? Qt::SolidLine : Qt::DashLine));
            changed = true;
        }
        // One apiserver: "used" and "capacity"; several: each line names its apiserver, and the
        // first one's capacity takes its colour too.
        const bool several = apiservers > 1;
        for (const QString& name : boundNames()) {
            QXYSeries* s = boundSeries(name);
            const bool used = name.startsWith(kUsed);
            // Several: the legend names each apiserver's used line by its apiserver and keeps
            // one "capacity" entry (dashed, in the apiserver's colour): the table says the rest.
            const QString label =
                several && used ? apiserverName(name) : (used ? tr("used") : tr("capacity"));
            if (s->name() != label)
                s->setName(label);
            const bool listed = used || name == kCapacity;
            const auto markers = chart()->legend()->markers(s);
            for (QLegendMarker* m : markers)
                if (m->isVisible() != listed)
                    m->setVisible(listed);
            if (name == kCapacity) {
                const QColor color = several ? apiserverColor(0) : QColor(0x70, 0x70, 0x70);
                if (s->pen().color() != color) {
                    QPen pen = s->pen();
                    pen.setColor(color);
                    s->setPen(pen);
                }
            }
        }
        if (changed) {
            // The marks on top of the lines.
            for (QScatterSeries* s : {m_evictions, m_resizes}) {
                chart()->removeSeries(s);
                chart()->addSeries(s);
                s->attachAxis(axisX());
                s->attachAxis(axisY());
            }
        }
    }

    void finishReplot(double fromMs, double toMs) override {
        QList<QPointF> evictions;
        QList<QPointF> resizes;
        if (m_model->resource() == m_resource) {
            for (int row = 0; row < m_model->rowCount(); ++row) {
                const RingBufferModel::Ring* ring = m_model->ringAt(row);
                for (const RingBufferModel::Mark& m : ring->marks) {
                    const double ms = double(m.time) / double(kUsPerMs);
                    if (ms < fromMs || ms > toMs)
                        continue;
                    const QPointF p(ms / 1000.0, double(m.value));
                    (m.kind == RingBufferModel::Mark::Eviction ? evictions : resizes).append(p);
                    includeY(p.y());
                }
            }
        }
        replaceIfChanged(m_evictions, evictions);
        replaceIfChanged(m_resizes, resizes);
    }

private:
    const RingBufferModel* m_model;
    QScatterSeries* m_evictions;
    QScatterSeries* m_resizes;
};

} // namespace

BufferOccupancyChart::BufferOccupancyChart(QWidget* parent)
    : QWidget(parent), m_model(new RingBufferModel(this)), m_caption(new QLabel(this)),
      m_table(new QTableView(this)) {
    m_view = new BufferChartView(m_model, this);
    m_caption->setText(tr("Buffer"));

    setUpTableView(m_table, m_model);
    m_table->setSortingEnabled(false);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setColumnHidden(RingBufferModel::CapacityColumn, true); // in "used / capacity"
    // Fixed widths: fitting columns to their text (or a caption to the fullest ring) re-lays
    // the panel out whenever a number gets a digit longer, and that repaints far more than it.
    QHeaderView* header = m_table->horizontalHeader();
    header->setStretchLastSection(true);
    setColumnWidths(header, {78, 112, 0, 60, 82});
    m_table->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    fitTable();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_caption->setContentsMargins(6, 2, 6, 0);
    layout->addWidget(m_caption);
    layout->addWidget(m_table);
    layout->addWidget(m_view, 1);

    connect(m_model, &RingBufferModel::marksChanged, m_view, &LiveChartView::scheduleReplot);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        fitTable();
        updateCaption();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        fitTable();
        updateCaption();
    });
}

void BufferOccupancyChart::fitTable() {
    // Every apiserver's row without a scroll bar (at least one row's room, for "no data").
    const int rows = std::max(1, m_model->rowCount());
    const int height = m_table->horizontalHeader()->sizeHint().height() +
                       rows * m_table->verticalHeader()->defaultSectionSize() +
                       2 * m_table->frameWidth();
    if (m_table->height() != height)
        m_table->setFixedHeight(height);
}

void BufferOccupancyChart::updateCaption() {
    const QString resource = m_model->resource();
    const QString text = resource.isEmpty() ? tr("Watch-cache ring buffers")
                                            : tr("Watch-cache ring buffers of %1").arg(resource);
    if (m_caption->text() != text)
        m_caption->setText(text);
}

void BufferOccupancyChart::setResource(const QString& resource) {
    m_model->setResource(resource);
    m_view->setResource(resource);
    updateCaption();
}

void BufferOccupancyChart::applySnapshots(const QVector<CacheSnapshot>& caches, TimeUs now) {
    if (caches.isEmpty())
        return;
    m_pending = caches;
    m_pendingNow = now;
    m_refresh.request();
}

void BufferOccupancyChart::applyPending() {
    if (m_pending.isEmpty())
        return;
    m_model->applySnapshots(m_pending, m_pendingNow);
    m_pending.clear();
}

void BufferOccupancyChart::reset() {
    m_pending.clear();
    m_model->clear();
    updateCaption();
    m_view->reset();
}

QString BufferOccupancyChart::gaugeText() const {
    return m_model->fullestText();
}

int BufferOccupancyChart::pointCount(const QString& seriesName) const {
    const QXYSeries* s = m_view->boundSeries(seriesName);
    return s ? int(s->count()) : -1;
}

int BufferOccupancyChart::evictionMarksDrawn() const {
    return static_cast<const BufferChartView*>(m_view)->evictionsDrawn();
}

int BufferOccupancyChart::resizeMarksDrawn() const {
    return static_cast<const BufferChartView*>(m_view)->resizesDrawn();
}

} // namespace ws
