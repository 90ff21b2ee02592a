#include "ConnectDialog.h"

#include "kube/ClientProfile.h"
#include "session/ConnectionProbe.h"
#include "session/ExecPluginOutput.h"
#include "session/RecentConnections.h"
#include "sources/cluster/kubeconfig/Kubeconfig.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace ws {

namespace {
constexpr int kQualifiedNameRole = Qt::UserRole + 1;

QString defaultKubeconfigText() {
    const QByteArray env = qgetenv("KUBECONFIG");
    if (!env.isEmpty())
        return QStringLiteral("$KUBECONFIG (%1)").arg(QString::fromLocal8Bit(env));
    return QStringLiteral("~/.kube/config");
}
} // namespace

ConnectDialog::ConnectDialog(const QList<SourceSpec>& recent, QWidget* parent)
    : QDialog(parent), m_recentSpecs(recent), m_probe(new ConnectionProbe(this)) {
    setWindowTitle(tr("Connect to a cluster"));
    setObjectName(QStringLiteral("connectDialog"));

    m_recent = new QComboBox;
    m_recent->setObjectName(QStringLiteral("recentConnections"));
    m_recent->addItem(m_recentSpecs.isEmpty() ? tr("none yet") : tr("Pick one…"));
    for (const SourceSpec& s : m_recentSpecs)
        m_recent->addItem(RecentConnections::label(s));
    m_recent->setEnabled(!m_recentSpecs.isEmpty());
    connect(m_recent, &QComboBox::activated, this, [this](int index) {
        if (index > 0)
            applyRecent(index - 1);
    });

    m_contextMode = new QRadioButton(tr("A kubeconfig context"));
    m_serversMode = new QRadioButton(tr("API server URLs (apiservers of one cluster)"));
    m_contextMode->setChecked(true);
    auto* modes = new QButtonGroup(this);
    modes->addButton(m_contextMode);
    modes->addButton(m_serversMode);
    connect(m_contextMode, &QRadioButton::toggled, this, [this] {
        updateModeWidgets();
        invalidate();
    });

    m_kubeconfig = new QLineEdit;
    m_kubeconfig->setObjectName(QStringLiteral("kubeconfigPath"));
    m_kubeconfig->setPlaceholderText(defaultKubeconfigText());
    m_kubeconfig->setClearButtonEnabled(true);
    connect(m_kubeconfig, &QLineEdit::editingFinished, this, &ConnectDialog::reloadKubeconfig);
    auto* browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, [this] {
        auto* files = new QFileDialog(this, tr("Kubeconfig file"),
                                      m_kubeconfig->text().isEmpty()
                                          ? QDir::homePath() + QStringLiteral("/.kube")
                                          : QFileInfo(m_kubeconfig->text()).absolutePath());
        files->setFileMode(QFileDialog::ExistingFile);
        files->setAttribute(Qt::WA_DeleteOnClose);
        connect(files, &QFileDialog::fileSelected, this, [this](const QString& path) {
            m_kubeconfig->setText(path);
            reloadKubeconfig();
        });
        files->open();
    });
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(m_kubeconfig, 1);
    fileRow->addWidget(browse);

    m_context = new QComboBox;
    m_context->setObjectName(QStringLiteral("context"));
    m_context->setMinimumContentsLength(28);
    m_contextServer = new QLabel;
    m_contextServer->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_context, &QComboBox::currentIndexChanged, this, [this] {
        m_contextServer->setText(m_context->currentData(Qt::ToolTipRole).toString());
        invalidate();
    });

    m_servers = new QLineEdit;
    m_servers->setObjectName(QStringLiteral("servers"));
    m_servers->setPlaceholderText(tr("https://10.0.0.1:6443, https://10.0.0.2:6443"));
    connect(m_servers, &QLineEdit::textEdited, this, &ConnectDialog::invalidate);
    m_serversUseContext = new QCheckBox(tr("with the credentials of the context above"));
    m_serversUseContext->setChecked(true);
    connect(m_serversUseContext, &QCheckBox::toggled, this, &ConnectDialog::invalidate);

    m_clientGo = new QComboBox;
    m_clientGo->setObjectName(QStringLiteral("clientGo"));
    m_clientGo->addItem(tr("0.35 — current, watch-list, protobuf (default)"), QString());
    for (const QString& name : ClientProfile::knownNames())
        if (name != QLatin1String("0.35"))
            m_clientGo->addItem(name, name);
    m_clientGo->setToolTip(
        tr("Which client-go the informers behave as: its list, watch, retry and relist rules, "
           "and its wire (from 0.32 built-in resources are listed and watched as protobuf, as "
           "typed clientsets ask)"));
    connect(m_clientGo, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            m_status->setText(m_resourceList->count() > 0 ? m_status->text() : QString());
    });

    m_namespace = new QLineEdit;
    m_namespace->setObjectName(QStringLiteral("namespace"));
    m_namespace->setPlaceholderText(tr("all namespaces"));
    m_namespace->setToolTip(tr("List and watch namespaced resources in this namespace only, as "
                               "kubectl -n (cluster-scoped ones are left out)"));

    m_connect = new QPushButton(tr("&Connect"));
    m_connect->setObjectName(QStringLiteral("connectButton"));
    m_connect->setDefault(true);
    connect(m_connect, &QPushButton::clicked, this, [this] {
        if (probing()) {
            m_probe->cancel();
            setBusy(false);
            m_status->setText(tr("Cancelled."));
            return;
        }
        probe();
    });
    m_busy = new QProgressBar;
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("connectStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* connectRow = new QHBoxLayout;
    connectRow->addWidget(m_connect);
    connectRow->addWidget(m_busy);
    connectRow->addWidget(m_status, 1);

    m_resourceFilter = new QLineEdit;
    m_resourceFilter->setPlaceholderText(tr("Filter resources"));
    m_resourceFilter->setClearButtonEnabled(true);
    connect(m_resourceFilter, &QLineEdit::textChanged, this, &ConnectDialog::filterResources);
    auto* all = new QPushButton(tr("All"));
    auto* none = new QPushButton(tr("None"));
    connect(all, &QPushButton::clicked, this, [this] { setAllResourcesChecked(true); });
    connect(none, &QPushButton::clicked, this, [this] { setAllResourcesChecked(false); });
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(m_resourceFilter, 1);
    filterRow->addWidget(all);
    filterRow->addWidget(none);
    m_resourceList = new QListWidget;
    m_resourceList->setObjectName(QStringLiteral("resources"));
    m_resourceList->setMinimumHeight(180);
    connect(m_resourceList, &QListWidget::itemChanged, this, &ConnectDialog::updateWatchButton);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_watch = m_buttons->addButton(tr("&Watch"), QDialogButtonBox::AcceptRole);
    m_watch->setObjectName(QStringLiteral("watchButton"));
    m_watch->setEnabled(false);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* form = new QFormLayout;
    form->addRow(tr("Recent:"), m_recent);
    form->addRow(m_contextMode);
    form->addRow(tr("Kubeconfig:"), fileRow);
    form->addRow(tr("Context:"), m_context);
    form->addRow(QString(), m_contextServer);
    form->addRow(m_serversMode);
    form->addRow(tr("Servers:"), m_servers);
    form->addRow(QString(), m_serversUseContext);
    form->addRow(tr("client-go:"), m_clientGo);
    form->addRow(tr("Namespace:"), m_namespace);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(connectRow);
    layout->addWidget(new QLabel(tr("Resources to watch:")));
    layout->addLayout(filterRow);
    layout->addWidget(m_resourceList, 1);
    layout->addWidget(m_buttons);
    resize(620, 640);

    connect(m_probe, &ConnectionProbe::finished, this, &ConnectDialog::onProbeFinished);
    // A device-code or SSO login says on stderr where to sign in, and waits: show it while the
    // connection waits for the plugin.
    if (ExecPluginOutput* plugins = ExecPluginOutput::instance())
        connect(plugins, &ExecPluginOutput::text, this,
                [this](const QString& plugin, const QString& text) {
                    if (!probing())
                        return;
                    m_pluginSaid = (m_pluginSaid + text).right(1000);
                    m_status->setText(tr("%1\nThe credential plugin %2 says:\n%3")
                                          .arg(m_connectingText, plugin, m_pluginSaid.trimmed()));
                });
    updateModeWidgets();
    reloadKubeconfig();
}

