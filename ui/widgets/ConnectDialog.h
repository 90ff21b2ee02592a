#pragma once

#include "engine/SourceSpec.h"
#include "sources/cluster/ClusterProbe.h"

#include <QDialog>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QRadioButton;

namespace ws {

class ConnectionProbe;

// Connects the window to a cluster as kubectl would reach it: a kubeconfig's contexts (the
// current one first) or API server URLs, a client-go version, and the resources the server
// offers. "Connect" asks the cluster (discovery, on a worker thread: the window keeps drawing)
// and either lists its resources or says in place, in one line, why it cannot; "Watch" accepts
// with spec(). Recent connections (set by whoever accepts) fill every field in one pick.
class ConnectDialog : public QDialog {
    Q_OBJECT
public:
    ConnectDialog(const QList<SourceSpec>& recent, QWidget* parent = nullptr);
    ~ConnectDialog() override;

    // What to watch, valid once accepted: --kubeconfig/--context or --server, --client-go and
    // --resources (empty when every offered resource is checked).
    SourceSpec spec() const;

    // For tests and scripted use.
    QComboBox* recentChooser() const { return m_recent; }
    QLineEdit* kubeconfigEdit() const { return m_kubeconfig; }
    QComboBox* contextChooser() const { return m_context; }
    QRadioButton* serversMode() const { return m_serversMode; }
    QLineEdit* serversEdit() const { return m_servers; }
    QComboBox* clientGoChooser() const { return m_clientGo; }
    QLineEdit* namespaceEdit() const { return m_namespace; }
    QListWidget* resourceList() const { return m_resourceList; }
    QLabel* statusLabel() const { return m_status; }
    QPushButton* connectButton() const { return m_connect; }
    QPushButton* watchButton() const { return m_watch; }
    bool probing() const;
    // The context names in the order shown (current first).
    QStringList contextsShown() const;

public slots:
    void reloadKubeconfig();
    void probe();                // what "Connect" does
    void applyRecent(int index); // fills the fields from a recent connection and connects
    void setAllResourcesChecked(bool checked);

signals:
    void probeFinished(bool ok); // after the list or the error is shown

private:
    SourceSpec connectionSpec() const; // the fields, without resources
    void onProbeFinished(const ClusterProbeResult& result);
    void invalidate(); // a field changed: what was discovered no longer applies
    void setBusy(bool busy);
    void showError(const QString& message);
    void updateModeWidgets();
    void updateWatchButton();
    void filterResources(const QString& text);

    QList<SourceSpec> m_recentSpecs;
    QStringList m_wantedResources; // from a recent connection, checked after its probe
    ConnectionProbe* m_probe;
    QString m_connectingText; // "Connecting to …" of the probe under way
    QString m_pluginSaid;     // what its credential plugin wrote on stderr so far

    QComboBox* m_recent = nullptr;
    QRadioButton* m_contextMode = nullptr;
    QRadioButton* m_serversMode = nullptr;
    QLineEdit* m_kubeconfig = nullptr;
    QComboBox* m_context = nullptr;
    QLabel* m_contextServer = nullptr;
    QLineEdit* m_servers = nullptr;
    QCheckBox* m_serversUseContext = nullptr;
    QComboBox* m_clientGo = nullptr;
    QLineEdit* m_namespace = nullptr;
    QPushButton* m_connect = nullptr;
    QProgressBar* m_busy = nullptr;
    QLabel* m_status = nullptr;
    QLineEdit* m_resourceFilter = nullptr;
    QListWidget* m_resourceList = nullptr;
    QPushButton* m_watch = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    bool m_filling = false; // fields set by code: not an edit that invalidates
};

} // namespace ws
