#include "ScenarioPicker.h"

#include <QFileInfo>
#include <QKeyEvent>
#include <QWheelEvent>

namespace ws {

ScenarioPicker::ScenarioPicker(QWidget* parent) : QComboBox(parent) {
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    // Shown while no scenario runs (the window watches a cluster or etcd).
    setPlaceholderText(tr("none: live source"));
    setToolTip(tr("Scenario the simulator runs; picking another restarts it on that one"));
    // activated, not currentIndexChanged: only a person's pick asks for a switch, never the
    // selection being moved back after a failed one.
    connect(this, &QComboBox::activated, this, &ScenarioPicker::onActivated);
}

void ScenarioPicker::setScenarios(const std::vector<ScenarioSummary>& builtins) {
    clear();
    for (const ScenarioSummary& s : builtins) {
        addItem(s.name);
        setItemData(count() - 1, s.name, ScenarioRole);
        setItemData(count() - 1, s.description, Qt::ToolTipRole);
    }
    insertSeparator(count());
    addItem(tr("Open scenario file…"));
    setItemData(count() - 1,
                tr("Run a scenario from a .yaml file (a copy of a built-in one, "
                   "edited)"),
                Qt::ToolTipRole);
    if (!m_current.isEmpty())
        setCurrentScenario(m_current);
}

int ScenarioPicker::indexOfScenario(const QString& nameOrPath) const {
    return findData(nameOrPath, ScenarioRole);
}

int ScenarioPicker::addFileEntry(const QString& path) {
    // Files go above the separator, after the built-ins and the files opened before.
    int at = 0;
    while (at < count() && itemData(at, ScenarioRole).isValid())
        ++at;
    insertItem(at, QFileInfo(path).fileName());
    setItemData(at, path, ScenarioRole);
    setItemData(at, path, Qt::ToolTipRole);
    return at;
}

void ScenarioPicker::setCurrentScenario(const QString& nameOrPath) {
    m_current = nameOrPath;
    int index = indexOfScenario(nameOrPath);
    if (index < 0 && !nameOrPath.isEmpty())
        index = addFileEntry(nameOrPath);
    setCurrentIndex(index);
    // The closed picker tells what runs, as the open one tells each entry.
    const QString summary = index >= 0 ? itemData(index, Qt::ToolTipRole).toString() : QString();
    setToolTip(
        nameOrPath.isEmpty()
            ? tr("Watching a live source; picking a scenario switches to the simulator")
        : summary.isEmpty()
            ? tr("Scenario the simulator runs; picking another restarts it on that one")
            : tr("%1\n\nPicking another scenario restarts the simulator on it.").arg(summary));
}

void ScenarioPicker::choose(const QString& nameOrPath) {
    if (nameOrPath.isEmpty())
        return;
    emit scenarioChosen(nameOrPath);
}

void ScenarioPicker::wheelEvent(QWheelEvent* event) {
    event->ignore();
}

void ScenarioPicker::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
    case Qt::Key_Home:
    case Qt::Key_End:
        showPopup(); // choosing happens in the list, with Return or a click
        event->accept();
        return;
    default:
        QComboBox::keyPressEvent(event);
    }
}

void ScenarioPicker::onActivated(int index) {
    const QVariant scenario = itemData(index, ScenarioRole);
    if (!scenario.isValid()) {
        // The "Open scenario file…" entry is a command, not a selection.
        setCurrentScenario(m_current);
        emit openFileRequested();
        return;
    }
    if (scenario.toString() != m_current)
        choose(scenario.toString());
}

} // namespace ws
