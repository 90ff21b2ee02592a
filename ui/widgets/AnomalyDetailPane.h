#pragma once

#include "kube/AnomalyExplanation.h"
#include "model/Anomaly.h"
#include "model/VersionContext.h"

#include <QStringList>
#include <QWidget>

class QLabel;
class QTextBrowser;

namespace ws {

// Every field of the selected anomaly, like Wireshark's packet-detail pane, then its explanation
// under the session's versions (kube/AnomalyExplainer: what happened, why, the fix, the versions
// involved), with what the kind means (SPEC §2) as the fallback line. Values wrap and can be
// selected and copied.
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
    // "field: value" lines of what is shown (tests, copy), then the explanation's sections.
    QString text() const;
    // The explanation of the anomaly shown (empty when none is shown).
    const AnomalyExplanation& explanation() const { return m_explanation; }
    const VersionContext& versions() const { return m_versions; }

    static QString kindMeaning(AnomalyKind kind);

public slots:
    // The session's versions (EngineUpdate::versions): the explanations depend on them. Cheap
    // when unchanged; a change explains the anomaly shown again.
    void setVersions(const ws::VersionContext& versions);

private:
    void render();

    QLabel* m_heading;
    QTextBrowser* m_fields;
    QStringList m_lines;
    VersionContext m_versions;
    Anomaly m_anomaly;
    qint64 m_number = 0;
    bool m_shown = false;
    bool m_dropped = false;
    AnomalyExplanation m_explanation;
};

} // namespace ws
