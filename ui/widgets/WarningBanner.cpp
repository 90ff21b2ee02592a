#include "WarningBanner.h"

namespace ws {

WarningBanner::WarningBanner(QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("securityWarning"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText); // a server name from a kubeconfig is not markup
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #664d03; "
                                 "border-bottom: 1px solid #d39e00; padding: 4px 8px; }"));
    setVisible(false);
}

void WarningBanner::setSecurityWarnings(const QStringList& warnings) {
    m_security = warnings;
    render();
}

void WarningBanner::setSessionWarnings(const QStringList& warnings) {
    m_session = warnings;
    render();
}

void WarningBanner::render() {
    QStringList lines;
    for (const QString& w : m_security + m_session)
        lines << tr("Warning: %1").arg(w);
    setText(lines.join(u'\n'));
    setToolTip(!m_security.isEmpty()  ? tr("This connection is not as secure as it could be")
               : !m_session.isEmpty() ? tr("What this session goes on without")
                                      : QString());
    setVisible(!lines.isEmpty());
}

} // namespace ws
