#include "ListPressureChart.h"

#include "charts/ChartData.h"
#include "engine/SeriesNames.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

namespace ws {

ListPressureChart::ListPressureChart(QWidget* parent) : LiveChartView(parent) {
    setYIncludesZero(true);
    setYDivisor(kBytesPerUnit);
    chart()->setTitle(tr("Apiserver memory and LIST bytes in flight"));
    chart()->legend()->setAlignment(Qt::AlignRight);
    axisY()->setTitleText(tr("GiB"));
    axisY()->setLabelFormat(QStringLiteral("%.1f"));
}

bool ListPressureChart::hasSeries(const ChartData* data, const QString& resource) {
    return data && data->series(resource, series::apiserverMemoryBytes());
}

void ListPressureChart::prepareReplot() {
    if (!m_data)
        return;
    static const QString memory = series::apiserverMemoryBytes();
    static const QString lists = series::listBytesInflight();
    const QStringList names = m_data->seriesNames(m_resource);
    const QStringList bound = boundNames();
    for (const QString& name : bound)
        if (!names.contains(name))
            unbindSeries(name);
    // One distinct colour per apiserver, the lists' bytes dashed.
    static const QColor colours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0x2c, 0xa0, 0x2c),
                                     QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};
    int apiserver = 0;
    for (const QString& name : names) {
        const bool isMemory = name.startsWith(memory);
        if (!isMemory && name != lists)
            continue;
        const int index = isMemory ? apiserver++ : 0;
        if (isBound(name))
            continue;
        auto* line = new QLineSeries;
        if (isMemory) {
            const QString suffix = name.mid(memory.size());
            line->setName(suffix.isEmpty() ? tr("apiserver-0 memory")
                                           : tr("%1 memory").arg(suffix.mid(1)));
            QPen pen(colours[index % 4], 1.5);
            pen.setCosmetic(true);
            line->setPen(pen);
        } else {
            line->setName(tr("list bytes in flight"));
            QPen pen(QColor(0xd6, 0x27, 0x28), 1.2, Qt::DashLine);
            pen.setCosmetic(true);
            line->setPen(pen);
        }
        bindSeries(name, line);
    }
}

} // namespace ws
