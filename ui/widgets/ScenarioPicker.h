#pragma once

#include "scenario/ScenarioLoader.h"

#include <QComboBox>

namespace ws {

// The scenario the simulator runs: the built-in ones (their one-line summary as tooltip), any
// scenario file opened so far, and an "Open scenario file…" entry. Picking only asks for a
// switch (scenarioChosen); the selection moves when the switch happened (setCurrentScenario),
// so a failed switch leaves the running scenario selected.
class ScenarioPicker : public QComboBox {
    Q_OBJECT
public:
    static constexpr int ScenarioRole = Qt::UserRole + 1; // built-in name or file path

    explicit ScenarioPicker(QWidget* parent = nullptr);

    void setScenarios(const std::vector<ScenarioSummary>& builtins);
    // Selects `nameOrPath` without asking for a switch; a file path gets its own entry.
    void setCurrentScenario(const QString& nameOrPath);
    QString currentScenario() const { return m_current; }
    int indexOfScenario(const QString& nameOrPath) const;
    int openFileIndex() const { return count() - 1; }
    // What picking an entry does; `nameOrPath` need not be listed (a path from a file dialog).
    void choose(const QString& nameOrPath);

signals:
    void scenarioChosen(const QString& nameOrPath);
    void openFileRequested();

protected:
    // A closed QComboBox switches entries on the wheel and on arrow keys, each a pick: here each
    // would restart the session, so the wheel is left to the tool bar and arrows open the list.
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void onActivated(int index);
    int addFileEntry(const QString& path);

    QString m_current;
};

} // namespace ws
