#pragma once

#include "model/Anomaly.h"

#include <QStringList>
#include <QWidget>

class QLabel;
class QTextBrowser;

namespace ws {

// Every field of the selected anomaly, like Wireshark's packet-detail pane, plus what the kind
// means (SPEC §2) so a reader need not look it up. Values wrap and can be selected and copied.
class AnomalyDetailPane : public QWidget {
    Q_OBJECT
public:
    explicit AnomalyDetailPane(QWidget* parent = nullptr);

    // `number`: the anomaly's 1-based number in the session (the list's No. column).
    void showAnomaly(const Anomaly& anomaly, qint64 number);
    // The anomaly shown left the list (it keeps only the newest): say so, keep its fields.
    void markDropped();
    void clear();
    QString heading() const;
    // "field: value" lines of what is shown (tests, copy).
    QString text() const;

    static QString kindMeaning(AnomalyKind kind);

private:
    QLabel* m_heading;
    QTextBrowser* m_fields;
    QStringList m_lines;
};

} // namespace ws
