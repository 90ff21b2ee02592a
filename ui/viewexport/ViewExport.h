#pragma once

#include <QString>

class QAbstractItemModel;
class QHeaderView;
class QWidget;

namespace ws {

// What the window shows, written to files: a chart as an image (PNG, at the widget's size and
// device pixel ratio) or as vector graphics (SVG), and a table as CSV (RFC 4180: a header row,
// CRLF line ends, fields with a comma, quote, CR or LF quoted and their quotes doubled) with the
// rows and columns the view shows: the proxy's filtered, sorted rows, the header's visible
// columns, the text of each cell as displayed (its FullTextRole, models/CellFormat.h, where it has
// one).
namespace ViewExport {

bool savePng(QWidget* widget, const QString& path, QString* error);
bool saveSvg(QWidget* widget, const QString& path, const QString& title, QString* error);

// `header` may be null (every column); hidden sections are left out, in the view's visual order.
// A tree (a model whose top-level rows have children) is written depth first, each row after
// its parent, with a first column "Parent" naming the parent row (its first visible cell; empty
// for a top-level row): a group's aggregate row, then its resources, each saying its group.
QString tableCsv(const QAbstractItemModel* model, const QHeaderView* header = nullptr);
bool saveCsv(const QAbstractItemModel* model, const QHeaderView* header, const QString& path,
             QString* error);
QString csvField(const QString& text);

} // namespace ViewExport

} // namespace ws
