// Responsiveness: opening a 100,000-tensor object-based checkpoint paints
// the tree within a second and never stalls the event loop for more than
// 100 ms (open, background verify, expanding a 1,000-row node, filtering);
// nor does comparing two such checkpoints (diff, showing 100,000 unchanged
// rows, sorting, filtering).

#include <QElapsedTimer>
#include <QCheckBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QtTest>

#include "explorer_test.h"
#include "automation/explorer_page.h"
#include "object_checkpoint.h"
#include "stall_meter.h"
#include "jobs/job_tracker.h"
#include "models/object_tree_model.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "models/checkpoint_snapshot.h"
#include "models/diff_tree_model.h"
#include "views/compare_view.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/restore_view.h"

using namespace ckpt;
using ckpt::testing::StallMeter;
using namespace ckpt::ui;

namespace {

constexpr int kLayers = 100;
constexpr int kVariablesPerLayer = 1000;

// object_checkpoint.h's graph: (root) -> model -> layer_i -> v_j.
bool writeBigCheckpoint(const QString& dir, const QString& name, QString* prefixOut) {
    *prefixOut = dir + QLatin1Char('/') + name;
    const Status s = ckpt::testing::writeObjectCheckpoint(prefixOut->toStdString(), kLayers, kVariablesPerLayer);
    if (!s.isOk()) qWarning("%s", s.toString().c_str());
    return s.isOk();
}

}  // namespace

class TstOpenStall : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(writeBigCheckpoint(m_dir.path(), QStringLiteral("ckpt-1"), &m_prefix));
        auto reader = BundleReader::open(m_prefix.toStdString());
        QVERIFY2(reader.ok(), reader.status().toString().c_str());
        QCOMPARE(static_cast<int>((*reader)->tensors().size()), kLayers * kVariablesPerLayer + 1);
        // Where the time goes, for when the paint budget gets tight.
        QElapsedTimer t;
        t.start();
        auto ckpt = Checkpoint::open(m_prefix.toStdString());
        QVERIFY(ckpt.ok());
        const qint64 opened = t.restart();
        auto snap = CheckpointSnapshot::build(*ckpt);
        qInfo("Checkpoint::open %lld ms, snapshot %lld ms (%zu entries)", opened, t.elapsed(), snap->entries.size());
    }

    void openPaintsQuicklyWithoutStalls() {
        MainWindow w;
        ExplorerPage explorer(w);
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        StallMeter meter;
        meter.start();
        QElapsedTimer clock;
        clock.start();
        w.openPath(m_prefix);
        QTRY_VERIFY_WITH_TIMEOUT(explorer.treePane()->model()->rowCount() > 0, 5000);
        QCoreApplication::processEvents();  // the paint
        const qint64 painted = clock.elapsed();
        qInfo("tree painted after %lld ms, longest stall %lld ms", painted, meter.longest());
        QVERIFY2(painted < 1000, qPrintable(QStringLiteral("painted after %1 ms").arg(painted)));

        // Expand model and one layer (1,000 rows) while verify runs in the background.
        ObjectTreeModel* model = explorer.treePane()->model();
        const QModelIndex modelRow = model->index(0, 0);
        explorer.treePane()->view()->expand(modelRow);
        QTRY_VERIFY(model->rowCount(modelRow) == kLayers);
        explorer.treePane()->view()->expand(model->index(7, 0, modelRow));
        QTRY_VERIFY(model->rowCount(model->index(7, 0, modelRow)) == kVariablesPerLayer);
        QTest::qWait(300);

        // Filtering 100,000 names happens off the GUI thread.
        QSignalSpy filtered(explorer.treePane(), &ObjectTreePane::filterApplied);
        explorer.treePane()->filterEdit()->setText(QStringLiteral("v_999"));
        QVERIFY(filtered.wait(10000));
        QTRY_VERIFY(!explorer.treePane()->isFiltering());
        QCOMPARE(model->rowCount(model->index(0, 0)), kLayers);
        QTest::qWait(200);
        qInfo("longest stall %lld ms", meter.longest());
        QVERIFY2(meter.longest() <= 100, qPrintable(QStringLiteral("event loop stalled %1 ms").arg(meter.longest())));
        // Cancelling the background verify keeps the window responsive too.
        explorer.jobs()->cancelAll();
        QTRY_VERIFY_WITH_TIMEOUT(explorer.jobs()->active().isEmpty(), 20000);
    }

    void restoreTabMatchesWithoutStalls() {
        // The Restore tab matches all 100,000 variables against the
        // checkpoint's own structure; the overlay and lists must not block.
        MainWindow w;
        ExplorerPage explorer(w);
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(m_prefix);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        StallMeter meter;
        meter.start();
        RestoreView* view = explorer.restoreView();
        explorer.workspace()->setCurrentWidget(view);
        QTRY_VERIFY_WITH_TIMEOUT(view->report() && !view->isMatching(), 60000);
        QCOMPARE(view->report()->matchedNodes, static_cast<int>(view->report()->checkpointNodes.size()));
        const QModelIndex modelRow = view->treePane()->model()->index(0, 0);
        view->treePane()->view()->expand(modelRow);
        QTest::qWait(200);
        qInfo("restore tab: longest stall %lld ms", meter.longest());
        QVERIFY2(meter.longest() <= 100, qPrintable(QStringLiteral("event loop stalled %1 ms").arg(meter.longest())));
        explorer.jobs()->cancelAll();
        QTRY_VERIFY_WITH_TIMEOUT(explorer.jobs()->active().isEmpty(), 20000);
    }

    void compareWithoutStalls() {
        // A second checkpoint of the same structure: 100,000 pairs, equal by
        // checksum. The diff, the merged tree, showing every unchanged row,
        // sorting and filtering must all leave the event loop turning.
        QString second;
        QVERIFY(writeBigCheckpoint(m_dir.path(), QStringLiteral("ckpt-2"), &second));
        MainWindow w;
        ExplorerPage explorer(w);
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        CompareView* view = explorer.compareView();
        QSignalSpy compared(view, &CompareView::compared);
        StallMeter meter;
        meter.start();
        QElapsedTimer clock;
        clock.start();
        w.compare(m_prefix, second);
        QVERIFY(compared.wait(60000));
        QVERIFY2(compared.first().at(0).toBool(), qPrintable(view->error()));
        qInfo("compare landed after %lld ms, longest stall %lld ms", clock.elapsed(), meter.longest());
        QVERIFY(view->model()->snapshot()->diff.equal());
        QCOMPARE(view->model()->rowCount(), 0);  // nothing changed: nothing listed
        QSignalSpy filtered(view, &CompareView::filterApplied);
        view->unchangedBox()->setChecked(true);
        QVERIFY(filtered.wait(20000));
        QVERIFY(view->model()->rowCount() > 0);
        QTest::qWait(100);
        view->view()->sortByColumn(DiffTreeModel::NameColumn, Qt::DescendingOrder);
        QTest::qWait(100);
        view->filterEdit()->setText(QStringLiteral("v_999"));
        QVERIFY(filtered.wait(20000));
        QTest::qWait(200);
        qInfo("compare view: longest stall %lld ms", meter.longest());
        QVERIFY2(meter.longest() <= 100, qPrintable(QStringLiteral("event loop stalled %1 ms").arg(meter.longest())));
        explorer.jobs()->cancelAll();
        QTRY_VERIFY_WITH_TIMEOUT(explorer.jobs()->active().isEmpty(), 20000);
    }

private:
    QTemporaryDir m_dir;
    QString m_prefix;
};

CKPT_EXPLORER_TEST_MAIN(TstOpenStall)
#include "tst_open_stall.moc"
