#include "RevisionAccountsPane.h"

#include "TableSetup.h"
#include "models/CellFormat.h"
#include "models/RevisionAccountModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace ws {

RevisionAccountsPane::RevisionAccountsPane(QWidget* parent)
    : QWidget(parent), m_model(new RevisionAccountModel(this)), m_headline(new QLabel),
      m_view(makeTableView(m_model)) {
    m_headline->setObjectName(QStringLiteral("accountsHeadline"));
    m_headline->setWordWrap(true);
    m_headline->setTextFormat(Qt::PlainText);
    m_headline->setContentsMargins(6, 4, 6, 4);
    m_view->setObjectName(QStringLiteral("accountsView"));
    m_view->setSortingEnabled(false); // a handful of rows, in the order the sources give them
    setColumnWidths(m_view->horizontalHeader(), {150, 180, 70, 70, 240, 95, 140});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_headline);
    layout->addWidget(m_view, 1);
    // The headline and the tab title follow the rows, not every update: only a change of a
    // cell (or a new account) redraws anything.
    connect(m_model, &QAbstractItemModel::dataChanged, this, &RevisionAccountsPane::showHeadline);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &RevisionAccountsPane::showHeadline);
    connect(m_model, &QAbstractItemModel::modelReset, this, &RevisionAccountsPane::showHeadline);
    showHeadline();
}

void RevisionAccountsPane::applyAccounts(const QVector<SourceRevisionAccount>& accounts) {
    m_model->applySnapshots(accounts);
}

void RevisionAccountsPane::clear() {
    m_model->clear();
}

QString RevisionAccountsPane::headline() const {
    return m_headline->text();
}

QString RevisionAccountsPane::countText() const {
    const int unbalanced = m_model->unbalancedCount();
    return unbalanced == 0 ? QString::number(m_model->rowCount())
                           : tr("%1, %2 unbalanced").arg(m_model->rowCount()).arg(unbalanced);
}

void RevisionAccountsPane::showHeadline() {
    qint64 lost = 0;
    qint64 gaps = 0;
    qint64 unreported = 0;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const RevisionAccount& a = m_model->account(row).account;
        lost += a.lostCount();
        gaps += qint64(a.gaps().size());
        unreported += RevisionAccountModel::unreportedLoss(a);
    }
    QString text;
    if (m_model->rowCount() == 0)
        text = tr("No revision accounts: the etcd and cluster sources keep one per stream they "
                  "follow (a simulator writes its own truth).");
    else if (unreported > 0)
        text = tr("%1 revisions were neither seen nor reported lost.").arg(formatCount(unreported));
    else if (gaps == 0)
        text = tr("Every revision the source of truth wrote is seen or still on its way; none "
                  "was lost.");
    else
        text = tr("%1 lost in %2, each reported as a revision-gap anomaly; every other revision "
                  "is seen or still on its way.")
                   .arg(lost == 1 ? tr("1 revision") : tr("%1 revisions").arg(formatCount(lost)),
                        gaps == 1 ? tr("1 gap") : tr("%1 gaps").arg(gaps));
    // Red only for a loss nobody reported: that one is the program's fault, not the cluster's.
    const QString style = unreported > 0 ? QStringLiteral("QLabel { color: #c01020; }") : QString();
    if (m_headline->styleSheet() != style)
        m_headline->setStyleSheet(style);
    if (m_headline->text() != text)
        m_headline->setText(text);
    emit countsChanged();
}

} // namespace ws
