// The explorer with a real catalog file (ckpt/catalog.h) in a temporary
// directory: roots that persist across windows, the global search opening
// a checkpoint at the matching node, a scan that leaves the window
// responsive, previews from the results cache, and catalogs that cannot be
// used (corrupt, newer schema) reported and left byte for byte alone.

#include <QAction>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <sqlite3.h>

#include "explorer_test.h"
#include "automation/explorer_page.h"
#include "ckpt/catalog.h"
#include "ckpt/demo_trainer.h"
#include "jobs/job_tracker.h"
#include "models/catalog_search_model.h"
#include "models/directory_model.h"
#include "models/object_tree_model.h"
#include "stall_meter.h"
#include "test_support.h"
#include "views/catalog_controller.h"
#include "views/catalog_search_view.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/restore_view.h"
#include "views/stats_page.h"
#include "views/tensor_inspector.h"

using namespace ckpt;
using namespace ckpt::ui;
using ckpt::testing::StallMeter;

namespace {

constexpr const char* kKernel1 = "model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE";

bool waitIdle(MainWindow& w, int ms = 30000) {
    const ExplorerPage explorer(w);
    return QTest::qWaitFor([&] { return explorer.jobs()->active().isEmpty() && !explorer.catalog()->isScanning(); }, ms);
}

bool hasRoot(const CatalogController* c, const QString& dir) {
    for (const CatalogRoot& r : c->overview().roots)
        if (QString::fromStdString(r.path) == dir) return true;
    return false;
}

// The tensor key of the node the object tree has selected.
QString selectedKey(MainWindow& w) {
    const ExplorerPage explorer(w);
    const TreeEntry* e = explorer.treePane()->model()->entry(explorer.treePane()->view()->currentIndex());
    return e && e->tensor ? QString::fromStdString(e->tensor->key) : QString();
}

QAction* menuAction(MainWindow& w, const QString& text) {
    const ExplorerPage explorer(w);
    for (QAction* a : w.menuBar()->findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

}  // namespace

class TstCatalogExplorer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // Two runs: the default one (5 checkpoints, layer 0 frozen from step
        // 101) and a narrower one, so a search spans directories.
        for (const auto& [name, hidden] : {std::pair{"run", 32}, std::pair{"narrow", 16}}) {
            DemoTrainOptions options;
            options.directory = m_dir.filePath(QString::fromLatin1(name)).toStdString();
            options.hidden = hidden;
            auto trained = runDemoTraining(options);
            QVERIFY2(trained.ok(), trained.status().toString().c_str());
        }
        m_run = m_dir.filePath(QStringLiteral("run"));
        m_narrow = m_dir.filePath(QStringLiteral("narrow"));
        m_catalogPath = m_dir.filePath(QStringLiteral("state/catalog.db"));  // its directory is created
    }

