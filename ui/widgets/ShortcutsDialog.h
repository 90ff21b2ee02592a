#pragma once

#include <QDialog>

class QTableWidget;

namespace ws {

// Help → Keyboard Shortcuts: every action of the window that has a shortcut, read from the
// actions themselves, so the list cannot drift from what the keys do.
class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutsDialog(const QWidget* window, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};

} // namespace ws
