#include "ShortcutsDialog.h"

#include "ChartInteraction.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace ws {

ShortcutsDialog::ShortcutsDialog(const QWidget* window, QWidget* parent)
    : QDialog(parent), m_table(new QTableWidget(this)) {
    setWindowTitle(tr("Keyboard Shortcuts"));
    struct Row {
        QString what;
        QString keys;
    };
    std::vector<Row> rows;
    for (const QAction* a : window->findChildren<QAction*>()) {
        if (a->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        QString what = a->text();
        what.remove(QLatin1Char('&'));
        what.remove(QStringLiteral("…"));
        rows.push_back({what.trimmed(), keys.join(QStringLiteral(", "))});
    }
    for (const ChartInteraction::KeyHelp& k : ChartInteraction::keyHelp())
        rows.push_back({k.what, k.keys});
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return a.what.compare(b.what, Qt::CaseInsensitive) < 0;
    });
    rows.erase(std::unique(
                   rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.what == b.what && a.keys == b.keys; }),
               rows.end());
    m_table->setColumnCount(2);
    m_table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
    m_table->setRowCount(int(rows.size()));
    for (int i = 0; i < int(rows.size()); ++i) {
        m_table->setItem(i, 0, new QTableWidgetItem(rows[std::size_t(i)].what));
        m_table->setItem(i, 1, new QTableWidgetItem(rows[std::size_t(i)].keys));
    }
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(460, 520);
}

} // namespace ws
