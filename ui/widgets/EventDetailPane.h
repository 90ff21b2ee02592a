#pragma once

#include "engine/JournalEntry.h"
#include "models/EventTableModel.h"
#include "models/LineDiff.h"
#include "models/ObjectText.h"

#include <QStringList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTextBrowser;

namespace ws {

// The selected event of the events table (Wireshark's packet details and bytes): its fields,
// its object (ObjectText) and a line diff of it against the previous version of the same
// object (the previous event of its key), changed lines marked − and + in colour and unchanged
// runs folded to three lines of context; or why there is no diff: the first version seen, an
// event without an object (an etcd DELETE), a content or a previous version the journal has
// dropped.
class EventDetailPane : public QWidget {
    Q_OBJECT
public:
    explicit EventDetailPane(QWidget* parent = nullptr);

    // `previous`: the entry `entry.previous` names, with its object (invalid: not held);
    // `anomalies`: those the engine raised that name the event (listed with the fields).
    void showEntry(const JournalEntry& entry, const JournalEntry& previous,
                   const QVector<EventAnomaly>& anomalies = {});
    void clear();

    QString heading() const;
    QString fieldsText() const { return m_fieldLines.join(u'\n'); } // "field: value" lines
    QString diffStatus() const { return m_diffStatus; }
    const QVector<DiffLine>& diff() const { return m_diff; } // empty when there is no diff
    const ObjectText& object() const { return m_object; }
    QTabWidget* tabs() const { return m_tabs; }

private:
    void showDiff();

    QLabel* m_heading;
    QTextBrowser* m_fields;
    QTabWidget* m_tabs;
    QLabel* m_diffLabel;
    QTextBrowser* m_diffView;
    QPlainTextEdit* m_objectView;
    QStringList m_fieldLines;
    QString m_diffStatus;
    QVector<DiffLine> m_diff;
    ObjectText m_object;
};

} // namespace ws
