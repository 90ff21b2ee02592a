#include "AnomalyDetailPane.h"

#include "models/AnomalyListModel.h"
#include "models/CellFormat.h"

#include "kube/AnomalyExplainer.h"

#include <QLabel>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace ws {

AnomalyDetailPane::AnomalyDetailPane(QWidget* parent)
    : QWidget(parent), m_heading(new QLabel(this)), m_fields(new QTextBrowser(this)) {
    QFont headingFont = m_heading->font();
    headingFont.setBold(true);
    m_heading->setFont(headingFont);
    m_heading->setWordWrap(true);
    m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Rich text rather than a tree: long messages and keys wrap instead of being elided, and
    // any part of them can be selected and copied.
    m_fields->setOpenLinks(false);
    m_fields->setFrameShape(QFrame::StyledPanel);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_heading);
    layout->addWidget(m_fields, 1);
    clear();
}

QString AnomalyDetailPane::kindMeaning(AnomalyKind kind) {
    switch (kind) {
    case AnomalyKind::PrevKvNil:
        return tr("A non-create etcd event without prev_kv, or the apiserver's PrevKv=nil "
                  "InternalError.");
    case AnomalyKind::RevisionGap:
        return tr("A watch skipped revisions it must see, or events were lost between a watch "
                  "and a consistent list.");
    case AnomalyKind::RevisionRegression:
        return tr("An RV lower than one already seen by the same client: reordering on a "
                  "stream, or time travel across reconnects/apiservers.");
    case AnomalyKind::DuplicateEvent:
        return tr("The same (revision, key) delivered twice.");
    case AnomalyKind::SplitRevision:
        return tr("One revision split across two responses.");
    case AnomalyKind::BookmarkViolation:
        return tr("An event at or below an already delivered bookmark/progress RV, or a "
                  "bookmark going backwards.");
    case AnomalyKind::TooOldRv:
        return tr("410 Expired/Gone (watch ERROR event or list error), or an etcd compacted "
                  "cancel.");
    case AnomalyKind::TooLargeRv:
        return tr("504 \"Too large resource version\".");
    case AnomalyKind::RetryLoop:
        return tr("The same error retried repeatedly without progress.");
    case AnomalyKind::RelistStorm:
        return tr("Relists above a rate threshold for one resource, or across many clients at "
                  "once.");
    case AnomalyKind::WatcherLag:
        return tr("A watcher's lag (head RV − watcher RV, and seconds behind) above threshold.");
    case AnomalyKind::StuckWatcher:
        return tr("A watcher's RV has not moved for a while although the head moved.");
    case AnomalyKind::WatcherTerminated:
        return tr("The server closed a watch without an ERROR event (slow watcher, shutdown).");
    case AnomalyKind::StaleObject:
        return tr("An object present in a cache/store that a consistent read says is gone or "
                  "newer.");
    case AnomalyKind::InitialEventsStalled:
        return tr("A watch-list never delivered its k8s.io/initial-events-end bookmark.");
    case AnomalyKind::StreamError:
        return tr("A malformed frame, unknown event type, undecodable object or broken stream.");
    case AnomalyKind::CacheInconsistent:
        return tr("The apiserver's own consistency check (DetectCacheInconsistency, 1.34+) found "
                  "its watch cache different from etcd at the same RV.");
    case AnomalyKind::CacheNotReady:
        return tr("A watch cache stayed not ready: requests got 429 \"storage is "
                  "(re)initializing\", 503 or blocked, or its cacher's relist kept failing.");
    case AnomalyKind::ListPressure:
        return tr("The memory an apiserver's LISTs hold rose near its limit, or it was "
                  "OOM-killed by them.");
    }
    return {};
}

void AnomalyDetailPane::showAnomaly(const Anomaly& a, qint64 number) {
    m_anomaly = a;
    m_number = number;
    m_shown = true;
    m_dropped = false;
    render();
}

void AnomalyDetailPane::setVersions(const VersionContext& versions) {
    if (versions == m_versions)
        return;
    m_versions = versions;
    if (m_shown)
        render();
}