    void rootsPersistAcrossWindows() {
        {
            MainWindow w;
            ExplorerPage explorer(w);
            w.setCatalogPath(m_catalogPath);
            QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->isLoaded(), 10000);
            QVERIFY(explorer.catalog()->error().isEmpty());
            QSignalSpy opened(&w, &MainWindow::checkpointOpened);
            w.openPath(m_run);
            QVERIFY(opened.wait(10000));
            QVERIFY(opened.first().first().toBool());
            // Opening made it a root and scanned it in the background.
            QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->overview().directories.contains(m_run), 20000);
            QVERIFY(hasRoot(explorer.catalog(), m_run));
            w.openPath(m_narrow);
            QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->overview().directories.contains(m_narrow), 20000);
            QVERIFY(waitIdle(w));
        }
        // A new window (a new launch) lists both from the catalog, nothing opened.
        MainWindow w;
        ExplorerPage explorer(w);
        QAbstractItemModelTester tester(explorer.directories(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        w.setCatalogPath(m_catalogPath);
        QTRY_VERIFY_WITH_TIMEOUT(explorer.directories()->indexForDirectory(m_run).isValid(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(explorer.directories()->indexForDirectory(m_narrow).isValid(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(explorer.directories()->rowCount(explorer.directories()->indexForDirectory(m_run)), 5, 10000);
        const QModelIndex latest = explorer.directories()->indexForPrefix(m_run + QStringLiteral("/ckpt-5"));
        QVERIFY(latest.isValid());
        // The catalog's health stands in until the sidebar verifies it: the
        // first window's sidebar verified them and recorded it there.
        QCOMPARE(latest.data(DirectoryModel::HealthRole).toInt(), static_cast<int>(Health::Unknown));
        QCOMPARE(latest.data(DirectoryModel::CatalogHealthRole).toInt(), static_cast<int>(CatalogHealth::Healthy));
        QVERIFY(latest.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Catalog: healthy")));
        // Listed from the catalog, not verified: no job reads their bytes.
        QVERIFY(waitIdle(w));
        QCOMPARE(latest.data(DirectoryModel::HealthRole).toInt(), static_cast<int>(Health::Unknown));
        // Opening one verifies its directory, and the sidebar's answer wins.
        w.openPath(m_run);
        QTRY_COMPARE_WITH_TIMEOUT(
            explorer.directories()->indexForPrefix(m_run + QStringLiteral("/ckpt-5")).data(DirectoryModel::HealthRole).toInt(),
            static_cast<int>(Health::Healthy), 20000);
        QVERIFY(waitIdle(w));
        // Closing keeps a catalogued directory in the sidebar.
        w.closeCurrent();
        QVERIFY(explorer.directories()->indexForDirectory(m_run).isValid());
    }

    void searchOpensCheckpointAtNode() {
        MainWindow w;
        ExplorerPage explorer(w);
        w.setCatalogPath(m_catalogPath);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->isLoaded() && hasRoot(explorer.catalog(), m_run), 10000);
        // Ctrl+Shift+F shows the Search tab with its box focused.
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
        CatalogSearchView* search = explorer.searchView();
        QCOMPARE(explorer.workspace()->currentWidget(), search);
        QVERIFY(search->searchEdit()->hasFocus());
        QSignalSpy finished(search, &CatalogSearchView::searchFinished);
        StallMeter meter;
        meter.start();
        QTest::keyClicks(search->searchEdit(), QStringLiteral("layer_with_weights-1/kernel"));
        QVERIFY(finished.wait(10000));
        QTRY_VERIFY(!search->isSearching());
        QVERIFY2(meter.longest() < 200, qPrintable(QStringLiteral("longest stall %1 ms").arg(meter.longest())));
        CatalogSearchModel* model = search->model();
        QVERIFY(model->result());
        // Both runs' checkpoints match: 5 + the narrow run's 5, each with
        // the kernel and its two Adam slots (scanRunsInBackground adds a sixth later).
        QCOMPARE(model->result()->totalCheckpoints, 10);
        QCOMPARE(model->rowCount(), 10);
        QVERIFY(search->summary().contains(QStringLiteral("10 checkpoint")));
        const QString prefix = m_run + QStringLiteral("/ckpt-3");
        const QModelIndex match = model->indexForMatch(prefix, QString::fromLatin1(kKernel1));
        QVERIFY(match.isValid());
        QVERIFY(model->rowCount(match.parent()) >= 3);

        // Enter on the match opens ckpt-3 with that variable selected.
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        search->view()->setFocus();
        search->view()->setCurrentIndex(match);
        QTest::keyClick(search->view(), Qt::Key_Return);
        QVERIFY(opened.wait(10000));
        QVERIFY(opened.first().first().toBool());
        QCOMPARE(QString::fromStdString(explorer.snapshot()->checkpoint->prefix()), prefix);
        QCOMPARE(explorer.workspace()->currentIndex(), 0);
        QCOMPARE(selectedKey(w), QString::fromLatin1(kKernel1));
        const TreeEntry* e = explorer.treePane()->model()->entry(explorer.treePane()->view()->currentIndex());
        QCOMPARE(e->kind, EntryKind::Variable);

        // A slot's key in the checkpoint already open selects the slot, even
        // under a filter that hid it.
        explorer.treePane()->filterEdit()->setText(QStringLiteral("bias"));
        QTRY_VERIFY(!explorer.treePane()->isFiltering());
        const QString slotKey =
            QStringLiteral("model/layer_with_weights-1/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE");
        w.openAt(prefix, slotKey);
        QCOMPARE(selectedKey(w), slotKey);
        QVERIFY(explorer.treePane()->filterEdit()->text().isEmpty());
        QVERIFY(waitIdle(w));
    }

    void searchShowsTruncation() {
        // The model over a real search with small limits: per-checkpoint
        // "more" rows and the last row for checkpoints left out.
        auto catalog = Catalog::open(m_catalogPath.toStdString());
        QVERIFY2(catalog.ok(), catalog.status().toString().c_str());
        auto result = (*catalog)->search("kernel", {.maxCheckpoints = 3, .maxMatchesPerCheckpoint = 2});
        QVERIFY2(result.ok(), result.status().toString().c_str());
        QVERIFY(result->truncated);
        CatalogSearchModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(std::make_shared<const CatalogSearchResult>(*result));
        QCOMPARE(model.rowCount(), 4);  // three checkpoints and "More…"
        const QModelIndex last = model.index(3, 0);
        QCOMPARE(last.data(CatalogSearchModel::RowKindRole).toInt(), int(CatalogSearchModel::MoreCheckpointsRow));
        QVERIFY(last.data().toString().startsWith(QStringLiteral("More\u2026")));
        const QModelIndex first = model.index(0, 0);
        QCOMPARE(model.rowCount(first), 3);  // two matches and "n more"
        const QModelIndex more = model.index(2, 0, first);
        QCOMPARE(more.data(CatalogSearchModel::RowKindRole).toInt(), int(CatalogSearchModel::MoreMatchesRow));
        QVERIFY(more.data().toString().contains(QStringLiteral("more match")));
        QVERIFY2(last.data().toString().contains(QStringLiteral(" of %1 ").arg(result->totalCheckpoints)),
                 qPrintable(last.data().toString()));

        // Totals that stopped at "at least" (a walk over many rows without
        // exactTotals) are never shown as exact.
        CatalogSearchResult bounded = *result;
        bounded.totalsExact = false;
        model.setResult(std::make_shared<const CatalogSearchResult>(bounded));
        const QString note = model.index(3, 0).data().toString();
        QVERIFY2(note.contains(QStringLiteral(" of at least %1 ").arg(bounded.totalCheckpoints)), qPrintable(note));
    }

    void scanRunsInBackground() {
        // A root holding both runs and the real corpus (read only: a scan only reads).
        MainWindow w;
        ExplorerPage explorer(w);
        w.setCatalogPath(m_catalogPath);
        w.show();
        QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->isLoaded(), 10000);
        const QString corpus = ckpt::testing::realTestDataDir();
        if (!corpus.isEmpty()) explorer.catalog()->addRoot(corpus);
        QVERIFY(waitIdle(w));
        QAction* scan = menuAction(w, QStringLiteral("S&can"));
        QVERIFY(scan && scan->isEnabled());
        QSignalSpy started(explorer.catalog(), &CatalogController::scanStarted);
        QSignalSpy finished(explorer.catalog(), &CatalogController::scanFinished);
        bool sawJob = false;
        connect(explorer.jobs(), &JobTracker::jobsChanged, this, [&] {
            for (const auto& j : explorer.jobs()->active()) sawJob = sawJob || j->title().contains(QStringLiteral("Scanning"));
        });
        StallMeter meter;
        meter.start();
        scan->trigger();
        QCOMPARE(started.count(), 1);  // returns at once; the scan runs on the pool
        QVERIFY(explorer.catalog()->isScanning());
        QVERIFY(finished.wait(30000));
        QVERIFY2(meter.longest() < 200, qPrintable(QStringLiteral("longest stall %1 ms").arg(meter.longest())));
        QVERIFY(sawJob);
        const auto result = finished.first().first().value<CatalogScanResult>();
        QVERIFY2(result.summary, qPrintable(result.error));
        QVERIFY(result.summary->checkpoints >= 10);
        if (!corpus.isEmpty()) QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->overview().directories.size() > 2, 10000);

        // Cancelled before it starts working: the engine stops, the catalog
        // stays usable. The cancel comes with scanStarted, before the job
        // reaches the pool: cancelling after scan() returned raced a quick
        // incremental scan that could finish first on a loaded machine.
        // First the scan of the corpus that addRoot queued behind the one
        // above: a scan asked for while another runs waits for it, and its
        // scanStarted would come after the cancel below is disconnected.
        QTRY_VERIFY_WITH_TIMEOUT(!explorer.catalog()->isScanning(), 30000);
        QVERIFY(waitIdle(w));
        QSignalSpy again(explorer.catalog(), &CatalogController::scanFinished);
        bool cancelledAtStart = false;
        const auto cancelAtStart = connect(explorer.catalog(), &CatalogController::scanStarted, this, [&] {
            cancelledAtStart = true;
            explorer.jobs()->cancelAll();
        });
        explorer.catalog()->scan();
        disconnect(cancelAtStart);
        QVERIFY(cancelledAtStart);
        QVERIFY(again.wait(30000));
        const auto cancelled = again.first().first().value<CatalogScanResult>();
        QVERIFY2(cancelled.cancelled, qPrintable(cancelled.error));
        QVERIFY(explorer.catalog()->error().isEmpty());
        QVERIFY(waitIdle(w));

        // A checkpoint that appears on disk: the next scan adds it and the
        // sidebar's listing of its directory follows.
        QTRY_VERIFY_WITH_TIMEOUT(explorer.directories()->indexForDirectory(m_narrow).isValid(), 10000);
        for (const QFileInfo& f : QDir(m_narrow).entryInfoList({QStringLiteral("ckpt-1.*")}, QDir::Files))
            QVERIFY(QFile::copy(f.absoluteFilePath(),
                                m_narrow + QStringLiteral("/ckpt-9.") + f.fileName().section(QLatin1Char('.'), 1)));
        const QString added = m_narrow + QStringLiteral("/ckpt-9");
        QSignalSpy rescanned(explorer.catalog(), &CatalogController::scanFinished);
        scan->trigger();
        QVERIFY(rescanned.wait(30000));
        QCOMPARE(rescanned.first().first().value<CatalogScanResult>().summary->added, 1);
        QTRY_VERIFY_WITH_TIMEOUT(explorer.directories()->indexForPrefix(added).isValid(), 10000);

        // Scan and Verify keeps the verdicts: a new window shows them without verifying.
        QAction* verify = menuAction(w, QStringLiteral("Scan and &Verify"));
        QVERIFY(verify && verify->isEnabled());
        QSignalSpy verified(explorer.catalog(), &CatalogController::scanFinished);
        verify->trigger();
        QVERIFY(verified.wait(30000));
        QVERIFY(verified.first().first().value<CatalogScanResult>().summary->verified >= 11);
        QVERIFY(waitIdle(w));
        MainWindow next;
        next.setCatalogPath(m_catalogPath);
        QTRY_VERIFY_WITH_TIMEOUT(ExplorerPage(next).directories()->indexForPrefix(added).isValid(), 10000);
        const QModelIndex row = ExplorerPage(next).directories()->indexForPrefix(added);
        QCOMPARE(row.data(DirectoryModel::CatalogHealthRole).toInt(), static_cast<int>(CatalogHealth::Healthy));
        QCOMPARE(row.data(DirectoryModel::HealthRole).toInt(), static_cast<int>(Health::Unknown));
        QVERIFY(row.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Catalog: healthy")));
        QVERIFY(waitIdle(next));
    }

    void previewsComeFromTheCache() {
        // Layer 0 is frozen from step 101: ckpt-3, -4 and -5 store its kernel
        // byte for byte alike, so its statistics are computed once.
        MainWindow w;
        ExplorerPage explorer(w);
        w.setCatalogPath(m_catalogPath);
        w.show();
        QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->isLoaded(), 10000);
        auto* stats = explorer.inspector()->findChild<StatsPage*>();
        auto* tabs = explorer.inspector()->findChild<QTabWidget*>();
        QVERIFY(stats && tabs);
        tabs->setCurrentWidget(stats);
        const QString key = QStringLiteral("model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE");
        QList<bool> fromCache;
        for (const char* name : {"ckpt-3", "ckpt-4"}) {
            QSignalSpy opened(&w, &MainWindow::checkpointOpened);
            QSignalSpy ready(stats, &PreviewPage::previewReady);
            w.openAt(m_run + QLatin1Char('/') + QLatin1String(name), key);
            QVERIFY(opened.wait(10000));
            QCOMPARE(selectedKey(w), key);
            QVERIFY(ready.wait(10000));
            QVERIFY(ready.last().first().toBool());
            fromCache << stats->isFromCache();
        }
        QCOMPARE(fromCache.last(), true);
        QVERIFY(stats->computedOn().contains(QStringLiteral("cache")));
        QVERIFY(waitIdle(w));
    }

    void restoresAreRecorded() {
        // Restore, write and verify from the Restore tab: the catalog's
        // history has it, as `ckpt catalog history` shows it.
        MainWindow w;
        ExplorerPage explorer(w);
        w.setCatalogPath(m_catalogPath);
        QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->isLoaded(), 10000);
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(m_run + QStringLiteral("/ckpt-5"));
        QVERIFY(opened.wait(10000));
        QTemporaryDir out;
        const QString outPrefix = out.filePath(QStringLiteral("restored/ckpt"));
        QSignalSpy finished(explorer.restoreView(), &RestoreView::restoreFinished);
        explorer.restoreView()->restoreTo(outPrefix);
        QVERIFY(finished.wait(20000));
        QVERIFY(finished.first().first().toBool());
        QVERIFY(waitIdle(w));
        auto catalog = Catalog::open(m_catalogPath.toStdString());
        QVERIFY2(catalog.ok(), catalog.status().toString().c_str());
        auto history = (*catalog)->restores();
        QVERIFY2(history.ok(), history.status().toString().c_str());
        QVERIFY(!history->empty());
        const RestoreRecord& r = history->front();
        QCOMPARE(QString::fromStdString(r.tool), QStringLiteral("ckpt-explorer"));
        QCOMPARE(QString::fromStdString(r.source), m_run + QStringLiteral("/ckpt-5"));
        QCOMPARE(QString::fromStdString(r.output), outPrefix);
        QVERIFY(r.ok);
    }

    void corruptCatalogIsReportedAndLeftAlone() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("catalog.db"));
        QByteArray garbage("not a database: ");
        for (int i = 0; i < 4096; ++i) garbage.append(static_cast<char>((i * 131) & 0xff));
        QVERIFY(ckpt::testing::writeAll(path, garbage));
        checkUnusable(path, garbage);
    }

    void newerSchemaIsReportedAndLeftAlone() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("catalog.db"));
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        const QByteArray sql =
            QStringLiteral("CREATE TABLE future(x); PRAGMA user_version = %1;").arg(Catalog::kSchemaVersion + 1).toUtf8();
        QCOMPARE(sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        checkUnusable(path, ckpt::testing::readAll(path));
    }