ConnectDialog::~ConnectDialog() = default;

bool ConnectDialog::probing() const {
    return m_probe->running();
}

QStringList ConnectDialog::contextsShown() const {
    QStringList out;
    for (int i = 0; i < m_context->count(); ++i)
        out << m_context->itemData(i).toString();
    return out;
}

void ConnectDialog::reloadKubeconfig() {
    const QString keep = m_context->currentData().toString();
    m_filling = true;
    m_context->clear();
    QString error;
    const auto config = Kubeconfig::load(m_kubeconfig->text().trimmed(), &error);
    if (!config) {
        m_filling = false;
        m_contextServer->clear();
        if (!m_serversMode->isChecked() || m_serversUseContext->isChecked())
            showError(error);
        invalidate();
        return;
    }
    // The current context first: it is what kubectl would use.
    QStringList names = config->contextNames();
    const QString current = config->currentContext();
    if (names.removeOne(current))
        names.prepend(current);
    for (const QString& name : names) {
        QString ignored;
        const auto target = config->target(name, &ignored);
        m_context->addItem(name == current ? tr("%1 (current)").arg(name) : name, name);
        m_context->setItemData(m_context->count() - 1,
                               target ? target->server.toString(QUrl::RemoveUserInfo)
                                      : tr("unusable: %1").arg(ignored),
                               Qt::ToolTipRole);
    }
    const int kept = m_context->findData(keep);
    m_context->setCurrentIndex(kept >= 0 ? kept : 0);
    m_contextServer->setText(m_context->currentData(Qt::ToolTipRole).toString());
    m_filling = false;
    if (names.isEmpty())
        showError(tr("%1 has no contexts").arg(config->files().join(QStringLiteral(", "))));
    else
        m_status->clear();
    invalidate();
}

