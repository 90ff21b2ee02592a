#pragma once

#include "engine/SourceRevisionAccount.h"

#include <QVector>
#include <QWidget>

class QLabel;
class QTableView;

namespace ws {

class RevisionAccountModel;

// The live sources' revision accounts (issue 14): a line saying whether every revision the
// source of truth wrote is seen or reported lost, over a table of the accounts (one row per
// stream: an etcd watch, a reflector). Owns its model; fed with each update's snapshot.
class RevisionAccountsPane : public QWidget {
    Q_OBJECT
public:
    explicit RevisionAccountsPane(QWidget* parent = nullptr);

    void applyAccounts(const QVector<SourceRevisionAccount>& accounts);
    void clear();

    RevisionAccountModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QString headline() const;
    // "2" or "2, 1 unbalanced", for the tab title.
    QString countText() const;

signals:
    void countsChanged();

private:
    void showHeadline();

    RevisionAccountModel* m_model;
    QLabel* m_headline;
    QTableView* m_view;
};

} // namespace ws
