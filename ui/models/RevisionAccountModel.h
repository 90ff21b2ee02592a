#pragma once

#include "KeyedTableModel.h"
#include "engine/SourceRevisionAccount.h"

#include <QVector>

namespace ws {

// One row per revision account a live source keeps (issue 14): which revisions of the source of
// truth it covers, how many were seen, how many were lost and in which gaps, and whether every
// one is accounted for. Fed with the EngineUpdate's snapshot of the accounts; keyed by the
// account's name, so an update redraws only the cells that changed. The tool tip of a row is
// the line `watchscope-cli` prints for that account when the session ends.
class RevisionAccountModel : public KeyedTableModel<SourceRevisionAccount> {
    Q_OBJECT
public:
    enum Column {
        StreamColumn,
        RevisionsColumn,
        SeenColumn,
        LostColumn,
        GapsColumn,
        UnaccountedColumn,
        BalanceColumn,
        ColumnCount
    };

    explicit RevisionAccountModel(QObject* parent = nullptr);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    const SourceRevisionAccount& account(int row) const { return m_rows.at(row); }
    int rowOf(const QString& name) const { return m_rows.rowOf(name); }
    // Revisions below the highest accounted for that were neither seen nor reported lost: a
    // loss nobody reported. (The rest of unaccountedCount() is still on its way.)
    static std::int64_t unreportedLoss(const RevisionAccount& account);
    // Accounts whose revisions are not all seen or reported lost yet (or not begun).
    int unbalancedCount() const;
};

} // namespace ws
