#include "EventDetailPane.h"

#include "models/CellFormat.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace ws {

namespace {

constexpr int kContext = 3; // unchanged lines shown around a change

QString contentText(const JournalEntry& e) {
    switch (e.content) {
    case JournalContent::None:
        return QObject::tr("none (the event carried no object)");
    case JournalContent::Kept:
        return QObject::tr("%1 bytes").arg(formatCount(e.objectSize));
    case JournalContent::Dropped:
        return QObject::tr("%1 bytes, dropped (the journal keeps the newest objects within its "
                           "byte budget)")
            .arg(formatCount(e.objectSize));
    }
    return {};
}

} // namespace

EventDetailPane::EventDetailPane(QWidget* parent)
    : QWidget(parent), m_heading(new QLabel(this)), m_fields(new QTextBrowser(this)),
      m_tabs(new QTabWidget(this)), m_diffLabel(new QLabel(this)),
      m_diffView(new QTextBrowser(this)), m_objectView(new QPlainTextEdit(this)) {
    QFont headingFont = m_heading->font();
    headingFont.setBold(true);
    m_heading->setFont(headingFont);
    m_heading->setWordWrap(true);
    m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_fields->setOpenLinks(false);
    m_fields->setFrameShape(QFrame::StyledPanel);

    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_diffView->setFont(mono);
    m_diffView->setOpenLinks(false);
    m_diffView->setLineWrapMode(QTextEdit::NoWrap);
    m_objectView->setFont(mono);
    m_objectView->setReadOnly(true);
    m_objectView->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diffLabel->setWordWrap(true);
    m_diffLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* diffPage = new QWidget;
    auto* diffLayout = new QVBoxLayout(diffPage);
    diffLayout->setContentsMargins(2, 2, 2, 2);
    diffLayout->addWidget(m_diffLabel);
    diffLayout->addWidget(m_diffView, 1);
    m_tabs->addTab(diffPage, tr("Diff against previous version"));
    m_tabs->addTab(m_objectView, tr("Object"));

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_fields);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_heading);
    layout->addWidget(split, 1);
    clear();
}

QString EventDetailPane::heading() const {
    return m_heading->text();
}

void EventDetailPane::clear() {
    m_heading->setText(tr("No event selected"));
    m_fieldLines.clear();
    m_diff.clear();
    m_diffStatus.clear();
    m_object = {};
    m_fields->setHtml(QStringLiteral("<p style='color:#666666'>%1</p>")
                          .arg(tr("Select an event to see its fields, its object and what "
                                  "changed since the previous version of that object.")
                                   .toHtmlEscaped()));
    m_diffLabel->clear();
    m_diffView->clear();
    m_objectView->clear();
}

