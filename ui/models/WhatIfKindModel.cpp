#include "WhatIfKindModel.h"

#include "CellFormat.h"

#include <QBrush>
#include <QColor>

namespace ws {

int WhatIfKindModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_kinds.size());
}

int WhatIfKindModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString WhatIfKindModel::changeText(const WhatIfKindCount& count, const QString& whatIfLabel) {
    const QString change = count.change();
    if (change == QLatin1String("gone"))
        return tr("gone on %1").arg(whatIfLabel);
    if (change == QLatin1String("new"))
        return tr("only on %1").arg(whatIfLabel);
    return {};
}

QVariant WhatIfKindModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const WhatIfKindCount& k = m_kinds[size_t(index.row())];
    if (role == KindNameRole)
        return k.kind;
    const QString change = k.change();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case KindColumn:
            return k.kind;
        case RecordedColumn:
            return formatCount(k.recorded);
        case WhatIfColumn:
            return formatCount(k.whatIf);
        case ChangeColumn:
            return changeText(k, m_label);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case KindColumn:
            return k.kind;
        case RecordedColumn:
            return k.recorded;
        case WhatIfColumn:
            return k.whatIf;
        case ChangeColumn:
            return changeText(k, m_label);
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == RecordedColumn || index.column() == WhatIfColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ForegroundRole:
        // The kinds that depend on the versions stand out: green where they go away, red where
        // the other versions bring them.
        if (index.column() == ChangeColumn && change == QLatin1String("gone"))
            return QBrush(QColor(0x1b, 0x7a, 0x2e));
        if (index.column() == ChangeColumn && change == QLatin1String("new"))
            return QBrush(QColor(0xb0, 0x00, 0x20));
        break;
    case Qt::ToolTipRole:
        if (change == QLatin1String("gone"))
            return tr("%1: %2 as recorded, none under %3 — it depends on the versions changed")
                .arg(k.kind, formatCount(k.recorded), m_label);
        if (change == QLatin1String("new"))
            return tr("%1: none as recorded, %2 under %3 — it depends on the versions changed")
                .arg(k.kind, formatCount(k.whatIf), m_label);
        return tr("%1: %2 as recorded, %3 under %4")
            .arg(k.kind, formatCount(k.recorded), formatCount(k.whatIf), m_label);
    }
    return {};
}

QVariant WhatIfKindModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case KindColumn:
            return tr("Kind");
        case RecordedColumn:
            return tr("As recorded");
        case WhatIfColumn:
            return m_label.isEmpty() ? tr("What if") : tr("Under %1").arg(m_label);
        case ChangeColumn:
            return tr("Change");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case RecordedColumn:
            return m_recordedLabel.isEmpty()
                       ? tr("The capture replayed as it was recorded")
                       : tr("The capture replayed as it was recorded: %1").arg(m_recordedLabel);
        case WhatIfColumn:
            return tr("The same recorded stream under %1").arg(m_label);
        case ChangeColumn:
            return tr("Whether the kind depends on the versions changed");
        }
    }
    return {};
}

void WhatIfKindModel::setKinds(const std::vector<WhatIfKindCount>& kinds,
                               const QString& whatIfLabel, const QString& recordedLabel) {
    beginResetModel();
    m_kinds = kinds;
    m_label = whatIfLabel;
    m_recordedLabel = recordedLabel;
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void WhatIfKindModel::clear() {
    setKinds({}, {}, {});
}

int WhatIfKindModel::rowOfKind(const QString& kind) const {
    for (size_t i = 0; i < m_kinds.size(); ++i)
        if (m_kinds[i].kind == kind)
            return int(i);
    return -1;
}

} // namespace ws
