#pragma once

#include <initializer_list>

class QAbstractItemModel;
class QAbstractItemView;
class QHeaderView;
class QTableView;

namespace ws {

// How the window's tables and trees look and behave, in one place: whole-row single selection,
// alternating rows, sorting, no word wrap, fixed row heights (a live table must not measure every
// row it has), the last column stretched, and a header whose context menu chooses the columns,
// as in Wireshark's packet list.
QTableView* makeTableView(QAbstractItemModel* model);
void setUpTableView(QTableView* view, QAbstractItemModel* model);
void setUpItemView(QAbstractItemView* view);
void addColumnChooser(QHeaderView* header);
// Initial widths that fit typical content without measuring every row of a live table.
void setColumnWidths(QHeaderView* header, std::initializer_list<int> widths);

} // namespace ws