void EventDetailPane::showEntry(const JournalEntry& e, const JournalEntry& previous,
                                const QVector<EventAnomaly>& anomalies) {
    m_heading->setText(
        tr("Event #%1: %2 %3").arg(e.index + 1).arg(watchEventTypeName(e.type), e.objectName()));
    m_fieldLines.clear();
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='3' width='100%'>");
    const auto add = [&](const QString& field, const QString& value, bool mono = false) {
        m_fieldLines.append(field + QStringLiteral(": ") + value);
        QString cell = value.toHtmlEscaped();
        if (mono)
            cell = QStringLiteral("<code>%1</code>").arg(cell);
        html += QStringLiteral("<tr><td valign='top' style='color:#555555'>%1</td>"
                               "<td valign='top'>%2</td></tr>")
                    .arg(field.toHtmlEscaped(), cell);
    };
    add(tr("No."), QString::number(e.index + 1));
    add(tr("Time"), tr("%1 s").arg(QString::number(double(e.time) / kUsPerSecond, 'f', 6)));
    add(tr("Type"), watchEventTypeName(e.type));
    add(tr("Resource"), e.resource);
    add(tr("Namespace"), e.ns.isEmpty() ? tr("(none)") : e.ns);
    add(tr("Name"), e.name);
    add(tr("Key"), e.key, true);
    add(tr("RV"), QString::number(e.rv), true);
    add(tr("Size"), tr("%1 bytes").arg(formatCount(e.size)));
    add(tr("Watcher"), e.watcher);
    add(tr("Object"), contentText(e));
    add(tr("Previous version"), e.previous < 0 ? tr("none seen")
                                : previous.valid()
                                    ? tr("#%1, RV %2, %3")
                                          .arg(e.previous + 1)
                                          .arg(previous.rv)
                                          .arg(watchEventTypeName(previous.type))
                                    : tr("#%1 (dropped from the journal)").arg(e.previous + 1));
    for (const EventAnomaly& linked : anomalies) {
        const Anomaly& a = linked.anomaly;
        QString what = kindName(a.kind);
        if (!a.watcher.isEmpty())
            what += QStringLiteral(" (%1)").arg(a.watcher);
        if (linked.serial >= 0)
            what = QStringLiteral("#%1 %2").arg(linked.serial + 1).arg(what);
        add(tr("Anomaly"), what + QStringLiteral(": ") + a.message);
    }
    html += QStringLiteral("</table>");
    m_fields->setHtml(html);

    m_object = e.content == JournalContent::Kept ? ObjectText::of(e.object) : ObjectText();
    m_objectView->setPlainText(e.content == JournalContent::Kept
                                   ? m_object.summary + QStringLiteral("\n\n") +
                                         m_object.lines.join(u'\n')
                                   : contentText(e));

    m_diff.clear();
    if (e.content == JournalContent::None)
        m_diffStatus = tr("No diff: this event carried no object (an etcd DELETE is a "
                          "tombstone: key and revision only).");
    else if (e.content == JournalContent::Dropped)
        m_diffStatus = tr("No diff: this version's content was dropped (the journal keeps the "
                          "newest objects within its byte budget).");
    else if (e.previous < 0)
        m_diffStatus = tr("First version seen of this object: nothing to compare with.");
    else if (!previous.valid())
        m_diffStatus = tr("No diff: the previous version (#%1) was dropped from the journal.")
                           .arg(e.previous + 1);
    else if (previous.content == JournalContent::None)
        m_diffStatus = tr("The previous event of this key (#%1, RV %2) was a %3 without an "
                          "object: this version is the first since.")
                           .arg(e.previous + 1)
                           .arg(previous.rv)
                           .arg(watchEventTypeName(previous.type));
    else if (previous.content == JournalContent::Dropped)
        m_diffStatus = tr("No diff: the content of the previous version (#%1) was dropped.")
                           .arg(e.previous + 1);
    else {
        m_diff = LineDiff::compute(ObjectText::of(previous.object).lines, m_object.lines);
        const int changes = LineDiff::changes(m_diff);
        m_diffStatus = changes == 0
                           ? tr("Identical to the previous version (#%1, RV %2, %3).")
                                 .arg(e.previous + 1)
                                 .arg(previous.rv)
                                 .arg(previous.watcher)
                           : tr("%n line(s) changed since the previous version (#%1, RV %2, %3).",
                                nullptr, changes)
                                 .arg(e.previous + 1)
                                 .arg(previous.rv)
                                 .arg(previous.watcher);
    }
    showDiff();
}

void EventDetailPane::showDiff() {
    m_diffLabel->setText(m_diffStatus);
    if (m_diff.isEmpty()) {
        m_diffView->setPlainText(m_object.lines.join(u'\n'));
        return;
    }
    // Unchanged runs longer than twice the context are folded.
    const qsizetype n = m_diff.size();
    std::vector<bool> near(std::size_t(n), false);
    for (qsizetype i = 0; i < n; ++i) {
        if (m_diff[i].op == DiffLine::Same)
            continue;
        for (qsizetype j = std::max<qsizetype>(0, i - kContext);
             j <= std::min<qsizetype>(n - 1, i + kContext); ++j)
            near[std::size_t(j)] = true;
    }
    QString html = QStringLiteral("<pre style='margin:0'>");
    for (qsizetype i = 0; i < n;) {
        if (!near[std::size_t(i)]) {
            qsizetype j = i;
            while (j < n && !near[std::size_t(j)])
                ++j;
            html += QStringLiteral("<span style='color:#888888'>  … %1</span>\n")
                        .arg(tr("%n unchanged line(s)", nullptr, int(j - i)));
            i = j;
            continue;
        }
        const DiffLine& line = m_diff[i++];
        const QString text = line.text.toHtmlEscaped();
        switch (line.op) {
        case DiffLine::Same:
            html += QStringLiteral("  %1\n").arg(text);
            break;
        case DiffLine::Removed:
            html += QStringLiteral("<span style='background-color:#ffe0e0;color:#a00000'>- "
                                   "%1</span>\n")
                        .arg(text);
            break;
        case DiffLine::Added:
            html += QStringLiteral("<span style='background-color:#ddf7dd;color:#006000'>+ "
                                   "%1</span>\n")
                        .arg(text);
            break;
        }
    }
    html += QStringLiteral("</pre>");
    m_diffView->setHtml(html);
}

} // namespace ws
