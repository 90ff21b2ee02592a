#include "SecurityBanner.h"

namespace ws {

SecurityBanner::SecurityBanner(QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("securityWarning"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText); // a server name from a kubeconfig is not markup
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #664d03; "
                                 "border-bottom: 1px solid #d39e00; padding: 4px 8px; }"));
    setVisible(false);
}

void SecurityBanner::setWarnings(const QStringList& warnings) {
    m_warnings = warnings;
    QStringList lines;
    for (const QString& w : warnings)
        lines << tr("Warning: %1").arg(w);
    setText(lines.join(u'\n'));
    setToolTip(warnings.isEmpty() ? QString()
                                  : tr("This connection is not as secure as it could be"));
    setVisible(!warnings.isEmpty());
}

} // namespace ws
