#include "SessionStatusBar.h"

#include "util/ProcessMemory.h"
#include "viewstate/SessionStatus.h"

#include <QLabel>
#include <QLocale>
#include <QStringList>

namespace ws {

SessionStatusBar::SessionStatusBar(QWidget* parent)
    : QStatusBar(parent), m_stateLabel(new QLabel(tr("Waiting for data"))),
      m_recordLabel(new QLabel), m_flowLabel(new QLabel), m_timeLabel(new QLabel),
      m_eventsLabel(new QLabel), m_rateLabel(new QLabel), m_anomalyCountLabel(new QLabel),
      m_memoryLabel(new QLabel), m_figures(kFiguresIntervalMs, [this] { showFigures(); }) {
    addWidget(m_stateLabel, 1);
    m_recordLabel->setObjectName(QStringLiteral("recordingStatus"));
    m_recordLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_recordLabel->setVisible(false);
    addPermanentWidget(m_recordLabel);
    m_flowLabel->setObjectName(QStringLiteral("flowStatus"));
    m_flowLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_flowLabel->setVisible(false);
    addPermanentWidget(m_flowLabel);
    for (QLabel* l : {m_timeLabel, m_eventsLabel, m_rateLabel, m_anomalyCountLabel}) {
        l->setMinimumWidth(l->fontMetrics().horizontalAdvance(QStringLiteral("0")) * 16);
        l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        addPermanentWidget(l);
    }
    m_anomalyCountLabel->setText(tr("anomalies 0"));
    m_memoryLabel->setObjectName(QStringLiteral("memoryStatus"));
    m_memoryLabel->setToolTip(tr("Memory this program uses (resident set)"));
    addPermanentWidget(m_memoryLabel);

    m_memoryTimer.setInterval(kMemoryIntervalMs);
    connect(&m_memoryTimer, &QTimer::timeout, this, &SessionStatusBar::showMemory);
    m_memoryTimer.start();
    showMemory();
}

void SessionStatusBar::showStatus(const SessionStatus& status) {
    m_stateLabel->setText(status.stateText());
    const QString style = status.isError() ? QStringLiteral("color: #b00020;") : QString();
    if (m_stateLabel->styleSheet() != style) // a style sheet re-polishes: only on a change
        m_stateLabel->setStyleSheet(style);
    m_time = status.timeText();
    m_events = status.eventsText();
    m_rate = status.rateText();
    m_figures.request();
}

void SessionStatusBar::showFigures() {
    m_timeLabel->setText(m_time); // QLabel repaints only when the text differs
    m_eventsLabel->setText(m_events);
    m_rateLabel->setText(m_rate);
}

QString SessionStatusBar::figuresText() const {
    return m_timeLabel->text() + QLatin1String(" | ") + m_eventsLabel->text() +
           QLatin1String(" | ") + m_rateLabel->text();
}

void SessionStatusBar::showMemory() {
    const qint64 bytes = residentMemoryBytes();
    // Whole MB: a figure that flickers in its last digit says nothing more.
    m_memoryLabel->setText(
        bytes < 0 ? QString()
                  : tr("memory %1 MB").arg(QLocale::system().toString(bytes / 1000000)));
}

QString SessionStatusBar::memoryText() const {
    return m_memoryLabel->text();
}

void SessionStatusBar::setAnomalyCount(const QString& text, const QString& toolTip) {
    m_anomalyCountLabel->setText(text);
    m_anomalyCountLabel->setToolTip(toolTip);
}

void SessionStatusBar::setFlow(const FlowStats& flow) {
    const QLocale locale = QLocale::system();
    QStringList parts;
    if (flow.captureFramesDropped > 0)
        parts << tr("%1 capture frames").arg(locale.toString(flow.captureFramesDropped));
    if (flow.exportLinesDropped > 0)
        parts << tr("%1 file lines").arg(locale.toString(flow.exportLinesDropped));
    if (flow.anomaliesDropped > 0)
        parts << tr("%1 anomalies").arg(locale.toString(flow.anomaliesDropped));
    if (flow.pointsDropped > 0)
        parts << tr("%1 samples").arg(locale.toString(flow.pointsDropped));
    QString text = parts.isEmpty() ? QString() : tr("dropped %1").arg(parts.join(u", "));
    // Not dropped: the list, the incidents and the files had them as they came; only the
    // session's own bounded copy (Session::anomalies()) lacks them.
    if (flow.anomaliesNotKept > 0) {
        const QString notKept = tr("%1 older anomalies not kept in the session's memory")
                                    .arg(locale.toString(flow.anomaliesNotKept));
        text = text.isEmpty() ? notKept : tr("%1; %2").arg(text, notKept);
    }
    if (!flow.fileError.isEmpty())
        text = text.isEmpty() ? tr("file error") : tr("%1; file error").arg(text);
    if (text == m_flowLabel->text())
        return;
    m_flowLabel->setText(text);
    m_flowLabel->setVisible(!text.isEmpty());
    m_flowLabel->setToolTip(
        tr("Slower consumers never hold the engine back or make it grow: %1.\n"
           "Capture and export files drop what the disk cannot take in time (a capture marks "
           "the place, its replay says so); the window drops the oldest anomalies and samples "
           "of the updates it fell behind on; sources wait for the engine (%2 times, %3 ms).\n"
           "The session itself keeps a bounded number of anomalies in memory (the oldest of the "
           "most numerous kinds go first; %4 so far): every one reached the anomaly list, the "
           "incidents' counts and the files as it came.")
            .arg(flow.summary().isEmpty() ? tr("nothing dropped") : flow.summary())
            .arg(flow.transportStalls)
            .arg(flow.transportStalledMs)
            .arg(locale.toString(flow.anomaliesNotKept)));
}

QString SessionStatusBar::flowText() const {
    return m_flowLabel->text();
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