void AnomalyDetailPane::render() {
    const Anomaly& a = m_anomaly;
    m_heading->setText(tr("Anomaly #%1: %2").arg(m_number).arg(kindName(a.kind)));
    if (m_dropped)
        m_heading->setText(
            tr("%1 (no longer in the list, which keeps the newest)").arg(m_heading->text()));
    const QString absent = tr("(not applicable)");
    const QString color = AnomalyListModel::severityColor(a.severity).name();
    m_lines.clear();
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='3' width='100%'>");
    const auto add = [&](const QString& field, const QString& value, bool colored = false,
                         bool mono = false) {
        m_lines.append(field + QStringLiteral(": ") + value);
        QString cell = value.toHtmlEscaped();
        if (mono)
            cell = QStringLiteral("<code>%1</code>").arg(cell);
        if (colored)
            cell = QStringLiteral("<span style='color:%1'><b>%2</b></span>").arg(color, cell);
        html += QStringLiteral("<tr><td valign='top' style='color:#555555'>%1</td>"
                               "<td valign='top'>%2</td></tr>")
                    .arg(field.toHtmlEscaped(), cell);
    };
    add(tr("Time"), tr("%1 s").arg(formatTimeUs(a.time)));
    add(tr("Kind"), kindName(a.kind), true);
    add(tr("Severity"), severityName(a.severity), true);
    add(tr("Source"), sourceName(a.source));
    add(tr("Resource"), a.resource.isEmpty() ? absent : a.resource);
    add(tr("Key"), a.key.isEmpty() ? absent : a.key, false, !a.key.isEmpty());
    add(tr("RV"), a.rv == 0 ? absent : QString::number(a.rv), false, a.rv != 0);
    add(tr("Watcher"), a.watcher.isEmpty() ? absent : a.watcher);
    if (!a.apiserver.isEmpty())
        add(tr("Apiserver"), a.apiserver); // the server whose failure it is
    add(tr("Message"), a.message);
    add(tr("Meaning"), kindMeaning(a.kind));
    add(tr("Versions"), m_versions.isEmpty() ? tr("unknown") : m_versions.describe());
    html += QStringLiteral("</table>");

    // The explanation, section by section; paragraphs are separated by blank lines.
    m_explanation = AnomalyExplainer::explain(a, m_versions);
    const auto paragraphs = [](const QString& text) {
        QString out;
        for (const QString& p : text.split(QStringLiteral("\n\n"), Qt::SkipEmptyParts))
            out += QStringLiteral("<p style='margin-top:2px;margin-bottom:6px'>%1</p>")
                       .arg(p.toHtmlEscaped());
        return out;
    };
    const auto section = [&](const QString& title, const QString& body, bool list = false,
                             const QStringList& items = {}) {
        if (body.isEmpty() && items.isEmpty())
            return;
        html += QStringLiteral("<h4 style='margin-top:10px;margin-bottom:2px'>%1</h4>")
                    .arg(title.toHtmlEscaped());
        if (list) {
            html += QStringLiteral("<ul style='margin-top:0px'>");
            for (const QString& item : items)
                html += QStringLiteral("<li>%1</li>").arg(item.toHtmlEscaped());
            html += QStringLiteral("</ul>");
            m_lines.append(title + QStringLiteral(":"));
            for (const QString& item : items)
                m_lines.append(QStringLiteral("- ") + item);
        } else {
            html += paragraphs(body);
            m_lines.append(title + QStringLiteral(": ") +
                           QString(body).replace(QStringLiteral("\n\n"), QStringLiteral(" ")));
        }
    };
    section(tr("What happened"), m_explanation.what);
    section(tr("Why"), m_explanation.why);
    section(tr("Fix"), m_explanation.fix);
    section(tr("Versions involved"), {}, true, m_explanation.versions);
    section(tr("References"), {}, true, m_explanation.references);
    m_fields->setHtml(html);
}

void AnomalyDetailPane::markDropped() {
    if (!m_shown || m_dropped)
        return;
    m_dropped = true;
    m_heading->setText(
        tr("%1 (no longer in the list, which keeps the newest)").arg(m_heading->text()));
}

QString AnomalyDetailPane::heading() const {
    return m_heading->text();
}

void AnomalyDetailPane::clear() {
    m_heading->setText(tr("No anomaly selected"));
    m_lines.clear();
    m_shown = false;
    m_dropped = false;
    m_explanation = {};
    m_fields->setHtml(
        QStringLiteral("<p style='color:#666666'>%1</p>")
            .arg(tr("Select an incident or one of its anomalies, a row in the "
                    "anomaly list, an event named by one, or a red marker on a chart, "
                    "to see every field here.")
                     .toHtmlEscaped()));
}

QString AnomalyDetailPane::text() const {
    return m_lines.join(QLatin1Char('\n'));
}

} // namespace ws
