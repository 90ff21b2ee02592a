#include "SessionStatusBar.h"

#include "viewstate/SessionStatus.h"

#include <QLabel>

namespace ws {

SessionStatusBar::SessionStatusBar(QWidget* parent)
    : QStatusBar(parent), m_stateLabel(new QLabel(tr("Waiting for data"))),
      m_recordLabel(new QLabel), m_timeLabel(new QLabel), m_eventsLabel(new QLabel),
      m_rateLabel(new QLabel), m_anomalyCountLabel(new QLabel) {
    addWidget(m_stateLabel, 1);
    m_recordLabel->setObjectName(QStringLiteral("recordingStatus"));
    m_recordLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_recordLabel->setVisible(false);
    addPermanentWidget(m_recordLabel);
    for (QLabel* l : {m_timeLabel, m_eventsLabel, m_rateLabel, m_anomalyCountLabel}) {
        l->setMinimumWidth(l->fontMetrics().horizontalAdvance(QStringLiteral("0")) * 16);
        l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        addPermanentWidget(l);
    }
    m_anomalyCountLabel->setText(tr("anomalies 0"));
}

void SessionStatusBar::showStatus(const SessionStatus& status) {
    m_stateLabel->setText(status.stateText());
    const QString style = status.isError() ? QStringLiteral("color: #b00020;") : QString();
    if (m_stateLabel->styleSheet() != style) // a style sheet re-polishes: only on a change
        m_stateLabel->setStyleSheet(style);
    m_timeLabel->setText(status.timeText());
    m_eventsLabel->setText(status.eventsText());
    m_rateLabel->setText(status.rateText());
}

void SessionStatusBar::setAnomalyCount(const QString& text, const QString& toolTip) {
    m_anomalyCountLabel->setText(text);
    m_anomalyCountLabel->setToolTip(toolTip);
}

QString SessionStatusBar::anomalyCountText() const {
    return m_anomalyCountLabel->text();
}

QString SessionStatusBar::stateText() const {
    return m_stateLabel->text();
}

void SessionStatusBar::setRecordingStatus(const QString& text) {
    m_recordLabel->setText(text);
    m_recordLabel->setVisible(!text.isEmpty());
}

QString SessionStatusBar::recordingStatus() const {
    return m_recordLabel->text();
}

} // namespace ws
