// The inspector's pages on a checkpoint in object storage (issue #32;
// docs/explorer.md): a demo run written locally and uploaded to SeaweedFS on
// loopback (the `s3` fixture), opened in one window from the bucket and in
// another from the disk. For the same kernel the statistics, histogram and
// heatmap pages show exactly what they show locally, and the History page
// charts the variable and the run across the remote run's checkpoints as it
// does across the local ones; the GUI thread's work stays small throughout.
// A checkpoint saved into the bucket by 4 processes opens with the tree of
// the same save into a directory.

#include <QChart>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

#include "automation/explorer_page.h"
#include "ckpt/object_store.h"
#include "explorer_test.h"
#include "jobs/job_tracker.h"
#include "s3_test_server.h"
#include "stall_meter.h"
#include "test_support.h"
#include "ckpt/checkpoint.h"
#include "views/heatmap_page.h"
#include "views/heatmap_view.h"
#include "views/histogram_page.h"
#include "views/history_page.h"
#include "views/main_window.h"
#include "views/movement_strip.h"
#include "views/object_tree_pane.h"
#include "views/stats_page.h"
#include "views/tensor_inspector.h"
#include "window_test_support.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

const QString kKernel = QStringLiteral("model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE");

// What the three preview pages showed for one tensor.
struct Previews {
    std::optional<TensorStats> stats;
    std::optional<Histogram> histogram;
    QImage heatmap;
};

QList<QPointF> dots(QChart* chart) {
    for (QAbstractSeries* s : chart->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(s)) return scatter->points();
    return {};
}

}  // namespace

