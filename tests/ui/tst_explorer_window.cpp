// Clicks through the real window: open -> filter -> inspect, the sidebar's
// health badges, and error panels for corrupt and vanished checkpoints.

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QClipboard>
#include <QFile>
#include <QLineEdit>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include "explorer_test.h"
#include "automation/explorer_page.h"
#include "ckpt/bundle_reader.h"
#include "jobs/demo_jobs.h"
#include "jobs/job_tracker.h"
#include "models/directory_model.h"
#include "models/object_tree_model.h"
#include "models/tensor_slice_model.h"
#include "test_support.h"
#include "window_test_support.h"
#include "views/error_panel.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/tensor_inspector.h"
#include "views/values_page.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

using ckpt::testing::bundleDir;
using ckpt::testing::waitIdle;

}  // namespace

class TstExplorerWindow : public QObject {
    Q_OBJECT
private slots:

    // The demo lives in the application's data folder, named once (Qt's
    // AppDataLocation would give .../ckpt-explorer/ckpt-explorer/demo).
    void demoFolderNamedOnce() {
        const QString saved = QCoreApplication::organizationName();
        const QString savedApp = QCoreApplication::applicationName();
        QCoreApplication::setOrganizationName(QStringLiteral("ckpt-explorer"));
        QCoreApplication::setApplicationName(QStringLiteral("ckpt-explorer"));
        const QString demo = defaultDemoDirectory();
        QCoreApplication::setOrganizationName(saved);
        QCoreApplication::setApplicationName(savedApp);
        QCOMPARE(demo, QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
                           .filePath(QStringLiteral("ckpt-explorer/demo")));
        QVERIFY2(!demo.contains(QStringLiteral("ckpt-explorer/ckpt-explorer")), qPrintable(demo));
    }