SourceSpec ConnectDialog::connectionSpec() const {
    SourceSpec s;
    s.kubeconfig = m_kubeconfig->text().trimmed();
    s.clientGo = m_clientGo->currentData().toString();
    s.namespaceScope = m_namespace->text().trimmed();
    if (m_serversMode->isChecked()) {
        s.kind = SourceSpec::Kind::Server;
        s.servers = m_servers->text().split(QRegularExpression(QStringLiteral("[,\\s]+")),
                                            Qt::SkipEmptyParts);
        // The context names whose credentials (and CA) reach the servers; without it no
        // kubeconfig is read at all.
        if (m_serversUseContext->isChecked() && m_context->count() > 0)
            s.context = m_context->currentData().toString();
        else
            s.kubeconfig.clear();
    } else {
        s.kind = SourceSpec::Kind::Kubeconfig;
        s.context = m_context->currentData().toString();
    }
    return s;
}

SourceSpec ConnectDialog::spec() const {
    SourceSpec s = connectionSpec();
    QStringList checked;
    bool every = true;
    for (int i = 0; i < m_resourceList->count(); ++i) {
        const QListWidgetItem* item = m_resourceList->item(i);
        if (item->checkState() == Qt::Checked)
            checked << item->data(kQualifiedNameRole).toString();
        else
            every = false;
    }
    if (!every)
        s.resources = checked;
    return s;
}

void ConnectDialog::probe() {
    const SourceSpec s = connectionSpec();
    if (s.kind == SourceSpec::Kind::Server && s.servers.isEmpty()) {
        showError(tr("Enter at least one API server URL."));
        return;
    }
    if (!s.namespaceScope.isEmpty()) {
        if (const QString problem = SourceSpec::namespaceProblem(s.namespaceScope);
            !problem.isEmpty()) {
            showError(tr("Namespace: %1").arg(problem));
            return;
        }
    }
    if (s.kind == SourceSpec::Kind::Kubeconfig && m_context->count() == 0) {
        reloadKubeconfig(); // says why there is nothing to connect to
        if (m_context->count() == 0)
            return;
    }
    m_resourceList->clear();
    updateWatchButton();
    setBusy(true);
    m_status->setStyleSheet(QString());
    m_connectingText =
        tr("Connecting to %1…")
            .arg(s.kind == SourceSpec::Kind::Server ? s.servers.join(QStringLiteral(", "))
                                                    : m_contextServer->text());
    m_pluginSaid.clear();
    m_status->setText(m_connectingText);
    m_probe->start(s);
}

