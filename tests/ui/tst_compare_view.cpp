// The compare view and the History page on real checkpoints from the demo
// training run (layer 0 frozen in its second half): the merged tree shows
// the engine's letters for every row, unchanged rows only on request, sorts
// by max |Δ|, filters; a kernel's A, B and |A−B| share one scale and its
// histograms one set of bins; stepping keeps the selection and the slice;
// the History page charts the kernel and the run; the window's sidebar
// starts comparisons (selection + Ctrl+D, drop, compare with previous).

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QChart>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QScatterSeries>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QChartView>
#include <QFile>
#include <QHelpEvent>
#include <QLocale>
#include <QToolTip>
#include <QtTest>

#include <cmath>
#include <functional>

#include "explorer_test.h"
#include "automation/explorer_page.h"
#include "ckpt/demo_trainer.h"
#include "test_palettes.h"
#include "style/status_colors.h"
#include "jobs/job_tracker.h"
#include "models/diff_tree_model.h"
#include "models/directory_model.h"
#include "views/compare_detail.h"
#include "views/compare_view.h"
#include "views/heatmap_view.h"
#include "views/history_chart_view.h"
#include "views/history_page.h"
#include "views/main_window.h"
#include "views/movement_strip.h"
#include "views/pair_heatmap_panel.h"
#include "views/pair_histogram_panel.h"
#include "views/tensor_inspector.h"
#include "views/wrapping_label.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

// Every row of the model (parents before children).
QList<QModelIndex> allRows(const QAbstractItemModel* model, const QModelIndex& parent = {}) {
    QList<QModelIndex> out;
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex i = model->index(r, 0, parent);
        out << i << allRows(model, i);
    }
    return out;
}

QModelIndex findRow(const DiffTreeModel* model, const QStringList& location) {
    for (const QModelIndex& i : allRows(model))
        if (nodeLocation(*model->snapshot(), model->nodeIndex(i)) == location) return i;
    return {};
}

// Location of the first layer's kernel, as the merged tree places it.
QStringList kernelLocation(const DiffTreeModel* model, const char* layer) {
    for (const QModelIndex& i : allRows(model)) {
        const QStringList loc = nodeLocation(*model->snapshot(), model->nodeIndex(i));
        if (loc.size() >= 2 && loc.last() == QLatin1String("kernel") && loc[loc.size() - 2] == QLatin1String(layer)) return loc;
    }
    return {};
}

}  // namespace

