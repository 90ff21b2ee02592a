#include "WatcherTableModel.h"

#include "CellFormat.h"

#include <QColor>

namespace ws {

namespace {

QString rowKey(const QString& resource, const QString& id) {
    return resource + QLatin1Char('\x1f') + id;
}

QVariant cellValue(const WatcherSnapshot& w, int column) {
    switch (column) {
    case WatcherTableModel::IdColumn:
        return w.id;
    case WatcherTableModel::ResourceColumn:
        return w.resource;
    case WatcherTableModel::ApiserverColumn:
        return w.apiserver;
    case WatcherTableModel::ProfileColumn:
        return w.profile;
    case WatcherTableModel::StateColumn:
        return w.state;
    case WatcherTableModel::RvColumn:
        return QVariant::fromValue<qint64>(w.rv);
    case WatcherTableModel::LagRevisionsColumn:
        return w.lagRevisions;
    case WatcherTableModel::LagSecondsColumn:
        return w.lagSeconds;
    case WatcherTableModel::EventsColumn:
        return w.eventsReceived;
    case WatcherTableModel::RelistsColumn:
        return w.relists;
    }
    return {};
}

QString snapshotKey(const WatcherSnapshot& s) {
    return rowKey(s.resource, s.id);
}

} // namespace

WatcherTableModel::WatcherTableModel(QObject* parent)
    : KeyedTableModel(&snapshotKey, &cellValue, ColumnCount, parent) {}

int WatcherTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WatcherTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const WatcherSnapshot& w = m_rows.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case RvColumn:
            return formatRv(w.rv);
        case LagRevisionsColumn:
            return formatCount(w.lagRevisions);
        case LagSecondsColumn:
            return formatSeconds(w.lagSeconds);
        case EventsColumn:
            return formatCount(w.eventsReceived);
        case RelistsColumn:
            return formatCount(w.relists);
        default:
            return cellValue(w, column);
        }
    case SortRole:
        return cellValue(w, column);
    case Qt::TextAlignmentRole:
        return column >= RvColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                  : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        // Only states a reader must notice get a colour; everything else keeps the palette.
        if (w.state == QLatin1String("terminated"))
            return QColor(0x77, 0x77, 0x77);
        if (w.state == QLatin1String("backoff") || w.state == QLatin1String("error"))
            return QColor(0xa0, 0x4a, 0x00);
        return {};
    case Qt::ToolTipRole:
        return tr("%1 (%2) on %3: rv %4, %5 revisions / %6 s behind head")
            .arg(w.id, w.profile, w.apiserver.isEmpty() ? tr("etcd") : w.apiserver, formatRv(w.rv),
                 formatCount(w.lagRevisions), formatSeconds(w.lagSeconds));
    }
    return {};
}

QVariant WatcherTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn:
        return tr("Watcher");
    case ResourceColumn:
        return tr("Resource");
    case ApiserverColumn:
        return tr("Apiserver");
    case ProfileColumn:
        return tr("Profile");
    case StateColumn:
        return tr("State");
    case RvColumn:
        return tr("RV");
    case LagRevisionsColumn:
        return tr("Lag (rev)");
    case LagSecondsColumn:
        return tr("Lag (s)");
    case EventsColumn:
        return tr("Events");
    case RelistsColumn:
        return tr("Relists");
    }
    return {};
}

int WatcherTableModel::rowOf(const QString& resource, const QString& id) const {
    return m_rows.rowOf(rowKey(resource, id));
}

} // namespace ws
