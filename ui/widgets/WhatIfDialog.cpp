#include "WhatIfDialog.h"

#include "kube/ClientProfile.h"
#include "kube/ServerProfile.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"
#include "models/WhatIfKindModel.h"
#include "scenario/ScenarioLoader.h"
#include "session/WhatIfRun.h"
#include "sources/capture/CaptureReplay.h"

#include "kube/FeatureGates.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace ws {

namespace {

// Session time as a clock: "0:42", "12:05", "1:02:03".
QString clock(qint64 us) {
    const qint64 s = std::max<qint64>(0, us) / kUsPerSecond;
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QComboBox* editableChooser(const QString& objectName, const QStringList& items,
                           const QString& placeholder) {
    auto* box = new QComboBox;
    box->setObjectName(objectName);
    box->setEditable(true);
    box->setInsertPolicy(QComboBox::NoInsert);
    box->addItem(QString()); // keep the recorded one
    box->addItems(items);
    box->setCurrentIndex(0);
    box->lineEdit()->setPlaceholderText(placeholder);
    box->lineEdit()->setClearButtonEnabled(true);
    box->setMinimumContentsLength(22);
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    return box;
}

QTableView* anomalyTable(QSortFilterProxyModel* model) {
    auto* view = new QTableView;
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setSortingEnabled(true);
    view->sortByColumn(AnomalyListModel::NumberColumn, Qt::AscendingOrder);
    view->setWordWrap(false);
    view->verticalHeader()->setVisible(false);
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    QHeaderView* h = view->horizontalHeader();
    h->setStretchLastSection(true);
    h->setHighlightSections(false);
    // The rows of a list are of one kind (one severity) and one source, and a message names
    // its key: time, watcher and message tell them apart (the message's tooltip has all of it).
    for (int c : {int(AnomalyListModel::NumberColumn), int(AnomalyListModel::SeverityColumn),
                  int(AnomalyListModel::KindColumn), int(AnomalyListModel::SourceColumn),
                  int(AnomalyListModel::ResourceColumn), int(AnomalyListModel::RvColumn),
                  int(AnomalyListModel::KeyColumn)})
        h->setSectionHidden(c, true);
    // Wide enough for "cacher/pods@apiserver-0"; the message has the rest.
    const int digit = view->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    h->resizeSection(AnomalyListModel::TimeColumn, digit * 9);
    h->resizeSection(AnomalyListModel::WatcherColumn, digit * 23);
    view->setTextElideMode(Qt::ElideRight);
    return view;
}

} // namespace

WhatIfDialog::WhatIfDialog(const SourceSpec& capture, QWidget* parent)
    : QDialog(parent), m_capture(capture), m_run(new WhatIfRun(this)),
      m_kinds(new WhatIfKindModel(this)), m_kindProxy(new QSortFilterProxyModel(this)),
      m_recorded(new AnomalyListModel(this)), m_whatIf(new AnomalyListModel(this)),
      m_recordedProxy(new AnomalyFilterProxy(this)), m_whatIfProxy(new AnomalyFilterProxy(this)) {
    setObjectName(QStringLiteral("whatIfDialog"));
    const QString file = QFileInfo(m_capture.capture).fileName();
    setWindowTitle(tr("What If… — %1").arg(file));
    m_capture.replayControl = nullptr; // the dialog's runs are its own, never paced
    m_recordedVersions = WhatIfRun::recordedVersions(m_capture.capture);

    const QString recorded = m_recordedVersions ? m_recordedVersions->describe() : QString();
    auto* intro = new QLabel(
        recorded.isEmpty()
            ? tr("Replays <b>%1</b> twice to its end: as recorded, and under the versions "
                 "chosen here. Empty fields keep what was recorded.")
                  .arg(file.toHtmlEscaped())
            : tr("Replays <b>%1</b> twice to its end: as recorded (%2), and under the versions "
                 "chosen here. Empty fields keep what was recorded.")
                  .arg(file.toHtmlEscaped(), recorded.toHtmlEscaped()));
    intro->setWordWrap(true);

    m_server = editableChooser(
        QStringLiteral("whatIfServerVersion"), ServerProfile::knownVersions(),
        m_recordedVersions ? tr("as recorded (%1)").arg(m_recordedVersions->serverVersion)
                           : tr("as recorded"));
    m_server->setToolTip(tr("kube-apiserver version of every apiserver (1.16 to 1.36, or "
                            "1.MINOR.PATCH); empty: as recorded"));
    m_clientGo = editableChooser(QStringLiteral("whatIfClientGo"), ClientProfile::knownNames(),
                                 m_recordedVersions
                                     ? tr("as recorded (%1)").arg(m_recordedVersions->clientGo)
                                     : tr("as recorded"));
    m_clientGo->setToolTip(tr("client-go of every client; empty: as recorded"));

    // The etcd side: #17529 (a compacted watcher skipped silently) is fixed in 3.4.31 / 3.5.13.
    m_etcd = editableChooser(QStringLiteral("whatIfEtcdVersion"),
                             {QStringLiteral("3.4.23"), QStringLiteral("3.4.31"),
                              QStringLiteral("3.5.12"), QStringLiteral("3.5.13")},
                             tr("as recorded"));
    m_etcd->setToolTip(tr("etcd version (3.4.31 and 3.5.13 fix the silent skip of a compacted "
                          "watcher, etcd #17529); empty: as recorded"));
    // An etcd capture has no apiservers or clients of its own: by default one apiserver and one
    // informer per resource, or the cluster of a built-in scenario.
    QString unreadable; // the replay already read it; a failure here only hides the row
    const auto head = CaptureReplay::header(m_capture.capture, &unreadable);
    const bool etcdCapture = head && head->sourceKind == QLatin1String("etcd");
    if (etcdCapture) {
        m_cluster = new QComboBox;
        m_cluster->setObjectName(QStringLiteral("whatIfCluster"));
        m_cluster->addItem(tr("one apiserver, one informer per resource"), QString());
        for (const QString& name : ScenarioLoader::builtinNames())
            m_cluster->addItem(tr("the cluster of %1").arg(name), name);
        m_cluster->setToolTip(tr("Who receives the recorded writes: the apiservers, clients and "
                                 "faults of a built-in scenario (its own writes are replaced by "
                                 "the recording)"));
        connect(m_cluster, &QComboBox::currentIndexChanged, this, &WhatIfDialog::updateButtons);
        m_cluster->setCurrentIndex(std::max(0, m_cluster->findData(m_capture.whatIf.cluster)));
    }
    connect(m_etcd, &QComboBox::editTextChanged, this, &WhatIfDialog::updateButtons);

    // Every gate the server profiles model (kube/FeatureGates.h), three to a row.
    auto* gateRow = new QGridLayout;
    gateRow->setContentsMargins(0, 0, 0, 0);
    gateRow->setHorizontalSpacing(6);
    constexpr int kGatesPerRow = 3;
    for (const FeatureGate& gate : FeatureGates::all()) {
        const QString name = QLatin1String(gate.name);
        auto* box = new QComboBox;
        box->setObjectName(QStringLiteral("whatIfGate") + name);
        box->addItem(tr("keep"), QString());
        box->addItem(tr("on"), QStringLiteral("true"));
        box->addItem(tr("off"), QStringLiteral("false"));
        box->setProperty("gate", name);
        box->setToolTip(tr("Feature gate %1 of the apiservers (%2): %3. keep: as the "
                           "capture's scenario sets it, otherwise the default of the server "
                           "version")
                            .arg(name, FeatureGates::releases(gate), QLatin1String(gate.what)));
        auto* label = new QLabel(name + QLatin1Char(':'));
        label->setBuddy(box);
        const int row = static_cast<int>(m_gates.size()) / kGatesPerRow;
        const int column = 2 * (static_cast<int>(m_gates.size()) % kGatesPerRow);
        gateRow->addWidget(label, row, column, Qt::AlignRight);
        gateRow->addWidget(box, row, column + 1);
        m_gates << box;
        connect(box, &QComboBox::currentIndexChanged, this, &WhatIfDialog::updateButtons);
    }
    gateRow->setColumnStretch(2 * kGatesPerRow, 1);

    // A what-if replay: its versions again.
    const ScenarioOverrides& current = m_capture.whatIf;
    m_server->setEditText(current.serverVersion);
    m_clientGo->setEditText(current.clientGo);
    m_etcd->setEditText(current.etcdVersion);
    for (const QString& g : current.featureGates) {
        const QString name = g.section(QLatin1Char('='), 0, 0);
        const QString value = g.contains(QLatin1Char('='))
                                  ? g.section(QLatin1Char('='), 1).toLower()
                                  : QStringLiteral("true");
        if (QComboBox* box = gateChooser(name))
            box->setCurrentIndex(std::max(0, box->findData(value)));
    }
    connect(m_server, &QComboBox::editTextChanged, this, &WhatIfDialog::updateButtons);
    connect(m_clientGo, &QComboBox::editTextChanged, this, &WhatIfDialog::updateButtons);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    form->addRow(tr("&Server version:"), m_server);
    form->addRow(tr("c&lient-go:"), m_clientGo);
    form->addRow(tr("Feature gates:"), gateRow);
    form->addRow(tr("&etcd version:"), m_etcd);
    if (m_cluster)
        form->addRow(tr("Cl&uster:"), m_cluster);

    m_compare = new QPushButton(tr("&Compare"));
    m_compare->setObjectName(QStringLiteral("whatIfCompare"));
    m_compare->setDefault(true);
    connect(m_compare, &QPushButton::clicked, this, &WhatIfDialog::compare);
    m_cancel = new QPushButton(tr("C&ancel"));
    m_cancel->setObjectName(QStringLiteral("whatIfCancel"));
    m_cancel->setToolTip(tr("Stop the comparison under way"));
    connect(m_cancel, &QPushButton::clicked, this, &WhatIfDialog::cancel);
    m_progressBar = new QProgressBar;
    m_progressBar->setRange(0, 1000);
    m_progressBar->setTextVisible(false);
    m_progressBar->setMaximumWidth(160);
    m_progressText = new QLabel;
    m_progressText->setObjectName(QStringLiteral("whatIfProgress"));
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("whatIfStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(m_compare);
    runRow->addWidget(m_cancel);
    runRow->addWidget(m_progressBar);
    runRow->addWidget(m_progressText);
    runRow->addWidget(m_status, 1);

    m_kindProxy->setSourceModel(m_kinds);
    m_kindProxy->setSortRole(WhatIfKindModel::SortRole);
    m_kindView = new QTableView;
    m_kindView->setObjectName(QStringLiteral("whatIfKinds"));
    m_kindView->setModel(m_kindProxy);
    m_kindView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_kindView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_kindView->setAlternatingRowColors(true);
    m_kindView->setSortingEnabled(true);
    m_kindView->sortByColumn(WhatIfKindModel::KindColumn, Qt::AscendingOrder);
    m_kindView->verticalHeader()->setVisible(false);
    m_kindView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_kindView->verticalHeader()->setDefaultSectionSize(m_kindView->fontMetrics().height() + 6);
    m_kindView->horizontalHeader()->setStretchLastSection(true);
    m_kindView->horizontalHeader()->setHighlightSections(false);
    m_kindView->horizontalHeader()->resizeSection(WhatIfKindModel::KindColumn, 190);
    m_kindView->horizontalHeader()->resizeSection(WhatIfKindModel::RecordedColumn, 110);
    m_kindView->horizontalHeader()->resizeSection(WhatIfKindModel::WhatIfColumn, 230);
    connect(m_kindView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (m_settingKind)
                    return;
                selectKind(current.isValid()
                               ? current.data(WhatIfKindModel::KindNameRole).toString()
                               : QString());
            });

    m_recordedProxy->setSourceModel(m_recorded);
    m_whatIfProxy->setSourceModel(m_whatIf);
    m_recordedView = anomalyTable(m_recordedProxy);
    m_recordedView->setObjectName(QStringLiteral("whatIfRecordedAnomalies"));
    m_whatIfView = anomalyTable(m_whatIfProxy);
    m_whatIfView->setObjectName(QStringLiteral("whatIfWhatIfAnomalies"));
    m_recordedTitle = new QLabel;
    m_whatIfTitle = new QLabel;
    const auto titled = [](QLabel* title, QTableView* view) {
        auto* box = new QWidget;
        auto* layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(2);
        layout->addWidget(title);
        layout->addWidget(view, 1);
        return box;
    };
    auto* lists = new QSplitter(Qt::Horizontal);
    lists->addWidget(titled(m_recordedTitle, m_recordedView));
    lists->addWidget(titled(m_whatIfTitle, m_whatIfView));
    lists->setChildrenCollapsible(false);
    auto* results = new QSplitter(Qt::Vertical);
    results->addWidget(m_kindView);
    results->addWidget(lists);
    results->setStretchFactor(0, 1);
    results->setStretchFactor(1, 3);
    results->setSizes({150, 450}); // a few kinds; many anomalies
    results->setChildrenCollapsible(false);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_replay = buttons->addButton(tr("&Replay under these versions"), QDialogButtonBox::ActionRole);
    m_replay->setObjectName(QStringLiteral("whatIfReplay"));
    connect(m_replay, &QPushButton::clicked, this, [this] {
        if (!m_compared)
            return;
        SourceSpec spec = m_capture;
        spec.whatIf = *m_compared;
        emit replayRequested(spec);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addLayout(runRow);
    layout->addWidget(results, 1);
    layout->addWidget(buttons);
    resize(1240, 760);

    connect(m_run, &WhatIfRun::progress, this, &WhatIfDialog::onProgress);
    connect(m_run, &WhatIfRun::finished, this, &WhatIfDialog::onFinished);
    connect(m_run, &WhatIfRun::failed, this, &WhatIfDialog::onFailed);
    setBusy(false);
    clearResult();
}

WhatIfDialog::~WhatIfDialog() = default;

QComboBox* WhatIfDialog::gateChooser(const QString& gate) const {
    for (QComboBox* box : m_gates)
        if (box->property("gate").toString() == gate)
            return box;
    return nullptr;
}

ScenarioOverrides WhatIfDialog::overrides() const {
    ScenarioOverrides o;
    o.serverVersion = m_server->currentText().trimmed();
    o.clientGo = m_clientGo->currentText().trimmed();
    o.etcdVersion = m_etcd->currentText().trimmed();
    if (m_cluster)
        o.cluster = m_cluster->currentData().toString();
    for (QComboBox* box : m_gates) {
        const QString value = box->currentData().toString();
        if (!value.isEmpty())
            o.featureGates << QStringLiteral("%1=%2").arg(box->property("gate").toString(), value);
    }
    return o;
}

bool WhatIfDialog::running() const {
    return m_run->running();
}

void WhatIfDialog::setCaptureDuration(qint64 duration) {
    m_duration = duration;
    if (running())
        showProgress();
}

void WhatIfDialog::compare() {
    const ScenarioOverrides o = overrides();
    if (!o.any()) {
        showError(tr("Choose a server version, a client-go or a feature gate to compare with."));
        return;
    }
    SourceSpec spec = m_capture;
    spec.whatIf = o;
    clearResult();
    m_asked = o;
    m_progress[0] = m_progress[1] = 0;
    m_status->setStyleSheet(QString());
    m_status->setText(tr("Comparing with %1…").arg(o.describe()));
    m_run->start(spec);
    setBusy(true);
    showProgress();
}

void WhatIfDialog::cancel() {
    if (!running())
        return;
    m_run->cancel();
    setBusy(false);
    m_status->setStyleSheet(QString());
    m_status->setText(tr("Cancelled."));
    emit comparisonFinished(false);
}

void WhatIfDialog::onProgress(int run, qint64 now) {
    if (run < 0 || run > 1)
        return;
    m_progress[run] = now;
    if (run == 1 && m_duration > 0)
        m_progress[0] = m_duration; // the recorded run has ended
    showProgress();
}

void WhatIfDialog::showProgress() {
    m_progressText->setText(
        tr("as recorded %1 / what if %2").arg(clock(m_progress[0]), clock(m_progress[1])));
    if (m_duration > 0) {
        m_progressBar->setRange(0, 1000);
        m_progressBar->setValue(
            int(std::clamp<qint64>((m_progress[0] + m_progress[1]) * 500 / m_duration, 0, 1000)));
    } else {
        m_progressBar->setRange(0, 0); // moves, says nothing
    }
}

void WhatIfDialog::onFinished() {
    setBusy(false);
    const auto& result = m_run->result();
    if (!result) {
        onFailed(tr("the comparison gave no result"));
        return;
    }
    m_compared = m_asked;
    const QString label = result->whatIfLabel;
    m_kinds->setKinds(result->kinds, label,
                      m_recordedVersions ? m_recordedVersions->describe() : QString());
    // A run that raised more than a session keeps in memory: its list starts after the ones
    // let go, counted as dropped; the counts by kind are of every anomaly.
    m_recorded->appendAnomalies(result->recorded, result->recordedNotKept);
    m_whatIf->appendAnomalies(result->whatIf, result->whatIfNotKept);
    // Which kinds depend on the versions, in so many words.
    QStringList gone, only;
    for (const WhatIfKindCount& k : result->kinds) {
        if (k.change() == QLatin1String("gone"))
            gone << k.kind;
        else if (k.change() == QLatin1String("new"))
            only << k.kind;
    }
    m_status->setStyleSheet(QString());
    if (result->kinds.empty()) {
        m_status->setText(tr("No anomalies either way."));
    } else if (gone.isEmpty() && only.isEmpty()) {
        m_status->setText(tr("The same kinds of anomaly either way."));
    } else {
        QStringList parts;
        if (!gone.isEmpty())
            parts << tr("gone on %1: %2").arg(label, gone.join(QStringLiteral(", ")));
        if (!only.isEmpty())
            parts << tr("only on %1: %2").arg(label, only.join(QStringLiteral(", ")));
        QString text = parts.join(QStringLiteral("; "));
        text[0] = text[0].toUpper();
        m_status->setText(text + QLatin1Char('.'));
    }
    if (const qint64 notKept = result->recordedNotKept + result->whatIfNotKept; notKept > 0)
        m_status->setText(m_status->text() +
                          tr(" %1 older anomalies not kept in memory: the lists show the newest, "
                             "the counts are of all.")
                              .arg(notKept));
    m_kindView->horizontalHeader()->resizeSections(QHeaderView::ResizeToContents);
    m_kindView->horizontalHeader()->setStretchLastSection(true);
    // The first kind that depends on the versions, else the first one.
    QString first;
    for (int row = 0; row < m_kindProxy->rowCount(); ++row) {
        const QString kind =
            m_kindProxy->index(row, 0).data(WhatIfKindModel::KindNameRole).toString();
        if (first.isEmpty())
            first = kind;
        if (!m_kinds->kind(m_kinds->rowOfKind(kind)).change().isEmpty()) {
            first = kind;
            break;
        }
    }
    selectKind(first);
    updateButtons();
    emit comparisonFinished(true);
}

void WhatIfDialog::onFailed(const QString& message) {
    setBusy(false);
    showError(message);
    emit comparisonFinished(false);
}

void WhatIfDialog::showError(const QString& message) {
    // One line: the engine's words.
    m_status->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_status->setText(message.simplified());
}

void WhatIfDialog::selectKind(const QString& kind) {
    m_selectedKind = kind;
    const auto parsed = kind.isEmpty() ? std::nullopt : kindFromName(kind);
    m_recordedProxy->setKind(parsed);
    m_whatIfProxy->setKind(parsed);
    const QString label = m_kinds->whatIfLabel();
    const QString what = kind.isEmpty() ? tr("all kinds") : kind;
    m_recordedTitle->setText(tr("<b>As recorded</b>: %1 (%2)")
                                 .arg(what.toHtmlEscaped())
                                 .arg(m_recordedProxy->rowCount()));
    m_whatIfTitle->setText(label.isEmpty() ? tr("<b>What if</b>")
                                           : tr("<b>Under %1</b>: %2 (%3)")
                                                 .arg(label.toHtmlEscaped(), what.toHtmlEscaped())
                                                 .arg(m_whatIfProxy->rowCount()));
    // The kind's row current in the table, without coming back here.
    const QScopedValueRollback<bool> setting(m_settingKind, true);
    const int row = kind.isEmpty() ? -1 : m_kinds->rowOfKind(kind);
    const QModelIndex wanted =
        row < 0 ? QModelIndex() : m_kindProxy->mapFromSource(m_kinds->index(row, 0));
    QItemSelectionModel* selection = m_kindView->selectionModel();
    if (!wanted.isValid())
        selection->clear();
    else if (selection->currentIndex().row() != wanted.row() || !selection->hasSelection())
        selection->setCurrentIndex(wanted,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void WhatIfDialog::setBusy(bool busy) {
    m_cancel->setVisible(busy);
    m_progressBar->setVisible(busy);
    m_progressText->setVisible(busy);
    updateButtons();
}

void WhatIfDialog::updateButtons() {
    const bool busy = running();
    const bool any = overrides().any();
    m_compare->setEnabled(!busy && any);
    m_compare->setToolTip(any ? tr("Replay the capture as recorded and under %1, and compare "
                                   "their anomalies")
                                    .arg(overrides().describe())
                              : tr("Choose a server version, a client-go or a feature gate"));
    m_replay->setEnabled(!busy && m_compared.has_value());
    m_replay->setToolTip(m_compared ? tr("Replay the capture in the window under %1, to look at "
                                         "its charts")
                                          .arg(m_compared->describe())
                                    : tr("Compare first"));
}

void WhatIfDialog::clearResult() {
    m_compared.reset();
    m_kinds->clear();
    m_recorded->clear();
    m_whatIf->clear();
    selectKind(QString());
    updateButtons();
}

} // namespace ws
