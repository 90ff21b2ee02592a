// The list-pressure chart and the OOM incident in the window on daemonset-relist-oom: under the
// RV chart of pods the apiservers' memory and the list bytes in flight are drawn (the chart is
// hidden for scenarios without them), and each OOM kill is a list-pressure incident of severity
// error in the Incidents pane. WS_SCREENSHOT=path saves the window at the end.
#include "GuiSession.h"
#include "charts/ChartData.h"
#include "models/IncidentSortProxy.h"
#include "models/IncidentTreeModel.h"
#include "widgets/ChartsPane.h"
#include "widgets/IncidentsPane.h"
#include "widgets/ListPressureChart.h"
#include "widgets/MainWindow.h"

#include <QLineSeries>
#include <QTest>
#include <QTreeView>

using namespace ws;

namespace {

// daemonset-relist-oom's 1,000 agents take ~2 s at full speed, ~2 min under ASan beside other
// tests: the wait is for the session to finish, however long the build makes it.
#ifdef WS_SANITIZED_BUILD
constexpr int kTimeoutMs = 600000;
#else
constexpr int kTimeoutMs = 120000;
#endif

// The incident rows of `kind` in the view's (sorted) model.
QList<QModelIndex> incidentRows(const QAbstractItemModel* model, const QString& kind) {
    QList<QModelIndex> out;
    for (int r = 0; r < model->rowCount(); ++r) {
        const QModelIndex i = model->index(r, IncidentTreeModel::KindColumn);
        if (i.data().toString() == kind)
            out << i.siblingAtColumn(0);
    }
    return out;
}

// The largest y drawn of a bound series (GiB), -1 when it is not bound.
double drawnMax(const ListPressureChart& chart, const QString& name) {
    const QXYSeries* s = chart.boundSeries(name);
    if (!s)
        return -1;
    double m = 0;
    for (const QPointF& p : s->points())
        m = std::max(m, p.y());
    return m;
}

} // namespace

class TestGuiListPressure : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void hiddenWithoutTheSeries() {
        test::GuiSession h;
        QString error;
        QVERIFY2(h.openScenario(QStringLiteral("healthy"), 0, &error), qPrintable(error));
        h.start();
        QTRY_COMPARE_WITH_TIMEOUT(h.window->stateText(), QStringLiteral("Finished"), kTimeoutMs);
        QVERIFY(!h.window->chartsPane()->listPressureChart()->isVisible());
    }

    void memoryAndOomIncident() {
        test::GuiSession h;
        QString error;
        QVERIFY2(h.openScenario(QStringLiteral("daemonset-relist-oom"), 0, &error),
                 qPrintable(error));
        MainWindow& w = *h.window;
        h.start();
        QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kTimeoutMs);
        ChartsPane* pane = w.chartsPane();
        ListPressureChart* chart = pane->listPressureChart();
        QTRY_VERIFY(chart->isVisible());
        w.setSpan(120);
        chart->replotNow();
        const QString memory = QStringLiteral("apiserver_memory_bytes");
        for (const QString& name :
             {memory, memory + QStringLiteral(":apiserver-1"),
              memory + QStringLiteral(":apiserver-2"), QStringLiteral("list_bytes_inflight")})
            QVERIFY2(chart->isBound(name), qPrintable(name));
        // apiserver-0 was killed above its 4 GB (3.73 GiB) limit: its line reaches the peak it
        // died at.
        const double peak = drawnMax(*chart, memory);
        QVERIFY2(peak > 4e9 / ListPressureChart::kBytesPerUnit, qPrintable(QString::number(peak)));
        QVERIFY(drawnMax(*chart, QStringLiteral("list_bytes_inflight")) > 1.0);
        // The OOM kills are one list-pressure incident of pods, of severity error, counting every
        // kill (each of the three apiservers at least once) and the warnings before them.
        const QAbstractItemModel* model = w.incidentsPane()->view()->model();
        QCOMPARE(incidentRows(model, QStringLiteral("list-pressure")).size(), 1);
        const QModelIndex row = w.incidentsPane()->proxy()->mapToSource(
            incidentRows(model, QStringLiteral("list-pressure")).constFirst());
        const Incident& incident = w.incidentModel()->incident(row.row());
        QCOMPARE(incident.severity, Severity::Error);
        QVERIFY2(incident.count >= 4, qPrintable(QString::number(incident.count)));
        QTest::qWait(800); // the status bar's figures refresh a few times a second
        const QString path = qEnvironmentVariable("WS_SCREENSHOT");
        if (!path.isEmpty())
            QVERIFY(w.grab().save(path));
    }
};

QTEST_MAIN(TestGuiListPressure)
#include "tst_guilistpressure.moc"
