// Heatmaps as a daily tool: the value under the mouse and under the
// keyboard's cell, zoom by shortcut, button and Ctrl+wheel with fit to
// window resetting it, the compare view's three heatmaps zooming together,
// and the slice and zoom kept when the same variable is opened in another
// checkpoint of one run (a demo training run), reset for another variable.

#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtTest>

#include "explorer_test.h"
#include "automation/explorer_page.h"
#include "ckpt/demo_trainer.h"
#include "views/heatmap_controls.h"
#include "views/heatmap_page.h"
#include "views/heatmap_view.h"
#include "views/heatmap_zoom_bar.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/pair_heatmap_panel.h"
#include "views/tensor_inspector.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

// A 2 x 3 heatmap with known values: row r, column c holds r * 3 + c, and
// the last cell 5.5 so a value's digits are checked, not only its position.
Heatmap knownHeatmap() {
    Heatmap h;
    h.width = 3;
    h.height = 2;
    h.values = {0, 1, 2, 3, 4, 5.5};
    h.rgba.assign(static_cast<size_t>(h.width * h.height * 4), 255);
    h.colormap = "viridis";
    h.lo = 0;
    h.hi = 5.5;
    h.rowAxis = 0;
    h.colAxis = 1;
    return h;
}

QImage imageOf(const Heatmap& h) {
    QImage image(h.width, h.height, QImage::Format_RGBA8888);
    image.fill(Qt::darkCyan);
    return image;
}

// The centre of heatmap cell (x, y) in the view's coordinates.
QPointF cellCentre(const HeatmapView& view, int x, int y) {
    const QRectF r = view.imageRect();
    const Heatmap& h = *view.heatmap();
    return r.topLeft() + QPointF((x + 0.5) * r.width() / h.width, (y + 0.5) * r.height() / h.height);
}

void moveMouse(HeatmapView* view, QPointF pos) {
    QMouseEvent move(QEvent::MouseMove, pos, view->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(view, &move);
}

// A page holding a zoom bar and one view, as the inspector lays them out.
struct Host {
    QWidget widget;
    HeatmapZoomBar* bar = new HeatmapZoomBar(&widget);
    HeatmapView* view = new HeatmapView;
    Host() {
        auto* layout = new QVBoxLayout(&widget);
        layout->addWidget(bar);
        layout->addWidget(HeatmapView::wrapInScrollArea(view, &widget), 1);
        bar->addView(view);
        bar->attachShortcuts(&widget);
        widget.resize(400, 300);
    }
};

const QString kKernel1 = QStringLiteral("model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE");
const QString kKernel0 = QStringLiteral("model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE");

}  // namespace

class TstHeatmapZoom : public QObject {
    Q_OBJECT
private slots:

    void valueUnderMouseAndKeyboard() {
        Host host;
        host.widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host.widget));
        const Heatmap h = knownHeatmap();
        host.view->setHeatmap(h, imageOf(h), 2, 3);
        QVERIFY(!host.view->imageRect().isEmpty());
        // The mouse over the last cell: its indices and value, on the status line.
        moveMouse(host.view, cellCentre(*host.view, 2, 1));
        QCOMPARE(host.bar->statusText(), QStringLiteral("row 1, column 2: 5.5"));
        QCOMPARE(host.view->valueTextAt(cellCentre(*host.view, 0, 1)), QStringLiteral("row 1, column 0: 3"));
        moveMouse(host.view, QPointF(1, 1));  // the margin: nothing there
        QCOMPARE(host.bar->statusText(), QString());

        // By keyboard: focus starts at the first cell, the arrows walk.
        host.widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&host.widget));
        host.view->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(host.view->hasFocus());
        QCOMPARE(host.view->keyboardCell(), std::optional<QPoint>(QPoint(0, 0)));
        QCOMPARE(host.bar->statusText(), QStringLiteral("row 0, column 0: 0"));
        QTest::keyClick(host.view, Qt::Key_Right);
        QTest::keyClick(host.view, Qt::Key_Down);
        QCOMPARE(host.view->keyboardCell(), std::optional<QPoint>(QPoint(1, 1)));
        QCOMPARE(host.bar->statusText(), QStringLiteral("row 1, column 1: 4"));
        QCOMPARE(host.view->accessibleDescription(), QStringLiteral("row 1, column 1: 4"));
        QTest::keyClick(host.view, Qt::Key_Right, Qt::ShiftModifier);  // stops at the edge
        QCOMPARE(host.bar->statusText(), QStringLiteral("row 1, column 2: 5.5"));
    }

    void zoomShortcutsAndFit() {
        Host host;
        host.widget.show();
        host.widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&host.widget));
        const Heatmap h = knownHeatmap();
        host.view->setHeatmap(h, imageOf(h), 2, 3);
        host.view->setFocus();
        QTRY_VERIFY(host.view->hasFocus());
        QVERIFY(!host.view->zoom());
        QCOMPARE(host.bar->zoomText(), QStringLiteral("fitted"));
        const double fitted = host.view->effectiveZoom();
        const double fittedWidth = host.view->imageRect().width();

        QSignalSpy zoomed(host.view, &HeatmapView::zoomChanged);
        QTest::keyClick(host.view, Qt::Key_Plus, Qt::ControlModifier);
        QVERIFY(host.view->zoom());
        QVERIFY(*host.view->zoom() > fitted * 1.2);
        QVERIFY(host.view->imageRect().width() > fittedWidth * 1.2);
        QCOMPARE(zoomed.size(), 1);
        // Larger than the window: the area scrolls.
        QTest::keyClick(host.view, Qt::Key_Plus, Qt::ControlModifier);
        QTest::keyClick(host.view, Qt::Key_Equal, Qt::ControlModifier);
        QScrollArea* area = host.view->scrollArea();
        QVERIFY(area);
        QVERIFY(area->horizontalScrollBar()->maximum() > 0);
        const double in = *host.view->zoom();
        QTest::keyClick(host.view, Qt::Key_Minus, Qt::ControlModifier);
        QVERIFY(*host.view->zoom() < in);
        QVERIFY(host.bar->zoomText().endsWith(QLatin1Char('%')));

        // Ctrl+0 fits again, and the image is back in the window.
        QTest::keyClick(host.view, Qt::Key_0, Qt::ControlModifier);
        QVERIFY(!host.view->zoom());
        QCOMPARE(host.bar->zoomText(), QStringLiteral("fitted"));
        QTRY_COMPARE(area->horizontalScrollBar()->maximum(), 0);
        QCOMPARE(host.view->imageRect().width(), fittedWidth);

        // Actual size: one value per device pixel.
        host.bar->actualSizeAction()->trigger();
        QCOMPARE(*host.view->zoom(), 1.0 / host.view->devicePixelRatioF());
        QCOMPARE(host.bar->zoomText(), QStringLiteral("100%"));

        // Ctrl+wheel zooms; a plain wheel does not.
        const QPointF at = cellCentre(*host.view, 1, 1);
        QWheelEvent plain(at, host.view->mapToGlobal(at), {}, {0, 120}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(host.view, &plain);
        QCOMPARE(*host.view->zoom(), 1.0 / host.view->devicePixelRatioF());
        QWheelEvent ctrl(at, host.view->mapToGlobal(at), {}, {0, 120}, Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase,
                         false);
        QApplication::sendEvent(host.view, &ctrl);
        QVERIFY(*host.view->zoom() > 1.0 / host.view->devicePixelRatioF());

        // A slice of another size starts fitted; the same size keeps the zoom.
        const double kept = *host.view->zoom();
        host.view->setHeatmap(h, imageOf(h), 2, 3);
        QCOMPARE(*host.view->zoom(), kept);
        Heatmap wide = h;
        wide.width = 4;
        wide.values = {0, 1, 2, 3, 4, 5, 6, 7};
        host.view->setHeatmap(wide, imageOf(wide), 2, 4);
        QVERIFY(!host.view->zoom());
    }

    void compareHeatmapsZoomTogether() {
        PairHeatmapPanel panel;
        panel.resize(400, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const Heatmap h = knownHeatmap();
        for (HeatmapView* v : {panel.viewA(), panel.viewB(), panel.viewDiff()}) v->setHeatmap(h, imageOf(h), 2, 3);
        panel.zoomBar()->zoomInAction()->trigger();
        QVERIFY(panel.viewA()->zoom());
        QCOMPARE(panel.viewB()->zoom(), panel.viewA()->zoom());
        QCOMPARE(panel.viewDiff()->zoom(), panel.viewA()->zoom());
        // Ctrl+wheel over one of them carries the others along.
        const double stepped = *panel.viewA()->zoom();
        const QPointF at = cellCentre(*panel.viewB(), 0, 0);
        QWheelEvent ctrl(at, panel.viewB()->mapToGlobal(at), {}, {0, 120}, Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase,
                         false);
        QApplication::sendEvent(panel.viewB(), &ctrl);
        QVERIFY(*panel.viewB()->zoom() > stepped);
        QCOMPARE(panel.viewA()->zoom(), panel.viewB()->zoom());
        QCOMPARE(panel.viewDiff()->zoom(), panel.viewB()->zoom());
        // The status line names the side under the mouse.
        moveMouse(panel.viewDiff(), cellCentre(*panel.viewDiff(), 2, 1));
        QVERIFY2(panel.zoomBar()->statusText().endsWith(QStringLiteral("row 1, column 2: 5.5")),
                 qPrintable(panel.zoomBar()->statusText()));
        QVERIFY(panel.zoomBar()->statusText().startsWith(QStringLiteral("|A")));
        panel.zoomBar()->fitAction()->trigger();
        QVERIFY(!panel.viewA()->zoom() && !panel.viewB()->zoom() && !panel.viewDiff()->zoom());
    }

    // The slice falls back piece by piece when the shape changes.
    void sliceFallsBackWhereItNoLongerFits() {
        HeatmapControls controls(HeatmapControlsWording{});
        const TensorShape rank3{{4, 3, 5}};
        controls.resetFor(&rank3);
        // The user shows axis 2 down and axis 1 across, and fixes axis 0 at 3.
        controls.rowAxisBox()->setCurrentIndex(2);
        emit controls.rowAxisBox()->activated(2);
        controls.indexBoxes()[0]->setValue(3);
        QVERIFY(controls.request().axes == std::make_optional(std::make_pair(2, 1)));
        QCOMPARE(controls.request().fixedIndices.at(0), int64_t{3});

        // Same shape: everything stays.
        const TensorShape same = rank3;
        controls.setShape(&same);
        QVERIFY(controls.request().axes == std::make_optional(std::make_pair(2, 1)));
        QCOMPARE(controls.request().fixedIndices.at(0), int64_t{3});
        // Same rank, axis 0 now too short for index 3: the axes stay, axis 0 is reduced.
        const TensorShape shorter{{2, 3, 5}};
        controls.setShape(&shorter);
        QVERIFY(controls.request().axes == std::make_optional(std::make_pair(2, 1)));
        QVERIFY(controls.request().fixedIndices.empty());
        QCOMPARE(controls.indexBoxes()[0]->value(), -1);
        QVERIFY(!controls.indexBoxes()[0]->isHidden());
        // An index that still fits stays.
        controls.indexBoxes()[0]->setValue(1);
        const TensorShape longer{{6, 3, 7}};
        controls.setShape(&longer);
        QCOMPARE(controls.request().fixedIndices.at(0), int64_t{1});
        // Another rank: the default slice, the last two axes.
        const TensorShape rank2{{3, 5}};
        controls.setShape(&rank2);
        QVERIFY(controls.request().axes == std::make_optional(std::make_pair(0, 1)));
    }

    // Stepping from ckpt-1 to ckpt-2 of one run with a kernel selected keeps
    // the variable, its slice and the zoom; another variable starts afresh.
    void sliceAndZoomKeptAcrossCheckpointsOfOneRun() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        DemoTrainOptions run;
        run.directory = dir.filePath(QStringLiteral("run")).toStdString();
        run.steps = 80;  // ckpt-1 at step 40, ckpt-2 at step 80: layer 1 trains between
        auto trained = runDemoTraining(run);
        QVERIFY2(trained.ok(), trained.status().toString().c_str());

        MainWindow w;
        ExplorerPage explorer(w);
        w.resize(1400, 900);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(dir.filePath(QStringLiteral("run/ckpt-1")));
        QVERIFY(opened.wait(20000));
        QVERIFY(opened.first().first().toBool());
        QVERIFY(explorer.treePane()->selectKey(kKernel1));

        TensorInspector* inspector = explorer.inspector();
        auto* tabs = inspector->findChild<QTabWidget*>();
        auto* page = inspector->findChild<HeatmapPage*>();
        QVERIFY(tabs && page);
        tabs->setCurrentWidget(page);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->view()->heatmap(), 20000);
        // Rows and columns swapped, as a user's pick.
        page->rowAxisBox()->setCurrentIndex(1);
        emit page->rowAxisBox()->activated(1);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->view()->heatmap() && page->view()->heatmap()->rowAxis == 1, 20000);
        const std::vector<double> before = page->view()->heatmap()->values;
        page->view()->setFocus();
        QTRY_VERIFY(page->view()->hasFocus());
        QTest::keyClick(page->view(), Qt::Key_Plus, Qt::ControlModifier);
        QTest::keyClick(page->view(), Qt::Key_Plus, Qt::ControlModifier);
        QVERIFY(page->view()->zoom());
        const double zoom = *page->view()->zoom();

        opened.clear();
        w.openPath(dir.filePath(QStringLiteral("run/ckpt-2")));
        QVERIFY(opened.wait(20000));
        QVERIFY(opened.first().first().toBool());
        // The same variable, now ckpt-2's values, same slice, same zoom.
        QTRY_VERIFY_WITH_TIMEOUT(
            inspector->selection().snapshot && inspector->selection().info &&
                QString::fromStdString(inspector->selection().snapshot->checkpoint->prefix()).endsWith(QStringLiteral("ckpt-2")),
            20000);
        QCOMPARE(QString::fromStdString(inspector->selection().info->key), kKernel1);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->view()->heatmap() && page->view()->heatmap()->values != before, 20000);
        QCOMPARE(page->rowAxisBox()->currentIndex(), 1);
        QCOMPARE(page->view()->heatmap()->rowAxis, 1);
        QVERIFY(page->view()->zoom());
        QCOMPARE(*page->view()->zoom(), zoom);

        // Another variable: the default slice, fitted.
        QVERIFY(explorer.treePane()->selectKey(kKernel0));
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->view()->heatmap() && inspector->selection().info &&
                                     QString::fromStdString(inspector->selection().info->key) == kKernel0 &&
                                     page->view()->heatmap()->rowAxis == 0,
                                 20000);
        QCOMPARE(page->rowAxisBox()->currentIndex(), 0);
        QVERIFY(!page->view()->zoom());
    }
};

CKPT_EXPLORER_TEST_MAIN(TstHeatmapZoom)
#include "tst_heatmap_zoom.moc"