void ConnectDialog::onProbeFinished(const ClusterProbeResult& result) {
    setBusy(false);
    if (!result.ok) {
        showError(result.error);
        m_wantedResources.clear();
        emit probeFinished(false);
        return;
    }
    m_resourceList->blockSignals(true);
    for (const ResourceInfo& r : result.resources) {
        auto* item =
            new QListWidgetItem(QStringLiteral("%1   (%2 %3%4)")
                                    .arg(r.qualifiedName(), r.groupVersion(), r.kind,
                                         r.namespaced ? QString() : tr(", cluster-scoped")));
        item->setData(kQualifiedNameRole, r.qualifiedName());
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
        const bool wanted = m_wantedResources.isEmpty() ||
                            m_wantedResources.contains(r.qualifiedName()) ||
                            m_wantedResources.contains(r.plural);
        item->setCheckState(wanted ? Qt::Checked : Qt::Unchecked);
        m_resourceList->addItem(item);
    }
    m_resourceList->sortItems();
    m_resourceList->blockSignals(false);
    m_wantedResources.clear();
    filterResources(m_resourceFilter->text());
    const int n = int(result.resources.size());
    QString text = tr("Connected: kube-apiserver %1, %2 %3 to list and watch.")
                       .arg(result.serverVersions.join(QStringLiteral(", ")), QString::number(n),
                            n == 1 ? tr("resource") : tr("resources"));
    for (const QString& w : result.warnings)
        text += QStringLiteral("\n⚠ ") + w;
    m_status->setStyleSheet(result.warnings.isEmpty() ? QString()
                                                      : QStringLiteral("color: #a05a00;"));
    m_status->setText(text);
    updateWatchButton();
    emit probeFinished(true);
}

void ConnectDialog::applyRecent(int index) {
    if (index < 0 || index >= m_recentSpecs.size())
        return;
    const SourceSpec& s = m_recentSpecs[index];
    m_filling = true;
    m_kubeconfig->setText(s.kubeconfig);
    if (s.kind == SourceSpec::Kind::Server) {
        m_serversMode->setChecked(true);
        m_servers->setText(s.servers.join(QStringLiteral(", ")));
        m_serversUseContext->setChecked(!s.kubeconfig.isEmpty() || !s.context.isEmpty());
    } else {
        m_contextMode->setChecked(true);
    }
    const int go = m_clientGo->findData(s.clientGo);
    m_clientGo->setCurrentIndex(go >= 0 ? go : 0);
    m_namespace->setText(s.namespaceScope);
    m_filling = false;
    reloadKubeconfig();
    const int ctx = m_context->findData(s.context);
    if (!s.context.isEmpty() && ctx < 0) {
        showError(tr("context '%1' is no longer in the kubeconfig").arg(s.context));
        return;
    }
    if (ctx >= 0)
        m_context->setCurrentIndex(ctx);
    m_wantedResources = s.resources;
    probe();
}

void ConnectDialog::setAllResourcesChecked(bool checked) {
    for (int i = 0; i < m_resourceList->count(); ++i) {
        QListWidgetItem* item = m_resourceList->item(i);
        if (!item->isHidden())
            item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    }
    updateWatchButton();
}

void ConnectDialog::invalidate() {
    if (m_filling)
        return;
    if (probing())
        m_probe->cancel();
    setBusy(false);
    if (m_resourceList->count() > 0) {
        m_resourceList->clear();
        m_status->setStyleSheet(QString());
        m_status->setText(tr("Connect to list the resources."));
    }
    updateWatchButton();
}

void ConnectDialog::setBusy(bool busy) {
    m_busy->setVisible(busy);
    m_connect->setText(busy ? tr("&Stop") : tr("&Connect"));
}

void ConnectDialog::showError(const QString& message) {
    m_status->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_status->setText(message);
}

void ConnectDialog::updateModeWidgets() {
    const bool servers = m_serversMode->isChecked();
    m_servers->setEnabled(servers);
    m_serversUseContext->setEnabled(servers);
}

void ConnectDialog::updateWatchButton() {
    bool any = false;
    for (int i = 0; i < m_resourceList->count() && !any; ++i)
        any = m_resourceList->item(i)->checkState() == Qt::Checked;
    m_watch->setEnabled(any && !probing());
    m_watch->setToolTip(m_resourceList->count() == 0
                            ? tr("Connect first: the server says what it offers")
                        : any ? QString()
                              : tr("Check at least one resource"));
}

void ConnectDialog::filterResources(const QString& text) {
    for (int i = 0; i < m_resourceList->count(); ++i) {
        QListWidgetItem* item = m_resourceList->item(i);
        item->setHidden(!text.isEmpty() && !item->text().contains(text, Qt::CaseInsensitive));
    }
}

} // namespace ws