private:
    void checkUnusable(const QString& path, const QByteArray& before) {
        MainWindow w;
        ExplorerPage explorer(w);
        w.show();
        QSignalSpy unavailable(&w, &MainWindow::catalogUnavailable);
        w.setCatalogPath(path);
        QVERIFY(unavailable.wait(10000));
        const QString message = unavailable.first().first().toString();
        QVERIFY2(message.contains(path), qPrintable(message));
        auto* box = w.findChild<QMessageBox*>(QStringLiteral("catalogUnavailableMessage"));
        QVERIFY(box && box->isVisible());
        QVERIFY(box->text().contains(path));
        box->accept();
        QVERIFY(!explorer.searchView()->searchEdit()->isEnabled());
        // The explorer goes on without it: opening works, nothing is catalogued.
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(m_run);
        QVERIFY(opened.wait(10000));
        QVERIFY(opened.first().first().toBool());
        QVERIFY(waitIdle(w));
        QCOMPARE(ckpt::testing::readAll(path), before);
        QVERIFY(!QFileInfo::exists(path + QStringLiteral("-wal")) || QFileInfo(path + QStringLiteral("-wal")).size() == 0);
    }

    QTemporaryDir m_dir;
    QString m_run;
    QString m_narrow;
    QString m_catalogPath;
};

CKPT_EXPLORER_TEST_MAIN(TstCatalogExplorer)
#include "tst_catalog_explorer.moc"