class TstRemoteInspector : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    QTemporaryDir m_tmp;
    QString m_local;
    QString m_remote;

    // Opens 'location' in 'w', selects the kernel and waits for each page.
    static Previews previewsIn(MainWindow& w, const QString& location) {
        Previews out;
        ExplorerPage explorer(w);
        w.resize(1400, 900);
        w.show();
        if (!QTest::qWaitForWindowExposed(&w)) return out;
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(location);
        if (!opened.wait(30000) || !opened.first().first().toBool() || !testing::waitIdle(w)) return out;
        TensorInspector* inspector = explorer.inspector();
        auto* tabs = inspector->findChild<QTabWidget*>();
        auto* stats = inspector->findChild<StatsPage*>();
        auto* histogram = inspector->findChild<HistogramPage*>();
        auto* heatmap = inspector->findChild<HeatmapPage*>();
        if (!tabs || !stats || !histogram || !heatmap) return out;
        tabs->setCurrentWidget(stats);
        if (!explorer.treePane()->selectKey(kKernel)) return out;
        if (!QTest::qWaitFor([&] { return stats->stats().has_value(); }, 20000)) return out;
        out.stats = stats->stats();
        tabs->setCurrentWidget(histogram);
        if (QTest::qWaitFor([&] { return histogram->histogram().has_value(); }, 20000)) out.histogram = histogram->histogram();
        tabs->setCurrentWidget(heatmap);
        if (QTest::qWaitFor([&] { return !heatmap->view()->image().isNull(); }, 20000)) out.heatmap = heatmap->view()->image();
        return out;
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        const auto run = testing::uploadedDemoRun(
            *m_server, m_tmp.filePath(QStringLiteral("run")), "tst_remote_inspector",
            {QStringLiteral("--steps"), QStringLiteral("100"), QStringLiteral("--save-every"), QStringLiteral("20")}, &why);
        QVERIFY2(run.has_value(), qPrintable(why));
        m_local = run->local;
        m_remote = run->remote;
    }

    void previewPagesShowWhatTheyShowLocally() {
        MainWindow local;
        const Previews expected = previewsIn(local, m_local);
        QVERIFY(expected.stats && expected.histogram && !expected.heatmap.isNull());
        MainWindow remote;
        testing::StallMeter stalls;
        stalls.start();
        const Previews shown = previewsIn(remote, m_remote);
        QVERIFY2(shown.stats.has_value(), "no statistics for the remote kernel");
        QCOMPARE(shown.stats->count, expected.stats->count);
        QCOMPARE(shown.stats->min, expected.stats->min);
        QCOMPARE(shown.stats->max, expected.stats->max);
        QCOMPARE(shown.stats->mean, expected.stats->mean);
        QCOMPARE(shown.stats->std, expected.stats->std);
        QCOMPARE(shown.stats->zeros, expected.stats->zeros);
        QVERIFY2(shown.histogram.has_value(), "no histogram for the remote kernel");
        QCOMPARE(shown.histogram->counts, expected.histogram->counts);
        QCOMPARE(shown.histogram->edges, expected.histogram->edges);
        QVERIFY2(!shown.heatmap.isNull(), "no heatmap for the remote kernel");
        QCOMPARE(shown.heatmap, expected.heatmap);
        QVERIFY2(stalls.longestBusy() < 150, qPrintable(QString::number(stalls.longestBusy())));
    }

    void historyAcrossARemoteRun() {
        JobTracker jobs;
        std::vector<QList<QPointF>> norms, changes;
        std::vector<size_t> runVariables;
        for (const QString& run : {m_local, m_remote}) {
            HistoryPage page(&jobs);
            page.resize(600, 900);
            page.show();
            QVERIFY(QTest::qWaitForWindowExposed(&page));
            QSignalSpy ready(&page, &HistoryPage::historyReady);
            page.setVariable(run, kKernel, QStringLiteral("layer 1 kernel"));
            QVERIFY(ready.wait(30000));
            QVERIFY2(ready.first().at(0).toBool(), qPrintable(page.message()));
            norms.push_back(dots(page.normChart()));
            changes.push_back(dots(page.changeChart()));
            QSignalSpy runReady(&page, &HistoryPage::runReady);
            page.runButton()->click();
            QVERIFY(runReady.wait(30000));
            QVERIFY(runReady.first().at(0).toBool());
            QVERIFY(page.strip()->history());
            runVariables.push_back(page.strip()->history()->variables.size());
        }
        QCOMPARE(norms[0].size(), 5);  // steps 20 .. 100
        QCOMPARE(norms[1], norms[0]);
        QCOMPARE(changes[1], changes[0]);
        QCOMPARE(runVariables[1], runVariables[0]);
    }

    // Issue #33's demo: one checkpoint saved by 4 processes into the bucket
    // opens in the explorer with the tree the same save into a directory
    // shows, its 4 data files verified.
    void aCheckpointOfFourWritersOpens() {
        const QString local = m_tmp.filePath(QStringLiteral("world"));
        QString remote = m_remote;
        remote.replace(QStringLiteral("/run"), QStringLiteral("/world"));
        for (const QString& dest : {local, remote}) {
            const testing::CliRun train =
                testing::runCkpt({QStringLiteral("demo-train"), dest, QStringLiteral("--world"), QStringLiteral("4"),
                                  QStringLiteral("--steps"), QStringLiteral("40")});
            QVERIFY2(train.exitCode == 0, (train.out + train.err).constData());
        }
        QStringList rows[2];
        int i = 0;
        for (const QString& run : {local, remote}) {
            MainWindow w;
            ExplorerPage explorer(w);
            QSignalSpy opened(&w, &MainWindow::checkpointOpened);
            w.openPath(run);
            QVERIFY(opened.wait(30000));
            QVERIFY(opened.first().first().toBool());
            QVERIFY(testing::waitIdle(w));
            const auto snapshot = explorer.snapshot();
            QVERIFY(snapshot);
            QCOMPARE(snapshot->checkpoint->bundle().header().numShards, 4);
            for (const TreeEntry& e : snapshot->entries)
                rows[i] << pathText(e) + QStringLiteral(" | ") + (e.tensor ? QString::fromStdString(e.tensor->key) : QString());
            ++i;
        }
        QVERIFY(rows[0].size() > 10);
        QCOMPARE(rows[1], rows[0]);
    }
};

CKPT_EXPLORER_TEST_MAIN(TstRemoteInspector)
#include "tst_remote_inspector.moc"
