#pragma once

#include "whatif/WhatIfComparison.h"

#include <QAbstractTableModel>
#include <vector>

namespace ws {

// The What If table: one row per anomaly kind either run found, its count as recorded and under
// the other versions, and whether it depends on them ("gone on kube-apiserver 1.24" when only
// the recorded run has it, "only on kube-apiserver 1.24" when only the what-if run has it).
// Rows are set all at once from a WhatIfResult; no widget code.
class WhatIfKindModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { KindColumn, RecordedColumn, WhatIfColumn, ChangeColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int KindNameRole = Qt::UserRole + 2; // the row's kind, whatever the column

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // `whatIfLabel`: what was changed ("kube-apiserver 1.24, WatchList=true"); `recordedLabel`:
    // what the capture ran under, when known (the header's tooltip).
    void setKinds(const std::vector<WhatIfKindCount>& kinds, const QString& whatIfLabel,
                  const QString& recordedLabel = {});
    void clear();

    const WhatIfKindCount& kind(int row) const { return m_kinds.at(size_t(row)); }
    int rowOfKind(const QString& kind) const; // -1 when neither run found it
    QString whatIfLabel() const { return m_label; }
    // "gone on <label>", "only on <label>" or empty.
    static QString changeText(const WhatIfKindCount& count, const QString& whatIfLabel);

private:
    std::vector<WhatIfKindCount> m_kinds;
    QString m_label;
    QString m_recordedLabel;
};

} // namespace ws
