#pragma once

#include "LiveChartView.h"

namespace ws {

// The LIST pressure on the apiservers of one resource, under its RV chart: each apiserver's
// `apiserver_memory_bytes` (the first unsuffixed, the others ":apiserver-N") and the resource's
// `list_bytes_inflight`, in GiB. A memory line that falls to 0 is an apiserver that died (an
// OOM kill): the list-pressure incident it raised is in the Incidents tab. Shown only for
// sources that record these series (scenarios with server.memory); redrawn like every chart,
// only when what it shows changed.
class ListPressureChart : public LiveChartView {
    Q_OBJECT
public:
    static constexpr double kBytesPerUnit = 1024.0 * 1024.0 * 1024.0; // GiB

    explicit ListPressureChart(QWidget* parent = nullptr);
    // The resource records list-pressure series (the pane shows this chart only then).
    static bool hasSeries(const ChartData* data, const QString& resource);

protected:
    void prepareReplot() override;
};

} // namespace ws
