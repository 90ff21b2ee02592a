#include "ReplayBar.h"

#include <algorithm>

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QSlider>
#include <QStyle>

namespace ws {

namespace {
struct SpeedChoice {
    const char* label;
    double speed;
};
constexpr SpeedChoice kSpeeds[] = {{"0.5×", 0.5}, {"1×", 1}, {"2×", 2}, {"10×", 10}, {"max", 0}};

QString seconds(TimeUs t) {
    return QString::number(double(t) / double(kUsPerSecond), 'f', 1);
}
} // namespace

ReplayBar::ReplayBar(QWidget* parent) : QToolBar(tr("Replay"), parent) {
    setObjectName(QStringLiteral("replayToolBar"));
    setMovable(false);
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

    addWidget(new QLabel(tr(" Replay: ")));
    m_playPause = addAction(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause"));
    m_playPause->setObjectName(QStringLiteral("replayPlayPause"));
    m_playPause->setToolTip(tr("Pause or play the capture (Space)"));
    m_playPause->setShortcut(QKeySequence(Qt::Key_Space));
    m_playPause->setShortcutContext(Qt::WindowShortcut);
    connect(m_playPause, &QAction::triggered, this, [this] { emit pauseRequested(!m_paused); });

    addWidget(new QLabel(tr("  Speed: ")));
    m_speed = new QComboBox;
    for (const SpeedChoice& s : kSpeeds)
        m_speed->addItem(QString::fromUtf8(s.label), s.speed);
    m_speed->setCurrentIndex(1);
    connect(m_speed, &QComboBox::activated, this,
            [this](int index) { emit speedRequested(m_speed->itemData(index).toDouble()); });
    addWidget(m_speed);
    // Keys step through the same choices as the box (faster: Ctrl+], slower: Ctrl+[).
    const auto stepSpeed = [this](int step) {
        const int index = std::clamp(m_speed->currentIndex() + step, 0, m_speed->count() - 1);
        if (index == m_speed->currentIndex())
            return;
        m_speed->setCurrentIndex(index);
        emit speedRequested(m_speed->itemData(index).toDouble());
    };
    auto* faster = new QAction(tr("Faster"), this);
    faster->setObjectName(QStringLiteral("replayFaster"));
    faster->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketRight));
    faster->setShortcutContext(Qt::WindowShortcut);
    connect(faster, &QAction::triggered, this, [stepSpeed] { stepSpeed(+1); });
    auto* slower = new QAction(tr("Slower"), this);
    slower->setObjectName(QStringLiteral("replaySlower"));
    slower->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketLeft));
    slower->setShortcutContext(Qt::WindowShortcut);
    connect(slower, &QAction::triggered, this, [stepSpeed] { stepSpeed(-1); });
    // On the box, not the bar (a tool bar turns its actions into buttons): active while shown.
    m_speed->addAction(faster);
    m_speed->addAction(slower);
    m_speed->setToolTip(
        tr("Recorded seconds per second; max: as fast as the machine can (Ctrl+] faster, "
           "Ctrl+[ slower)"));

    addWidget(new QLabel(QStringLiteral("  ")));
    m_slider = new QSlider(Qt::Horizontal);
    m_slider->setObjectName(QStringLiteral("replaySlider"));
    m_slider->setMinimumWidth(360);
    m_slider->setEnabled(false);
    m_slider->setToolTip(tr("Recorded time: drag or click to go there (the capture is replayed "
                            "from its start when going back)"));
    connect(m_slider, &QSlider::sliderReleased, this,
            [this] { emit seekRequested(TimeUs(m_slider->value()) * kUsPerMs); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
        if (m_settingPosition || m_slider->isSliderDown())
            return; // the position shown, or a drag: released says where
        emit seekRequested(TimeUs(value) * kUsPerMs);
    });
    addWidget(m_slider);

    m_time = new QLabel;
    m_time->setMinimumWidth(
        m_time->fontMetrics().horizontalAdvance(QStringLiteral("  0000.0 s / 0000.0 s  ")));
    m_time->setAlignment(Qt::AlignCenter);
    addWidget(m_time);

    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("replaySeekProgress"));
    m_progress->setMaximumWidth(220);
    m_progress->setRange(0, 1000);
    m_progressItem = addWidget(m_progress);
    m_progressItem->setVisible(false);
    updateTimeText();
}

double ReplayBar::speed() const {
    return m_speed->currentData().toDouble();
}

void ReplayBar::setDuration(TimeUs duration) {
    m_duration = duration;
    m_settingPosition = true;
    m_slider->setEnabled(duration > 0);
    m_slider->setRange(0, duration > 0 ? int(duration / kUsPerMs) : 0);
    m_slider->setPageStep(std::max(1, int(duration / kUsPerMs / 20)));
    m_slider->setValue(int(m_position / kUsPerMs));
    m_settingPosition = false;
    updateTimeText();
}

void ReplayBar::setPosition(TimeUs position) {
    m_position = position;
    if (!m_slider->isSliderDown()) {
        m_settingPosition = true;
        m_slider->setValue(int(position / kUsPerMs));
        m_settingPosition = false;
    }
    updateTimeText();
}

void ReplayBar::setPaused(bool paused) {
    m_paused = paused;
    m_playPause->setText(paused ? tr("Play") : tr("Pause"));
    m_playPause->setIcon(
        style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
}

void ReplayBar::setSpeed(double speed) {
    const int index = m_speed->findData(speed);
    if (index >= 0)
        m_speed->setCurrentIndex(index);
}

void ReplayBar::showSeek(TimeUs from, TimeUs target, TimeUs position) {
    if (target < 0) {
        m_progressItem->setVisible(false);
        return;
    }
    const TimeUs span = std::max<TimeUs>(1, target - from);
    m_progress->setValue(int(std::clamp<TimeUs>((position - from) * 1000 / span, 0, 1000)));
    m_progress->setFormat(tr("Seeking to %1 s: %p%").arg(seconds(target)));
    m_progressItem->setVisible(true);
}

void ReplayBar::updateTimeText() {
    m_time->setText(m_duration < 0
                        ? tr("%1 s / … s").arg(seconds(m_position))
                        : tr("%1 s / %2 s").arg(seconds(m_position), seconds(m_duration)));
}

} // namespace ws
