// The explorer's catalog with a run in object storage (issue #32, item 3;
// docs/catalog.md): a demo run uploaded to SeaweedFS on loopback (the `s3`
// fixture) and added to a catalog with `ckpt catalog add s3://…`. The
// explorer with that catalog lists the remote run in its sidebar, the
// global search finds its tensors beside a local run's, and Enter on a
// match opens the remote checkpoint with that variable selected. Catalog ▸
// Add Location… catalogues the run by its URL.

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <optional>

#include "automation/explorer_page.h"
#include "ckpt/object_store.h"
#include "explorer_test.h"
#include "jobs/job_tracker.h"
#include "models/catalog_search_model.h"
#include "models/directory_model.h"
#include "models/object_tree_model.h"
#include "s3_test_server.h"
#include "test_support.h"
#include "views/catalog_controller.h"
#include "views/catalog_search_view.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/open_location_dialog.h"
#include "window_test_support.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

const QString kKernel1 = QStringLiteral("model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE");

}  // namespace

class TstRemoteCatalogExplorer : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    QTemporaryDir m_tmp;
    QString m_local;
    QString m_remote;
    QString m_catalog;

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        const auto run = testing::uploadedDemoRun(
            *m_server, m_tmp.filePath(QStringLiteral("run")), "tst_remote_catalog_explorer",
            {QStringLiteral("--steps"), QStringLiteral("60"), QStringLiteral("--save-every"), QStringLiteral("20")}, &why);
        QVERIFY2(run.has_value(), qPrintable(why));
        m_local = run->local;
        m_remote = run->remote;
        m_catalog = m_tmp.filePath(QStringLiteral("catalog.db"));
        for (const QString& root : {m_local, m_remote}) {
            const testing::CliRun add = testing::runCkpt(
                {QStringLiteral("catalog"), QStringLiteral("add"), root, QStringLiteral("--catalog"), m_catalog});
            QVERIFY2(add.exitCode == 0, (add.out + add.err).constData());
        }
    }

    void searchFindsAndOpensARemoteCheckpoint() {
        MainWindow w;
        ExplorerPage explorer(w);
        w.setCatalogPath(m_catalog);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->isLoaded(), 10000);
        QVERIFY(explorer.catalog()->error().isEmpty());
        // The sidebar lists the remote run from the catalog, with its 3 checkpoints.
        QTRY_VERIFY_WITH_TIMEOUT(explorer.directories()->indexForDirectory(m_remote).isValid(), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(explorer.directories()->rowCount(explorer.directories()->indexForDirectory(m_remote)), 3,
                                  20000);

        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
        CatalogSearchView* search = explorer.searchView();
        QSignalSpy finished(search, &CatalogSearchView::searchFinished);
        QTest::keyClicks(search->searchEdit(), QStringLiteral("layer_with_weights-1/kernel"));
        QVERIFY(finished.wait(10000));
        QTRY_VERIFY(!search->isSearching());
        CatalogSearchModel* model = search->model();
        QVERIFY(model->result());
        QCOMPARE(model->result()->totalCheckpoints, 6);  // 3 local, 3 remote
        const QString prefix = m_remote + QStringLiteral("/ckpt-2");
        const QModelIndex match = model->indexForMatch(prefix, kKernel1);
        QVERIFY2(match.isValid(), "the remote checkpoint's kernel is not among the matches");

        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        search->view()->setFocus();
        search->view()->setCurrentIndex(match);
        QTest::keyClick(search->view(), Qt::Key_Return);
        QVERIFY(opened.wait(30000));
        QVERIFY(opened.first().first().toBool());
        QCOMPARE(QString::fromStdString(explorer.snapshot()->checkpoint->prefix()), prefix);
        const TreeEntry* e = explorer.treePane()->model()->entry(explorer.treePane()->view()->currentIndex());
        QVERIFY(e && e->tensor);
        QCOMPARE(QString::fromStdString(e->tensor->key), kKernel1);
        QVERIFY(testing::waitIdle(w));
    }

    // Catalog ▸ Add Location… takes a URL as typed (a run's prefix, with or
    // without its trailing slash) and catalogues it: the sidebar lists the
    // run from the catalog, and the catalog's root is the URL, not a local
    // folder named "s3:".
    void addLocationThroughTheCatalogMenu() {
        MainWindow w;
        ExplorerPage explorer(w);
        w.setCatalogPath(m_tmp.filePath(QStringLiteral("added.db")));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY_WITH_TIMEOUT(explorer.catalog()->isLoaded(), 10000);
        QAction* add = nullptr;
        for (QAction* a : w.menuBar()->findChildren<QAction*>())
            if (a->text() == QStringLiteral("Add &Location\u2026")) add = a;
        QVERIFY(add);
        QTRY_VERIFY(add->isEnabled());
        add->trigger();
        auto* dialog = w.findChild<OpenLocationDialog*>(QStringLiteral("addLocationDialog"));
        QVERIFY(dialog);
        QPushButton* accept = nullptr;
        auto* buttons = dialog->findChild<QDialogButtonBox*>();
        for (QAbstractButton* b : buttons->buttons())
            if (buttons->buttonRole(b) == QDialogButtonBox::AcceptRole) accept = qobject_cast<QPushButton*>(b);
        QVERIFY(accept);
        QLineEdit* edit = dialog->locationBox()->lineEdit();
        edit->setText(QStringLiteral("s3:/") + m_remote.mid(5));  // a URL mistyped: refused as typed
        QVERIFY(!accept->isEnabled());
        QVERIFY2(dialog->message().contains(QStringLiteral("not a URL")), qPrintable(dialog->message()));
        edit->setText(m_remote + QLatin1Char('/'));
        QVERIFY2(accept->isEnabled(), qPrintable(dialog->message()));
        accept->click();
        QTRY_VERIFY_WITH_TIMEOUT(explorer.directories()->indexForDirectory(m_remote).isValid(), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(explorer.directories()->rowCount(explorer.directories()->indexForDirectory(m_remote)), 3,
                                  20000);
        QTRY_VERIFY_WITH_TIMEOUT(!explorer.catalog()->isScanning(), 20000);
        QStringList roots;
        for (const CatalogRoot& r : explorer.catalog()->overview().roots) roots << QString::fromStdString(r.path);
        QCOMPARE(roots, QStringList{m_remote});
        QVERIFY(!QFileInfo::exists(QStringLiteral("s3:")));
    }
};

CKPT_EXPLORER_TEST_MAIN(TstRemoteCatalogExplorer)
#include "tst_remote_catalog_explorer.moc"
