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
    case WatcherTableModel::SelectorColumn:
        return w.selector;
    case WatcherTableModel::ProfileColumn:
        return w.profile;
    case WatcherTableModel::StateColumn:
        return int(w.state);
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
    case WatcherTableModel::ErrorsColumn:
        return w.errors;
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
        // A cluster whose /metrics give no cache RV gives no head: not 0, unknown.
        case LagRevisionsColumn:
            return w.lagKnown() ? formatCount(w.lagRevisions) : tr("unknown");
        case LagSecondsColumn:
            return w.lagKnown() ? formatSeconds(w.lagSeconds) : tr("unknown");
        case EventsColumn:
            return formatCount(w.eventsReceived);
        case RelistsColumn:
            return formatCount(w.relists);
        case ErrorsColumn:
            return formatCount(w.errors);
        case StateColumn:
            return watcherStateName(w.state);
        default:
            return cellValue(w, column);
        }
    case SortRole:
        return cellValue(w, column);
    case Qt::TextAlignmentRole:
        return column >= RvColumn && column != StateColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        // Only states a reader must notice get a colour; everything else keeps the palette.
        switch (w.state) {
        case WatcherState::Stuck:
            return QColor(0xc0, 0x10, 0x20);
        case WatcherState::Lagging:
        case WatcherState::Backoff:
        case WatcherState::Relisting:
            return QColor(0xa0, 0x4a, 0x00);
        case WatcherState::Terminated:
            return QColor(0x77, 0x77, 0x77);
        case WatcherState::Listing:
        case WatcherState::Syncing:
        case WatcherState::Live:
            break;
        }
        return {};
    case Qt::ToolTipRole: {
        const QString behind =
            w.lagKnown() ? tr("%1 revisions / %2 s behind head")
                               .arg(formatCount(w.lagRevisions), formatSeconds(w.lagSeconds))
                         : tr("lag unknown (the apiserver gives no cache RV in /metrics)");
        QString tip = tr("%1 (%2) on %3: %4, rv %5, %6")
                          .arg(w.id, w.profile, w.apiserver.isEmpty() ? tr("etcd") : w.apiserver,
                               watcherStateName(w.state), formatRv(w.rv), behind);
        if (!w.detail.isEmpty())
            tip += tr(" (source: %1)").arg(w.detail);
        if (!w.selector.isEmpty())
            tip += tr("; selector %1").arg(w.selector);
        if (w.httpRetries > 0)
            tip += tr("; %1 HTTP retries below the reflector (Retry-After, or a connection "
                      "closed before any answer)")
                       .arg(w.httpRetries);
        return tip;
    }
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
    case SelectorColumn:
        return tr("Selector");
    case ProfileColumn:
        return tr("Client profile");
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
    case ErrorsColumn:
        return tr("Errors");
    }
    return {};
}

int WatcherTableModel::rowOf(const QString& resource, const QString& id) const {
    return m_rows.rowOf(rowKey(resource, id));
}

} // namespace ws
