#pragma once

#include "model/ResourceVersion.h"

#include <QToolBar>

class QAction;
class QComboBox;
class QLabel;
class QProgressBar;
class QSlider;

namespace ws {

// The controls of a capture being replayed: play/pause, speed (0.5×, 1×, 2×, 10×, max) and a
// time slider over the capture's recorded duration, with the progress of a seek. Only says what
// was asked (signals); ReplayController does it. Shown by the window while a capture plays.
class ReplayBar : public QToolBar {
    Q_OBJECT
public:
    explicit ReplayBar(QWidget* parent = nullptr);

    QAction* playPauseAction() const { return m_playPause; }
    QComboBox* speedChooser() const { return m_speed; }
    QSlider* slider() const { return m_slider; }
    QLabel* timeLabel() const { return m_time; }
    QProgressBar* seekProgress() const { return m_progress; }
    bool isPaused() const { return m_paused; }
    double speed() const; // 0: as fast as possible
    TimeUs duration() const { return m_duration; }

public slots:
    // < 0: not known yet (being measured).
    void setDuration(TimeUs duration);
    void setPosition(TimeUs position);
    void setPaused(bool paused);
    void setSpeed(double speed);
    // A seek under way from `from` to `target`, now at `position`; target < 0 ends it.
    void showSeek(TimeUs from, TimeUs target, TimeUs position);

signals:
    void pauseRequested(bool paused);
    void speedRequested(double speed);
    void seekRequested(ws::TimeUs target);

private:
    void updateTimeText();

    QAction* m_playPause = nullptr;
    QComboBox* m_speed = nullptr;
    QSlider* m_slider = nullptr;
    QLabel* m_time = nullptr;
    QProgressBar* m_progress = nullptr;
    QAction* m_progressItem = nullptr;
    bool m_paused = false;
    bool m_settingPosition = false;
    TimeUs m_duration = -1;
    TimeUs m_position = 0;
};

} // namespace ws
