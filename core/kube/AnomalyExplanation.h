#pragma once

#include <QString>
#include <QStringList>

namespace ws {

// What AnomalyExplainer says about one anomaly under the session's versions. Plain text: short
// paragraphs separated by a blank line ("\n\n").
struct AnomalyExplanation {
    QString what;           // what happened, from the anomaly's own fields and message
    QString why;            // the mechanism, with the versions it depends on
    QString fix;            // what fixes it: upgrades, feature gates, client settings
    QStringList versions;   // "kube-apiserver 1.27.0: RV=\"\" watches served from etcd (...)"
    QStringList references; // "kubernetes PR #111387", "etcd issue #17529"

    bool isEmpty() const { return what.isEmpty() && why.isEmpty() && fix.isEmpty(); }
    // Every part, headed, for a copy or a log.
    QString toPlainText() const;
};

} // namespace ws
