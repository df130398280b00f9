// The checkpoint sidebar as a user drives it (issue #30): any cell of a
// checkpoint's row opens it, columns sort (a run shown newest first), dates
// carry their year and sizes the CLI's binary units, a SavedModel reads as
// its model's name, names keep their width, bold has a legend, and Open
// Recent marks a checkpoint deleted since.

#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QMenu>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "automation/explorer_page.h"
#include "ckpt/demo_trainer.h"
#include "explorer_test.h"
#include "models/object_tree_model.h"
#include "style/text_format.h"
#include "window_test_support.h"

using namespace ckpt;
using namespace ckpt::ui;
using ckpt::testing::openAndWait;
using ckpt::testing::waitIdle;

namespace {

enum Column { NameColumn, StepColumn, ModifiedColumn, SizeColumn };

// The checkpoint names of a directory row in the order the view shows them.
QStringList shownNames(CheckpointSidebar* sidebar, const QModelIndex& dir) {
    QStringList names;
    for (int r = 0; r < sidebar->model()->rowCount(dir); ++r) names << sidebar->model()->index(r, 0, dir).data().toString();
    return names;
}

}  // namespace

class TstSidebar : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        DemoTrainOptions run;  // 200 steps, a save every 40: ckpt-1..5 at steps 40..200
        run.directory = m_dir.filePath(QStringLiteral("run")).toStdString();
        auto trained = runDemoTraining(run);
        QVERIFY2(trained.ok(), trained.status().toString().c_str());
        for (int i = 1; i <= 5; ++i) m_prefixes << m_dir.filePath(QStringLiteral("run/ckpt-%1").arg(i));
    }

    // A click, a double-click or Enter on Step or Modified opens the row's
    // checkpoint, as on its name (item 10).
    void everyCellOfARowOpensIt() {
        MainWindow w;
        ExplorerPage page(w);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, m_dir.filePath(QStringLiteral("run"))));
        CheckpointSidebar* sidebar = page.sidebar();
        // Wide enough for every column (a narrow one hides Size and Modified).
        page.splitter()->setSizes({700, 400, 300});
        QTRY_VERIFY(!sidebar->header()->isSectionHidden(SizeColumn));
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        const auto click = [&](int row, int column) {
            const QModelIndex cell = page.sidebarRow(m_prefixes[row]).siblingAtColumn(column);
            sidebar->scrollTo(cell);
            QTest::mouseClick(sidebar->viewport(), Qt::LeftButton, {}, sidebar->visualRect(cell).center());
        };
        click(1, StepColumn);
        QVERIFY(opened.wait(10000));
        QCOMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), m_prefixes[1]);
        click(2, ModifiedColumn);
        QTRY_COMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), m_prefixes[2]);
        // A double-click activates the cell it lands on (the view's activated()).
        emit sidebar->activated(page.sidebarRow(m_prefixes[4]).siblingAtColumn(ModifiedColumn));
        QTRY_COMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), m_prefixes[4]);
        sidebar->setFocus();
        sidebar->setCurrentIndex(page.sidebarRow(m_prefixes[3]).siblingAtColumn(SizeColumn));
        QTest::keyClick(sidebar, Qt::Key_Return);
        QTRY_COMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), m_prefixes[3]);
        QVERIFY(waitIdle(w));
    }

    // Clicking a header sorts by it: a run newest first; "previous" and
    // comparisons still go by step (item 18).
    void columnsSort() {
        MainWindow w;
        ExplorerPage page(w);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, m_dir.filePath(QStringLiteral("run"))));
        CheckpointSidebar* sidebar = page.sidebar();
        const QModelIndex dir = sidebar->indexForDirectory(QDir::cleanPath(m_dir.filePath(QStringLiteral("run"))));
        QVERIFY(dir.isValid());
        const QStringList stepOrder{QStringLiteral("ckpt-1"), QStringLiteral("ckpt-2"), QStringLiteral("ckpt-3"),
                                    QStringLiteral("ckpt-4"), QStringLiteral("ckpt-5")};
        QCOMPARE(shownNames(sidebar, dir), stepOrder);
        QHeaderView* header = sidebar->header();
        const QPoint stepHeader(header->sectionViewportPosition(StepColumn) + header->sectionSize(StepColumn) / 2,
                                header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, stepHeader);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, stepHeader);
        QCOMPARE(header->sortIndicatorSection(), int(StepColumn));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QStringList newestFirst = stepOrder;
        std::reverse(newestFirst.begin(), newestFirst.end());
        QCOMPARE(shownNames(sidebar, sidebar->indexForDirectory(QDir::cleanPath(m_dir.filePath(QStringLiteral("run"))))),
                 newestFirst);
        QCOMPARE(sidebar->previousCheckpoint(m_prefixes[3]), m_prefixes[2]);
        page.selectCheckpoints({m_prefixes[4], m_prefixes[1]});
        QCOMPARE(sidebar->selectedPrefixes(), (QStringList{m_prefixes[1], m_prefixes[4]}));  // older first
        // Names sort naturally ("ckpt-10" after "ckpt-9"), sizes and times by value.
        header->setSortIndicator(NameColumn, Qt::AscendingOrder);
        QCOMPARE(shownNames(sidebar, sidebar->indexForDirectory(QDir::cleanPath(m_dir.filePath(QStringLiteral("run"))))),
                 stepOrder);
        QVERIFY2(header->toolTip().contains(QStringLiteral("Bold")), "the bold row has no legend");
        QVERIFY(waitIdle(w));
    }

    // Dates with their year, sizes as `ckpt` prints them (item 13).
    void datesAndSizesAsTheCliWritesThem() {
        MainWindow w;
        ExplorerPage page(w);
        w.resize(1600, 900);
        w.show();
        QVERIFY(openAndWait(w, m_dir.filePath(QStringLiteral("run"))));
        const QModelIndex row = page.sidebarRow(m_prefixes[0]);
        const QString modified = row.siblingAtColumn(ModifiedColumn).data().toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d$")).match(modified).hasMatch(),
                 qPrintable(modified));
        const QString size = row.siblingAtColumn(SizeColumn).data().toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+\\.\\d KiB$")).match(size).hasMatch(), qPrintable(size));
        QCOMPARE(formatBytes(512), QStringLiteral("512 B"));
        QCOMPARE(formatBytes(8602), QStringLiteral("8.4 KiB"));
        QCOMPARE(formatBytes(3ll << 30), QStringLiteral("3.0 GiB"));
        // The tree's sizes are the same units ("128 B", not "128 bytes" or "kB").
        ObjectTreeModel* tree = page.treePane()->model();
        const auto& entries = page.snapshot()->entries;
        int checked = 0;
        for (int32_t e = 1; e < static_cast<int32_t>(entries.size()); ++e) {
            const QModelIndex i = tree->indexForEntry(e);
            if (!i.isValid() || !entries[static_cast<size_t>(e)].tensor) continue;
            QCOMPARE(i.siblingAtColumn(ObjectTreeModel::SizeColumn).data().toString(),
                     formatBytes(entries[static_cast<size_t>(e)].tensor->storedBytes()));
            ++checked;
        }
        QVERIFY(checked > 0);
        QVERIFY(waitIdle(w));
    }

    // A SavedModel (saved_model.pb beside variables/variables.*) reads as
    // the model's folder, not "variables / variables" (item 22).
    void savedModelReadsAsItsModel() {
        QTemporaryDir tmp;
        const QString model = tmp.filePath(QStringLiteral("half_plus_two"));
        QVERIFY(QDir().mkpath(model + QStringLiteral("/variables")));
        QVERIFY(ckpt::testing::writeAll(model + QStringLiteral("/saved_model.pb"), QByteArray("\x08\x01", 2)));
        for (const QString& suffix : {QStringLiteral(".index"), QStringLiteral(".data-00000-of-00001")})
            QVERIFY(QFile::copy(m_prefixes[0] + suffix, model + QStringLiteral("/variables/variables") + suffix));
        MainWindow w;
        ExplorerPage page(w);
        w.show();
        QVERIFY(openAndWait(w, model));
        const QModelIndex dir = page.sidebar()->indexForDirectory(model + QStringLiteral("/variables"));
        QVERIFY(dir.isValid());
        QCOMPARE(dir.data().toString(), QStringLiteral("half_plus_two (SavedModel)"));
        QVERIFY(waitIdle(w));
    }

    // In a narrow sidebar Size and Modified give way before a name is cut
    // ("ck…00", item 22).
    void namesKeepTheirWidth() {
        QTemporaryDir tmp;
        const QString longName = tmp.filePath(QStringLiteral("model.ckpt-1200000"));
        for (const QString& suffix : {QStringLiteral(".index"), QStringLiteral(".data-00000-of-00001")})
            QVERIFY(QFile::copy(m_prefixes[4] + suffix, longName + suffix));
        MainWindow w;
        ExplorerPage page(w);
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, longName));
        CheckpointSidebar* sidebar = page.sidebar();
        const QModelIndex row = page.sidebarRow(longName);
        QVERIFY(row.isValid());
        QTRY_VERIFY(sidebar->header()->isSectionHidden(SizeColumn));  // gave way
        QTRY_VERIFY(sidebar->header()->isSectionHidden(ModifiedColumn));
        QFont bold = sidebar->font();
        bold.setBold(true);
        const int text = QFontMetrics(bold).horizontalAdvance(row.data().toString());
        const QRect cell = sidebar->visualRect(row);
        QVERIFY2(cell.width() - sidebar->iconSize().width() - 8 >= text,
                 qPrintable(QStringLiteral("%1 px for a %2 px name").arg(cell.width()).arg(text)));
        QVERIFY(waitIdle(w));
    }

    // Open Recent marks a checkpoint deleted since (item 22).
    void recentMarksMissingCheckpoints() {
        QTemporaryDir tmp;
        const QString copy = tmp.filePath(QStringLiteral("ckpt-9"));
        for (const QString& suffix : {QStringLiteral(".index"), QStringLiteral(".data-00000-of-00001")})
            QVERIFY(QFile::copy(m_prefixes[0] + suffix, copy + suffix));
        MainWindow w;
        ExplorerPage page(w);
        w.show();
        QVERIFY(openAndWait(w, copy));
        QVERIFY(openAndWait(w, m_prefixes[1]));
        QVERIFY(QFile::remove(copy + QStringLiteral(".index")));
        QMenu* recent = page.recentMenu();
        emit recent->aboutToShow();
        QStringList texts;
        for (QAction* a : recent->actions()) texts << a->text();
        QVERIFY2(texts.contains(copy + QStringLiteral(" (missing)")), qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY2(texts.contains(m_prefixes[1]), qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY(waitIdle(w));
    }

private:
    QTemporaryDir m_dir;
    QStringList m_prefixes;
};

CKPT_EXPLORER_TEST_MAIN(TstSidebar)
#include "tst_sidebar.moc"