class TstCompareView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        DemoTrainOptions run;  // 200 steps, a save every 40, 5 kept; layer 0 frozen from step 101
        run.directory = m_dir.filePath(QStringLiteral("run")).toStdString();
        auto trained = runDemoTraining(run);
        QVERIFY2(trained.ok(), trained.status().toString().c_str());
        for (int i = 1; i <= 5; ++i) m_prefixes << m_dir.filePath(QStringLiteral("run/ckpt-%1").arg(i));
        QVERIFY(QFile::exists(m_prefixes.last() + QStringLiteral(".index")));
        DemoTrainOptions narrow;  // a narrower hidden layer: the kernels change shape
        narrow.directory = m_dir.filePath(QStringLiteral("narrow")).toStdString();
        narrow.hidden = 16;
        narrow.steps = 40;
        auto trainedNarrow = runDemoTraining(narrow);
        QVERIFY2(trainedNarrow.ok(), trainedNarrow.status().toString().c_str());
        m_narrow = m_dir.filePath(QStringLiteral("narrow/ckpt-1"));
    }

    void lettersMatchTheEngine() {
        JobTracker jobs;
        CompareView view(&jobs);
        QAbstractItemModelTester tester(view.model());
        QSignalSpy compared(&view, &CompareView::compared);
        view.compare(m_prefixes[3], m_prefixes[4]);  // both in the fine-tune phase
        QVERIFY(compared.wait(30000));
        QVERIFY2(compared.first().at(0).toBool(), qPrintable(view.error()));
        const DiffTreeModel* model = view.model();
        const auto snapshot = model->snapshot();
        QVERIFY(snapshot->diff.counts.modified > 0);
        QVERIFY(snapshot->diff.counts.unchanged > 0);
        // Every row says what its node's status is, as a letter and a badge.
        int leaves = 0;
        for (const QModelIndex& i : allRows(model)) {
            const DiffTreeNode* n = model->node(i);
            QVERIFY(n->status != DiffStatus::Unchanged);  // hidden by default
            const QString status = model->index(i.row(), DiffTreeModel::StatusColumn, i.parent()).data().toString();
            QVERIFY2(status.startsWith(QLatin1Char(diffStatusLetter(n->status))), qPrintable(status));
            QVERIFY(!i.data(Qt::DecorationRole).value<QIcon>().isNull());
            if (model->entry(i)) ++leaves;
        }
        QVERIFY(leaves > 0);
        // The status cell's tint and text read in a light and a dark palette.
        for (const QPalette& palette : {ckpt::testing::lightPalette(), ckpt::testing::darkPalette()}) {
            QApplication::setPalette(palette);
            for (const QModelIndex& i : allRows(model)) {
                const QModelIndex status = model->index(i.row(), DiffTreeModel::StatusColumn, i.parent());
                const QColor back = status.data(Qt::BackgroundRole).value<QColor>();
                const QColor fore = status.data(Qt::ForegroundRole).value<QColor>();
                QVERIFY(back.isValid() && fore.isValid());
                QVERIFY2(contrastRatio(fore, back) >= kMinTextContrast, qPrintable(fore.name() + QLatin1Char(' ') + back.name()));
            }
        }
        QApplication::setPalette(ckpt::testing::lightPalette());
        // The frozen layer's kernel is unchanged (hidden), the trained one modified.
        view.unchangedBox()->setChecked(true);
        QTRY_VERIFY(!view.isFiltering());
        const QModelIndex frozen = findRow(model, kernelLocation(model, "layer_with_weights-0"));
        const QModelIndex trained = findRow(model, kernelLocation(model, "layer_with_weights-1"));
        QVERIFY(frozen.isValid() && trained.isValid());
        QCOMPARE(model->node(frozen)->status, DiffStatus::Unchanged);
        QCOMPARE(model->node(trained)->status, DiffStatus::Modified);
        QVERIFY(model->entry(trained)->values);
        QVERIFY(model->entry(trained)->values->maxAbsDiff > 0);
        QCOMPARE(model->index(trained.row(), DiffTreeModel::StatusColumn, trained.parent()).data().toString().left(1),
                 QStringLiteral("M"));

        // A kernel whose shape differs is a type change, both shapes shown.
        compared.clear();
        view.compare(m_prefixes[4], m_narrow);
        QVERIFY(compared.wait(30000));
        QVERIFY2(compared.first().at(0).toBool(), qPrintable(view.error()));
        const QModelIndex changed = findRow(model, kernelLocation(model, "layer_with_weights-0"));
        QVERIFY(changed.isValid());
        QCOMPARE(model->node(changed)->status, DiffStatus::TypeChanged);
        QCOMPARE(model->index(changed.row(), DiffTreeModel::StatusColumn, changed.parent()).data().toString().left(1),
                 QStringLiteral("T"));
        const QString type = model->index(changed.row(), DiffTreeModel::TypeColumn, changed.parent()).data().toString();
        QVERIFY2(type.contains(QStringLiteral("[8, 32]")) && type.contains(QStringLiteral("[8, 16]")), qPrintable(type));
    }

    // No text of an earlier pair stays under a later one's names (issue
    // #30, item 22): not while the next pair is compared, not after it failed.
    void noStaleTextAfterAnotherPair() {
        JobTracker jobs;
        CompareView view(&jobs);
        QSignalSpy compared(&view, &CompareView::compared);
        view.compare(m_prefixes[3], m_prefixes[4]);
        QVERIFY(compared.wait(30000));
        QVERIFY(view.summaryLabel()->text().contains(QStringLiteral("modified")));
        QVERIFY(view.model()->rowCount() > 0);
        compared.clear();
        const QString missing = m_dir.filePath(QStringLiteral("run/ckpt-99"));
        view.compare(m_prefixes[0], missing);
        QVERIFY(view.isComparing());
        QVERIFY2(view.summaryLabel()->text().isEmpty(), qPrintable(view.summaryLabel()->text()));
        QVERIFY(compared.wait(30000));
        QVERIFY(!compared.first().at(0).toBool());
        QVERIFY(!view.error().isEmpty());
        QVERIFY2(view.summaryLabel()->text().isEmpty(), qPrintable(view.summaryLabel()->text()));
        QVERIFY(!view.snapshot());
        QCOMPARE(view.model()->rowCount(), 0);
        QVERIFY2(view.detail()->figuresText().isEmpty(), qPrintable(view.detail()->figuresText()));
    }

    void unchangedToggle() {
        JobTracker jobs;
        CompareView view(&jobs);
        QSignalSpy compared(&view, &CompareView::compared);
        view.compare(m_prefixes[3], m_prefixes[4]);
        QVERIFY(compared.wait(30000));
        const DiffTreeModel* model = view.model();
        // The toggle's set came with the snapshot from its worker, the same as computed now.
        const CompareSnapshot& snap = *model->snapshot();
        QVERIFY(snap.changedOnly);
        QCOMPARE(unchangedToggleSet(snap, false).get(), snap.changedOnly.get());
        QCOMPARE(snap.changedOnly->visible, computeDiffVisibleSet(snap, {false, QString(), false})->visible);
        QVERIFY(!unchangedToggleSet(snap, true));
        auto entryRows = [&] {
            int n = 0;
            for (const QModelIndex& i : allRows(model)) n += model->entry(i) ? 1 : 0;
            return n;
        };
        const int changedRows = entryRows();
        QSignalSpy filtered(&view, &CompareView::filterApplied);
        view.unchangedBox()->setChecked(true);
        QVERIFY(filtered.wait(10000));
        const auto& diff = model->snapshot()->diff;
        QCOMPARE(entryRows() - changedRows, static_cast<int>(diff.counts.unchanged));
        view.unchangedBox()->setChecked(false);
        QVERIFY(filtered.wait(10000));
        QCOMPARE(entryRows(), changedRows);

        // The filter box narrows the tree to matching paths and their ancestors.
        view.filterEdit()->setText(QStringLiteral("bias"));
        QVERIFY(filtered.wait(10000));
        for (const QModelIndex& i : allRows(model))
            if (const DiffEntry* e = model->entry(i))
                QVERIFY2(QString::fromStdString(e->displayPath()).contains(QStringLiteral("bias"), Qt::CaseInsensitive) ||
                             nodeLocation(*model->snapshot(), model->nodeIndex(i))
                                 .join(QLatin1Char('/'))
                                 .contains(QStringLiteral("bias")),
                         e->displayPath().c_str());
    }

    void sortByMaxAbsIsOneClick() {
        JobTracker jobs;
        CompareView view(&jobs);
        view.resize(1200, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy compared(&view, &CompareView::compared);
        view.compare(m_prefixes[1], m_prefixes[2]);  // across the freeze: every layer moved
        QVERIFY(compared.wait(30000));
        QHeaderView* header = view.view()->header();
        const int column = DiffTreeModel::MaxAbsColumn;
        QTest::mouseClick(
            header->viewport(), Qt::LeftButton, {},
            QPoint(header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), column);
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);  // largest first on the first click
        const DiffTreeModel* model = view.model();
        // Under every parent, figures never increase and rows without one come last.
        std::function<void(const QModelIndex&)> check = [&](const QModelIndex& parent) {
            double previous = INFINITY;
            bool blank = false;
            for (int r = 0; r < model->rowCount(parent); ++r) {
                const QModelIndex i = model->index(r, 0, parent);
                const double v = model->figure(model->nodeIndex(i), column);
                if (std::isnan(v)) blank = true;
                else {
                    QVERIFY2(!blank, "a row with a figure after one without");
                    QVERIFY(v <= previous);
                    previous = v;
                }
                check(i);
            }
        };
        check({});
        // The first leaf reached by always taking the first row is the largest change of all.
        QModelIndex top = model->index(0, 0);
        while (model->rowCount(top) > 0) top = model->index(0, 0, top);
        double largest = 0;
        for (const DiffEntry& e : model->snapshot()->diff.entries)
            if (e.values) largest = std::max(largest, e.values->maxAbsDiff);
        QCOMPARE(model->figure(model->nodeIndex(top), column), largest);
    }

    void kernelPairSharesOneScale() {
        JobTracker jobs;
        CompareView view(&jobs);
        view.resize(1300, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setNeighbourLookup([this](const QString& prefix, int delta) {
            const qsizetype i = m_prefixes.indexOf(prefix) + delta;
            return i >= 0 && i < m_prefixes.size() && m_prefixes.contains(prefix) ? m_prefixes[i] : QString();
        });
        QSignalSpy compared(&view, &CompareView::compared);
        view.compare(m_prefixes[0], m_prefixes[1]);
        QVERIFY(compared.wait(30000));
        const QModelIndex kernel = findRow(view.model(), kernelLocation(view.model(), "layer_with_weights-0"));
        QVERIFY(kernel.isValid());
        view.view()->setCurrentIndex(kernel);
        PairHeatmapPanel* heatmaps = view.detail()->heatmaps();
        QTRY_VERIFY_WITH_TIMEOUT(!view.detail()->isLoading() && view.detail()->values() && !heatmaps->isBusy() &&
                                     heatmaps->viewA()->heatmap() && heatmaps->viewDiff()->heatmap(),
                                 20000);
        const Heatmap& a = *heatmaps->viewA()->heatmap();
        const Heatmap& b = *heatmaps->viewB()->heatmap();
        QVERIFY(heatmaps->sharedRange());
        QCOMPARE(a.lo, b.lo);
        QCOMPARE(a.hi, b.hi);
        QCOMPARE(heatmaps->viewDiff()->heatmap()->colormap, std::string("magma"));
        QVERIFY(heatmaps->viewDiff()->heatmap()->hi > 0);
        QVERIFY(view.detail()->figuresText().contains(QStringLiteral("Max |")));

        // The histograms: one set of bins for both sides.
        view.detail()->tabs()->setCurrentWidget(view.detail()->histograms());
        PairHistogramPanel* histograms = view.detail()->histograms();
        QTRY_VERIFY_WITH_TIMEOUT(!histograms->isBusy() && histograms->histogramA() && histograms->histogramB(), 20000);
        QCOMPARE(histograms->histogramA()->edges, histograms->histogramB()->edges);
        QCOMPARE(histograms->chart()->series().size(), 2);

        // Stepping to the next pair keeps the variable and the slice chosen.
        view.detail()->tabs()->setCurrentWidget(view.detail()->heatmapsPage());
        heatmaps->rowAxisBox()->setCurrentIndex(1);
        emit heatmaps->rowAxisBox()->activated(1);  // as a user's pick: the axes swap
        QCOMPARE(heatmaps->columnAxisBox()->currentIndex(), 0);
        const QStringList location = nodeLocation(*view.model()->snapshot(), view.model()->nodeIndex(kernel));
        QVERIFY(view.nextButton()->isEnabled());
        compared.clear();
        view.nextButton()->click();
        QVERIFY(compared.wait(30000));
        QVERIFY(view.model()->snapshot()->a->prefix() == m_prefixes[1].toStdString());
        QCOMPARE(nodeLocation(*view.model()->snapshot(), view.model()->nodeIndex(view.view()->currentIndex())), location);
        QTRY_VERIFY_WITH_TIMEOUT(view.detail()->values() && !heatmaps->isBusy() && heatmaps->viewA()->heatmap(), 20000);
        QCOMPARE(heatmaps->rowAxisBox()->currentIndex(), 1);
        QCOMPARE(heatmaps->viewA()->heatmap()->rowAxis, 1);
    }

    void historyPageFillsItsCharts() {
        JobTracker jobs;
        HistoryPage page(&jobs);
        page.resize(600, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QSignalSpy ready(&page, &HistoryPage::historyReady);
        const QString key = QStringLiteral("model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE");
        page.setVariable(m_dir.filePath(QStringLiteral("run")), key, QStringLiteral("layer 1 kernel"));
        QVERIFY(ready.wait(30000));
        QVERIFY2(ready.first().at(0).toBool(), qPrintable(page.message()));
        QCOMPARE(page.history()->checkpoints.size(), size_t{5});
        QCOMPARE(page.history()->variables.size(), size_t{1});  // only that variable was read
        auto dots = [](QChart* chart) {
            for (QAbstractSeries* s : chart->series())
                if (auto* scatter = qobject_cast<QScatterSeries*>(s)) return scatter->points();
            return QList<QPointF>();
        };
        const QList<QPointF> norms = dots(page.normChart());
        QCOMPARE(norms.size(), 5);
        QCOMPARE(norms.first().x(), 40.0);  // x is the training step
        QCOMPARE(norms.last().x(), 200.0);
        const auto& points = page.history()->variables[0].points;
        QCOMPARE(norms.last().y(), points.back().norm);
        QCOMPARE(dots(page.changeChart()).size(), 4);  // the first checkpoint has nothing before it

        QSignalSpy runReady(&page, &HistoryPage::runReady);
        page.runButton()->click();
        QVERIFY(runReady.wait(30000));
        QVERIFY(runReady.first().at(0).toBool());
        const auto& run = page.strip()->history();
        QVERIFY(run && run->variables.size() == 4);  // two kernels, two biases (weights only)
        QTRY_VERIFY(page.strip()->height() > 0);     // laid out on a later event-loop pass
        // Clicking a row charts that variable from the run's history.
        const QString tip = page.strip()->cellText(0, 4);
        QVERIFY2(tip.contains(QStringLiteral("step 200")), qPrintable(tip));
    }

    // Hovering a point of a chart names its checkpoint, step and value
    // (issue #30, item 19): asked of the view itself, as a tooltip event.
    void historyPointsNameThemselves() {
        JobTracker jobs;
        HistoryPage page(&jobs);
        page.resize(600, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QSignalSpy ready(&page, &HistoryPage::historyReady);
        page.setVariable(m_dir.filePath(QStringLiteral("run")),
                         QStringLiteral("model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE"),
                         QStringLiteral("kernel"));
        QVERIFY(ready.wait(30000));
        HistoryChartView* view = page.normView();
        QTRY_VERIFY(view->isVisible());
        QChart* chart = page.normChart();
        QScatterSeries* dots = nullptr;
        for (QAbstractSeries* s : chart->series())
            if (auto* scatter = qobject_cast<QScatterSeries*>(s)) dots = scatter;
        QVERIFY(dots);
        const QPointF last = dots->points().last();
        const QPoint at = view->mapFromScene(chart->mapToScene(chart->mapToPosition(last, dots)));
        const QString expected = QStringLiteral("step 200");
        QVERIFY2(view->tipAt(at).contains(expected), qPrintable(view->tipAt(at)));
        QVERIFY2(view->tipAt(at).contains(QLocale().toString(last.y(), 'g', 6)), qPrintable(view->tipAt(at)));
        QHelpEvent help(QEvent::ToolTip, at, view->viewport()->mapToGlobal(at));
        QCoreApplication::sendEvent(view->viewport(), &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(expected), qPrintable(QToolTip::text()));
        QToolTip::hideText();
        QVERIFY(view->tipAt(at + QPoint(40, 40)).isEmpty() || !view->tipAt(at + QPoint(40, 40)).contains(expected));
    }

    // A single checkpoint holds no history: said in words, no empty frames.
    void singleCheckpointHistorySaysSo() {
        QTemporaryDir tmp;
        for (const QString& suffix : {QStringLiteral(".index"), QStringLiteral(".data-00000-of-00001")})
            QVERIFY(QFile::copy(m_prefixes[4] + suffix, tmp.filePath(QStringLiteral("ckpt-5")) + suffix));
        JobTracker jobs;
        HistoryPage page(&jobs);
        page.resize(600, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QSignalSpy ready(&page, &HistoryPage::historyReady);
        page.setVariable(tmp.path(), QStringLiteral("model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE"),
                         QStringLiteral("kernel"));
        QVERIFY(ready.wait(30000));
        // The engine's own words, verbatim.
        QVERIFY2(page.message().contains(QStringLiteral("two or more")), qPrintable(page.message()));
        QVERIFY(!page.normView()->isVisible());
        for (QChartView* v : page.findChildren<QChartView*>()) QVERIFY(!v->isVisible());
    }

    // In the "what moved" strip a variable that did not change at all is
    // drawn apart from the smallest change (issue #30, item 19): layer 0
    // is frozen from step 101, so its values repeat exactly from ckpt-3 on.
    void unchangedIsNotTheSmallestChange() {
        JobTracker jobs;
        HistoryPage page(&jobs);
        page.resize(700, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setVariable(m_dir.filePath(QStringLiteral("run")),
                         QStringLiteral("model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE"),
                         QStringLiteral("kernel"));
        QSignalSpy runReady(&page, &HistoryPage::runReady);
        page.runButton()->click();
        QVERIFY(runReady.wait(30000));
        QVERIFY(runReady.first().first().toBool());
        MovementStrip* strip = page.strip();
        QTRY_VERIFY(strip->height() > 0);
        const auto& h = *strip->history();
        // The frozen cells and the smallest change among the others.
        QPair<int, int> unchanged{-1, -1}, smallest{-1, -1};
        double least = INFINITY;
        for (int v = 0; v < static_cast<int>(h.variables.size()); ++v)
            for (int c = 1; c < static_cast<int>(h.checkpoints.size()); ++c) {
                const HistoryPoint& p = h.variables[static_cast<size_t>(v)].points[static_cast<size_t>(c)];
                if (MovementStrip::isUnchanged(p)) unchanged = {v, c};
                else if (p.present && p.relChange > 0 && p.relChange < least) {
                    least = p.relChange;
                    smallest = {v, c};
                }
            }
        QVERIFY2(unchanged.first >= 0, "no variable stood still");
        QVERIFY(smallest.first >= 0);
        const QImage shot = strip->grab().toImage();
        const auto colourAt = [&](QPair<int, int> cell) {
            const QRectF r = strip->cellRect(cell.first, cell.second);
            return shot.pixelColor(static_cast<int>(r.left() + 2), static_cast<int>(r.top() + 2));
        };
        QCOMPARE(colourAt(unchanged), strip->unchangedColor());
        QVERIFY(colourAt(smallest) != strip->unchangedColor());
        QVERIFY2(strip->cellText(unchanged.first, unchanged.second).contains(QStringLiteral("unchanged")),
                 qPrintable(strip->cellText(unchanged.first, unchanged.second)));
        // The legend reads whole in the narrow pane of a 1024 px window
        // (issue #30, item 13: "= unchanged" was drawn past the right edge,
        // the scale's meaning cut at the left).
        for (int width : {330, 600}) {
            strip->resize(width, strip->sizeHint().height());
            const auto texts = strip->legendTexts();
            QCOMPARE(texts.size(), 4);
            for (const MovementStrip::LegendText& t : texts)
                QVERIFY2(QRectF(strip->rect()).contains(t.rect),
                         qPrintable(QStringLiteral("\"%1\" needs %2,%3 %4x%5 in a %6x%7 strip")
                                        .arg(t.text)
                                        .arg(t.rect.left())
                                        .arg(t.rect.top())
                                        .arg(t.rect.width())
                                        .arg(t.rect.height())
                                        .arg(strip->width())
                                        .arg(strip->height())));
        }
    }

    // In a 1024x700 window the pair's heatmaps are in sight under the
    // figures, not below them out of the pane (issue #30, item 12).
    void heatmapsInSightInASmallWindow() {
        MainWindow window;
        const ExplorerPage explorer(window);
        showKernelPairIn1024x700(window, explorer);
        if (QTest::currentTestFailed()) return;
        PairHeatmapPanel* heatmaps = explorer.compareView()->detail()->heatmaps();
        const QRect shown = heatmaps->viewA()->visibleRegion().boundingRect();
        QVERIFY2(shown.height() >= 40, qPrintable(QStringLiteral("%1 px of the heatmap in sight").arg(shown.height())));
        // The three heatmaps and their captions do not overlap: the panel
        // got at least its minimum (it was squeezed below it and drew the
        // captions over the colour bars).
        QVERIFY2(heatmaps->height() >= heatmaps->minimumSizeHint().height(),
                 qPrintable(QStringLiteral("%1 px for a panel of at least %2")
                                .arg(heatmaps->height())
                                .arg(heatmaps->minimumSizeHint().height())));
        QTRY_VERIFY_WITH_TIMEOUT(explorer.isIdle(), 30000);
    }

    // #30: in a 1024x700 window every figure of the pair reads without
    // scrolling (only the first rows did; Rel. L2 needed the scroll bar),
    // and the heatmaps' slice controls keep their height beneath them. In
    // a larger window the figures pane takes no more than it shows.
    void figuresReadWithoutScrolling() {
        MainWindow window;
        const ExplorerPage explorer(window);
        showKernelPairIn1024x700(window, explorer);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(window.size(), QSize(1024, 700));
        CompareDetail* detail = explorer.compareView()->detail();
        PairHeatmapPanel* heatmaps = detail->heatmaps();
        // The figures' table, one label: laid out whole (not cut by its own
        // height) and all of it inside the pane's viewport, unscrolled.
        const QLabel* figures = detail->figuresLabel();
        for (const char* name : {"Mismatches", "Max |", "Mean |", "L2 norms", "Rel. L2", "Cosine"})
            QVERIFY2(figures->text().contains(QLatin1String(name)), name);
        QVERIFY(figures->isVisible());
        QVERIFY2(figures->height() >= figures->heightForWidth(figures->width()),
                 qPrintable(QStringLiteral("a %1 px label for %2 px of figures")
                                .arg(figures->height())
                                .arg(figures->heightForWidth(figures->width()))));
        const QScrollArea* pane = detail->figuresPane();
        QCOMPARE(pane->verticalScrollBar()->value(), 0);
        const QRect shown(figures->mapTo(pane->viewport(), QPoint(0, 0)), figures->size());
        QVERIFY2(pane->viewport()->rect().contains(shown), qPrintable(QStringLiteral("figures at y %1..%2 in a %3 px pane")
                                                                          .arg(shown.top())
                                                                          .arg(shown.bottom())
                                                                          .arg(pane->viewport()->height())));
        // Below, the heatmaps' page scrolls instead of squeezing its controls
        // or pushing the detail's bottom out of the window.
        QWidget* page = detail->tabs()->currentWidget();
        QCOMPARE(page, detail->heatmapsPage());
        for (const QWidget* a = page->parentWidget(); a; a = a->parentWidget()) {
            const QRect there(page->mapTo(a, QPoint(0, 0)), page->size());
            QVERIFY2(a->rect().contains(there), qPrintable(QStringLiteral("the heatmaps' page at y %1..%2 of a %3 px %4")
                                                               .arg(there.top())
                                                               .arg(there.bottom())
                                                               .arg(a->height())
                                                               .arg(QString::fromLatin1(a->metaObject()->className()))));
        }
        const auto* controls = heatmaps->findChild<HeatmapControls*>();
        QVERIFY(controls);
        QVERIFY2(
            controls->height() >= controls->sizeHint().height(),
            qPrintable(
                QStringLiteral("controls %1 px for a hint of %2").arg(controls->height()).arg(controls->sizeHint().height())));

        window.resize(1600, 1000);
        QTRY_COMPARE(window.size(), QSize(1600, 1000));
        QTest::qWait(100);
        const int content = pane->widget()->heightForWidth(pane->width());
        QCOMPARE(pane->verticalScrollBar()->maximum(), 0);  // the differing elements too
        QVERIFY2(pane->height() <= content,
                 qPrintable(QStringLiteral("a %1 px pane for %2 px of figures").arg(pane->height()).arg(content)));
        QTRY_VERIFY_WITH_TIMEOUT(explorer.isIdle(), 30000);
    }

    void windowStartsComparisons() {
        MainWindow window;
        ExplorerPage explorer(window);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy opened(&window, &MainWindow::checkpointOpened);
        window.openPath(m_dir.filePath(QStringLiteral("run")));
        QVERIFY(opened.wait(30000));
        DirectoryModel* dirs = explorer.directories();
        QTRY_VERIFY(dirs->indexForPrefix(m_prefixes[0]).isValid());
        QCOMPARE(dirs->neighbour(m_prefixes[2], -1), m_prefixes[1]);
        QVERIFY(dirs->neighbour(m_prefixes[0], -1).isEmpty());
        CompareView* compare = explorer.compareView();
        QSignalSpy compared(compare, &CompareView::compared);

        // Two rows selected, Ctrl+D: the older is A.
        explorer.selectCheckpoints({m_prefixes[3], m_prefixes[1]});
        QTest::keyClick(&window, Qt::Key_D, Qt::ControlModifier);
        QVERIFY(compared.wait(30000));
        QCOMPARE(explorer.workspace()->currentWidget(), compare);
        QVERIFY(!explorer.inspector()->isVisible());  // the compare view brings its own
        QVERIFY(compare->model()->snapshot()->a->prefix() == m_prefixes[1].toStdString());
        QVERIFY(compare->model()->snapshot()->b->prefix() == m_prefixes[3].toStdString());

        // One row selected: compared with the one before it.
        compared.clear();
        explorer.selectCheckpoints({m_prefixes[2]});
        window.compareSelected();
        QVERIFY(compared.wait(30000));
        QVERIFY(compare->model()->snapshot()->a->prefix() == m_prefixes[1].toStdString());

        // Dropping ckpt-5 onto ckpt-1 compares them, dragged first; nothing moves.
        compared.clear();
        const int rows =
            dirs->rowCount(dirs->indexForDirectory(QFileInfo(m_dir.filePath(QStringLiteral("run"))).absoluteFilePath()));
        std::unique_ptr<QMimeData> data(dirs->mimeData({dirs->indexForPrefix(m_prefixes[4])}));
        QVERIFY(data);
        QVERIFY(!dirs->canDropMimeData(data.get(), Qt::CopyAction, -1, -1, dirs->indexForPrefix(m_prefixes[4])));
        QVERIFY(dirs->dropMimeData(data.get(), Qt::CopyAction, -1, -1, dirs->indexForPrefix(m_prefixes[0])));
        QVERIFY(compared.wait(30000));
        QVERIFY(compare->model()->snapshot()->a->prefix() == m_prefixes[4].toStdString());
        QVERIFY(compare->model()->snapshot()->b->prefix() == m_prefixes[0].toStdString());
        QCOMPARE(dirs->rowCount(dirs->indexForDirectory(QFileInfo(m_dir.filePath(QStringLiteral("run"))).absoluteFilePath())),
                 rows);

        // Back on the object graph, the inspector returns with a History tab.
        explorer.workspace()->setCurrentIndex(0);
        QVERIFY(explorer.inspector()->isVisible());
        QVERIFY(explorer.inspector()->findChild<HistoryPage*>());
        explorer.jobs()->cancelAll();
        QTRY_VERIFY_WITH_TIMEOUT(explorer.jobs()->active().isEmpty(), 20000);
    }

private:
    // Shows 'window' at 1024x700 comparing the second and third demo
    // checkpoints, the first layer's kernel selected and its heatmaps drawn.
    void showKernelPairIn1024x700(MainWindow& window, const ExplorerPage& explorer) {
        window.resize(1024, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        CompareView* compare = explorer.compareView();
        QSignalSpy compared(compare, &CompareView::compared);
        compare->selectLocation({QStringLiteral("model"), QStringLiteral("layer_with_weights-0"), QStringLiteral("kernel")});
        window.compare(m_prefixes[1], m_prefixes[2]);
        QVERIFY(compared.wait(30000));
        PairHeatmapPanel* heatmaps = compare->detail()->heatmaps();
        QTRY_VERIFY_WITH_TIMEOUT(compare->detail()->values() && !heatmaps->isBusy() && heatmaps->viewA()->heatmap(), 30000);
        QTest::qWait(100);
    }

    QTemporaryDir m_dir;
    QStringList m_prefixes;
    QString m_narrow;
};

CKPT_EXPLORER_TEST_MAIN(TstCompareView)
#include "tst_compare_view.moc"
