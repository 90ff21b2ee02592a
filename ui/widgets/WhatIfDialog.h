#pragma once

#include "engine/SourceSpec.h"

#include <QDialog>
#include <optional>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace ws {

class AnomalyFilterProxy;
class AnomalyListModel;
class WhatIfKindModel;
class WhatIfRun;

// "What if this capture had run under other versions?": a server version, a client-go and the
// feature gates the server profiles model (each left empty / "keep" to keep the recorded one).
// Compare replays the capture twice to its end on a worker thread (WhatIfRun), as recorded and
// under those versions, with its progress and a Cancel; then the anomaly counts by kind side by
// side (WhatIfKindModel: which kinds are gone, which only come with the other versions) and the
// anomalies of the selected kind in both runs. "Replay under these versions" asks for the
// capture to be replayed in the window under the compared versions (replayRequested), so its
// charts can be looked at. Errors (a version the profiles do not model) are one line here.
class WhatIfDialog : public QDialog {
    Q_OBJECT
public:
    // `capture`: the spec of the capture being replayed; its whatIf (a what-if replay) fills
    // the fields.
    explicit WhatIfDialog(const SourceSpec& capture, QWidget* parent = nullptr);
    ~WhatIfDialog() override;

    QString capturePath() const { return m_capture.capture; }
    // What the fields say: empty fields and "keep" gates left out.
    ScenarioOverrides overrides() const;
    bool running() const;
    // The recorded duration, for the progress bar (< 0: not known, the bar only moves).
    void setCaptureDuration(qint64 duration);

    // For tests and scripted use.
    QComboBox* serverVersionChooser() const { return m_server; }
    QComboBox* clientGoChooser() const { return m_clientGo; }
    QComboBox* gateChooser(const QString& gate) const; // WatchList, SeparateCacheWatchRPC, ...
    QPushButton* compareButton() const { return m_compare; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* replayButton() const { return m_replay; }
    QLabel* statusLabel() const { return m_status; }
    QLabel* progressLabel() const { return m_progressText; }
    QTableView* kindView() const { return m_kindView; }
    WhatIfKindModel* kindModel() const { return m_kinds; }
    AnomalyListModel* recordedAnomalies() const { return m_recorded; }
    AnomalyListModel* whatIfAnomalies() const { return m_whatIf; }
    AnomalyFilterProxy* recordedProxy() const { return m_recordedProxy; }
    AnomalyFilterProxy* whatIfProxy() const { return m_whatIfProxy; }
    // The kind whose anomalies the two lists show; empty: every kind.
    QString selectedKind() const { return m_selectedKind; }

public slots:
    void compare(); // what "Compare" does
    void cancel();  // what "Cancel" does while comparing
    // Shows the anomalies of one kind in both lists (selects its row); empty: every kind.
    void selectKind(const QString& kind);
    // A request from here that did not happen (the replay could not be opened).
    void showError(const QString& message);

signals:
    // "Replay under these versions": the capture with whatIf set, to replay in the window.
    void replayRequested(const ws::SourceSpec& spec);
    // After a comparison ends: its result (or error) is shown.
    void comparisonFinished(bool ok);

private:
    void onProgress(int run, qint64 now);
    void onFinished();
    void onFailed(const QString& message);
    void setBusy(bool busy);
    void updateButtons();
    void showProgress();
    void clearResult();

    SourceSpec m_capture;
    std::optional<ScenarioOverrides> m_recordedVersions;
    ScenarioOverrides m_asked;                   // the versions of the comparison under way
    std::optional<ScenarioOverrides> m_compared; // the versions of the result shown
    WhatIfRun* m_run;
    WhatIfKindModel* m_kinds;
    QSortFilterProxyModel* m_kindProxy;
    AnomalyListModel* m_recorded;
    AnomalyListModel* m_whatIf;
    AnomalyFilterProxy* m_recordedProxy;
    AnomalyFilterProxy* m_whatIfProxy;
    qint64 m_duration = -1;
    qint64 m_progress[2] = {0, 0};
    QString m_selectedKind;
    bool m_settingKind = false;

    QComboBox* m_server = nullptr;
    QComboBox* m_clientGo = nullptr;
    QComboBox* m_etcd = nullptr;
    QComboBox* m_cluster = nullptr; // etcd captures only
    QList<QComboBox*> m_gates;
    QPushButton* m_compare = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QLabel* m_progressText = nullptr;
    QLabel* m_status = nullptr;
    QTableView* m_kindView = nullptr;
    QLabel* m_recordedTitle = nullptr;
    QLabel* m_whatIfTitle = nullptr;
    QTableView* m_recordedView = nullptr;
    QTableView* m_whatIfView = nullptr;
    QPushButton* m_replay = nullptr;
};

} // namespace ws
