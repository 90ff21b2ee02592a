#include "ViewExport.h"

#include "models/CellFormat.h"

#include <QAbstractItemModel>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace ws::ViewExport {

namespace {

QString writeError(const QString& path, const QString& why) {
    return QStringLiteral("cannot write %1: %2").arg(QFileInfo(path).fileName(), why);
}

bool writeFile(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = writeError(path, file.errorString());
        return false;
    }
    file.write(bytes);
    if (!file.commit()) {
        *error = writeError(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace

bool savePng(QWidget* widget, const QString& path, QString* error) {
    const QPixmap pixmap = widget->grab();
    if (pixmap.isNull()) {
        *error = writeError(path, QStringLiteral("the chart has no size yet"));
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !pixmap.save(&file, "PNG") || !file.commit()) {
        *error = writeError(path, file.errorString());
        return false;
    }
    return true;
}

bool saveSvg(QWidget* widget, const QString& path, const QString& title, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = writeError(path, file.errorString());
        return false;
    }
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(widget->size());
    svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
    svg.setTitle(title);
    svg.setDescription(QStringLiteral("Exported by WatchScope"));
    {
        QPainter painter;
        if (!painter.begin(&svg)) {
            *error = writeError(path, QStringLiteral("cannot draw the chart"));
            return false;
        }
        widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
        painter.end();
    }
    if (!file.commit()) {
        *error = writeError(path, file.errorString());
        return false;
    }
    return true;
}

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString tableCsv(const QAbstractItemModel* model, const QHeaderView* header) {
    QList<int> columns;
    const int n = model->columnCount();
    for (int visual = 0; visual < n; ++visual) {
        const int c = header ? header->logicalIndex(visual) : visual;
        if (c < 0 || (header && header->isSectionHidden(c)))
            continue;
        columns << c;
    }
    bool tree = false;
    for (int r = 0; r < model->rowCount() && !tree; ++r)
        tree = model->hasChildren(model->index(r, 0));
    QString out;
    const auto line = [&](const QString& parent, const auto& cell) {
        if (tree)
            out += csvField(parent) + QLatin1Char(',');
        for (qsizetype i = 0; i < columns.size(); ++i) {
            if (i > 0)
                out += QLatin1Char(',');
            out += csvField(cell(columns[i]));
        }
        out += QStringLiteral("\r\n");
    };
    line(QStringLiteral("Parent"),
         [&](int c) { return model->headerData(c, Qt::Horizontal).toString(); });
    const int firstColumn = columns.isEmpty() ? 0 : columns.front();
    const auto rowsOf = [&](const auto& self, const QModelIndex& parent) -> void {
        const QString parentText =
            parent.isValid() ? parent.siblingAtColumn(firstColumn).data().toString() : QString();
        const int rows = model->rowCount(parent);
        for (int r = 0; r < rows; ++r) {
            line(parentText, [&](int c) {
                const QModelIndex cell = model->index(r, c, parent);
                const QVariant full = cell.data(FullTextRole);
                return full.isValid() ? full.toString() : cell.data(Qt::DisplayRole).toString();
            });
            if (tree)
                self(self, model->index(r, 0, parent));
        }
    };
    rowsOf(rowsOf, QModelIndex());
    return out;
}

bool saveCsv(const QAbstractItemModel* model, const QHeaderView* header, const QString& path,
             QString* error) {
    return writeFile(path, tableCsv(model, header).toUtf8(), error);
}

} // namespace ws::ViewExport