    void openFilterInspect() {
        const QString dir = bundleDir("tfx_keras_adam_savedmodel");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        MainWindow w;
        ExplorerPage explorer(w);
        QAbstractItemModelTester tester(explorer.treePane()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester sidebarTester(explorer.directories(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(dir);
        QVERIFY(opened.wait(10000));
        QCOMPARE(opened.first().first().toBool(), true);
        QVERIFY(!explorer.isErrorShown());
        QVERIFY(explorer.treePane()->model()->rowCount() > 0);
        QCOMPARE(explorer.recentFiles().value(0), QDir::cleanPath(dir));

        // The sidebar lists the checkpoint and verification marks it healthy.
        QVERIFY(waitIdle(w));
        const QModelIndex item = explorer.directories()->indexForPrefix(dir + QStringLiteral("/variables"));
        QVERIFY(item.isValid());
        QCOMPARE(item.data(DirectoryModel::HealthRole).toInt(), static_cast<int>(Health::Healthy));

        // Ctrl+F focuses the filter; typing narrows the tree to kernels.
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(explorer.treePane()->filterEdit()->hasFocus());
        QSignalSpy filtered(explorer.treePane(), &ObjectTreePane::filterApplied);
        QTest::keyClicks(explorer.treePane()->filterEdit(), QStringLiteral("kernel"));
        QVERIFY(filtered.wait(5000));
        QTRY_VERIFY(!explorer.treePane()->isFiltering());

        // Find a visible kernel row and click it.
        ObjectTreeModel* model = explorer.treePane()->model();
        QModelIndex kernel;
        std::function<void(const QModelIndex&)> find = [&](const QModelIndex& parent) {
            if (model->canFetchMore(parent)) model->fetchMore(parent);
            if (model->hasChildren(parent) && model->rowCount(parent) == 0) QCoreApplication::processEvents();
            for (int r = 0; r < model->rowCount(parent) && !kernel.isValid(); ++r) {
                const QModelIndex i = model->index(r, 0, parent);
                const TreeEntry* e = model->entry(i);
                if (e->tensor && e->tensor->shape.rank() == 2 && e->name == "kernel") kernel = i;
                else find(i);
            }
        };
        find({});
        QVERIFY(kernel.isValid());
        QTreeView* view = explorer.treePane()->view();
        for (QModelIndex p = kernel.parent(); p.isValid(); p = p.parent()) view->expand(p);
        view->scrollTo(kernel);
        QSignalSpy values(explorer.inspector(), &TensorInspector::valuesReady);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(kernel).center());
        QCOMPARE(view->currentIndex(), kernel);
        QVERIFY(values.wait(5000));
        QCOMPARE(values.first().first().toBool(), true);
        const TensorInfo* info = model->entry(kernel)->tensor;
        ValuesPage* page = explorer.inspector()->valuesPage();
        QCOMPARE(page->model()->rowCount(), static_cast<int>(info->shape.dims[0]));
        QCOMPARE(page->model()->columnCount(), static_cast<int>(info->shape.dims[1]));
        QVERIFY(!page->model()->index(0, 0).data().toString().isEmpty());

        // Copy and .npy export of what is shown.
        page->table()->selectionModel()->select(page->model()->index(0, 0), QItemSelectionModel::Select);
        page->copySelection();
        QCOMPARE(QGuiApplication::clipboard()->text(), page->model()->index(0, 0).data().toString() + QLatin1Char('\n'));
        QTemporaryDir tmp;
        QCOMPARE(page->exportNpy(tmp.filePath(QStringLiteral("k.npy"))), QString());
        QVERIFY(QFileInfo(tmp.filePath(QStringLiteral("k.npy"))).size() > info->storedBytes());

        // Hiding slot variables removes the optimizer's per-variable state.
        explorer.treePane()->filterEdit()->clear();
        QVERIFY(filtered.wait(5000));
        QTRY_VERIFY(!explorer.treePane()->isFiltering());
        explorer.treePane()->slotsBox()->setChecked(false);
        QTRY_VERIFY(!explorer.treePane()->isFiltering());
        for (int32_t e = 1; e < static_cast<int32_t>(explorer.snapshot()->entries.size()); ++e)
            if (explorer.snapshot()->entries[static_cast<size_t>(e)].kind == EntryKind::SlotVariable)
                QVERIFY(!model->indexForEntry(e).isValid());

        // Ctrl+W closes it.
        QTest::keyClick(&w, Qt::Key_W, Qt::ControlModifier);
        QVERIFY(!explorer.snapshot());
        QCOMPARE(explorer.treePane()->model()->rowCount(), 0);
        QVERIFY(waitIdle(w));
    }

    void dropOpensAndRecentFilesPersist() {
        const QString dir = bundleDir("serving_half_plus_two_tf2");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        {
            MainWindow w;
            ExplorerPage explorer(w);
            w.show();
            QSignalSpy opened(&w, &MainWindow::checkpointOpened);
            QMimeData mime;
            mime.setUrls({QUrl::fromLocalFile(dir)});
            QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QCoreApplication::sendEvent(&w, &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QCoreApplication::sendEvent(&w, &drop);
            QVERIFY(opened.wait(10000));
            QCOMPARE(opened.first().first().toBool(), true);
            QVERIFY(waitIdle(w));
            w.close();
        }
        MainWindow again;
        QCOMPARE(ExplorerPage(again).recentFiles().value(0), QDir::cleanPath(dir));
    }

    void corruptCheckpointShowsVerifyMessage() {
        const QString dir = bundleDir("tfx_tuner_save_weights");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        QTemporaryDir tmp;
        QVERIFY(ckpt::testing::copyDirectory(dir, tmp.path()));
        // Damage the data file so the object graph's checksum fails.
        const QString data = tmp.filePath(QStringLiteral("checkpoint.data-00000-of-00001"));
        QByteArray bytes = ckpt::testing::readAll(data);
        for (qsizetype i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
        QVERIFY(ckpt::testing::writeAll(data, bytes));
        MainWindow w;
        ExplorerPage explorer(w);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(tmp.path());
        QVERIFY(opened.wait(10000));
        QCOMPARE(opened.first().first().toBool(), false);
        QVERIFY(explorer.isErrorShown());
        const QString text = explorer.errorPanel()->messageText();
        QVERIFY2(text.contains(QStringLiteral("DataLoss")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("checksum")), qPrintable(text));
        QVERIFY(waitIdle(w));
        const QModelIndex item = explorer.directories()->indexForPrefix(tmp.filePath(QStringLiteral("checkpoint")));
        QCOMPARE(item.data(DirectoryModel::HealthRole).toInt(), static_cast<int>(Health::Damaged));
    }

    // A tensor whose bytes were damaged after the checkpoint opened (one
    // flipped byte): the grid shows the engine's DataLoss, not "Reading
    // values…" forever (issue #30, item 8).
    void failedReadIsShownInTheGrid() {
        const QString dir = bundleDir("tfx_tuner_save_weights");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        QTemporaryDir tmp;
        QVERIFY(ckpt::testing::copyDirectory(dir, tmp.path()));
        const QString prefix = tmp.filePath(QStringLiteral("checkpoint"));
        // The largest float tensor, flipped in the middle of its region.
        auto reader = BundleReader::open(prefix.toStdString());
        QVERIFY(reader.ok());
        const TensorInfo* target = nullptr;
        for (const TensorInfo& t : (*reader)->tensors())
            if (t.dtype == DataType::Float && !t.isPartitioned() && (!target || t.storedBytes() > target->storedBytes()))
                target = &t;
        QVERIFY(target);
        const QString key = QString::fromStdString(target->key);
        const QString data = QString::fromStdString((*reader)->dataPath(target->region.shardId));
        QByteArray bytes = ckpt::testing::readAll(data);
        const auto at = static_cast<qsizetype>(target->region.offset + target->region.size / 2);
        bytes[at] = static_cast<char>(bytes[at] ^ 0x40);
        MainWindow w;
        ExplorerPage explorer(w);
        ExplorerPage page(w);
        w.show();
        QVERIFY(ckpt::testing::openAndWait(w, prefix));
        QVERIFY(ckpt::testing::writeAll(data, bytes));  // damaged after opening: the read finds it
        QSignalSpy values(page.inspector(), &TensorInspector::valuesReady);
        QVERIFY(page.treePane()->selectKey(key));
        QVERIFY(values.wait(10000));
        QCOMPARE(values.first().first().toBool(), false);
        const QString message = page.inspector()->valuesPage()->message();
        QVERIFY2(message.contains(QStringLiteral("DataLoss")), qPrintable(message));
        QVERIFY2(!message.contains(QStringLiteral("Reading")), qPrintable(message));
        QVERIFY(waitIdle(w));
    }

    void vanishedCheckpointOnRefresh() {
        const QString dir = bundleDir("tfx_estimator_ckpt1000");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        QTemporaryDir tmp;
        QVERIFY(ckpt::testing::copyDirectory(dir, tmp.path()));
        MainWindow w;
        ExplorerPage explorer(w);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(tmp.filePath(QStringLiteral("model.ckpt-1000")));
        QVERIFY(opened.wait(10000));
        QCOMPARE(opened.takeFirst().first().toBool(), true);
        QVERIFY(waitIdle(w));
        QVERIFY(QFile::remove(tmp.filePath(QStringLiteral("model.ckpt-1000.index"))));
        QTest::keyClick(&w, Qt::Key_F5);
        QVERIFY(opened.wait(10000));
        QCOMPARE(opened.takeFirst().first().toBool(), false);
        QVERIFY(explorer.isErrorShown());
        QVERIFY2(explorer.errorPanel()->messageText().contains(QStringLiteral("NotFound")),
                 qPrintable(explorer.errorPanel()->messageText()));
        QVERIFY(waitIdle(w));
        // The sidebar no longer lists it.
        QVERIFY(!explorer.directories()->indexForPrefix(tmp.filePath(QStringLiteral("model.ckpt-1000"))).isValid());
    }

    void nameBasedCheckpoint() {
        const QString dir = bundleDir("tfx_estimator_ckpt1000");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        MainWindow w;
        ExplorerPage explorer(w);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(dir);
        QVERIFY(opened.wait(10000));
        QCOMPARE(opened.first().first().toBool(), true);
        const QModelIndex first = explorer.treePane()->model()->index(0, 0);
        QVERIFY(first.isValid());
        const TreeEntry* e = explorer.treePane()->model()->entry(first);
        QVERIFY(e->kind == EntryKind::KeyGroup || e->kind == EntryKind::Key);
        QVERIFY(waitIdle(w));
    }
};

CKPT_EXPLORER_TEST_MAIN(TstExplorerWindow)
#include "tst_explorer_window.moc"
