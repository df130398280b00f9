// The inspector's preview pages on a real checkpoint: statistics, histogram
// and heatmap of a kernel agree with the engine called directly, settings
// recompute, a newer selection wins over a stale one, engine errors show
// verbatim, and the event loop keeps turning while previews compute.

#include <QCheckBox>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLogValueAxis>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QValueAxis>
#include <QTreeView>
#include <QtTest>

#include <cmath>
#include <functional>
#include <numeric>

#include "explorer_test.h"
#include "automation/explorer_page.h"
#include "stall_meter.h"
#include "ckpt/checkpoint.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/preview.h"
#include "jobs/checkpoint_jobs.h"
#include "models/object_tree_model.h"
#include "test_support.h"
#include "views/heatmap_page.h"
#include "views/heatmap_view.h"
#include "views/histogram_page.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/stats_page.h"
#include "views/tensor_inspector.h"
#include "window_test_support.h"

using namespace ckpt;
using ckpt::testing::StallMeter;
using namespace ckpt::ui;

namespace {

// Rank-2 variables named 'name', in tree order.
QList<QModelIndex> findTensors(ObjectTreeModel* model, const char* name, int rank) {
    QList<QModelIndex> found;
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
        if (model->canFetchMore(parent)) model->fetchMore(parent);
        for (int r = 0; r < model->rowCount(parent); ++r) {
            const QModelIndex i = model->index(r, 0, parent);
            const TreeEntry* e = model->entry(i);
            if (e->tensor && !isKeyRow(*e) && e->tensor->shape.rank() == rank && e->name == name) found << i;
            else walk(i);
        }
    };
    walk({});
    return found;
}

// One tensor of a real bundle, read the way the inspector reads it.
std::shared_ptr<const Tensor> readReal(const char* bundle, const char* key) {
    const QString root = ckpt::testing::realTestDataDir();
    if (root.isEmpty()) return nullptr;
    auto checkpoint = Checkpoint::open((root + QLatin1Char('/') + QLatin1String(bundle)).toStdString());
    if (!checkpoint) return nullptr;
    const TensorInfo* info = (*checkpoint)->bundle().find(key);
    return info ? readTensor(*checkpoint, info).tensor : nullptr;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

class TstPreviewPages : public QObject {
    Q_OBJECT
private slots:

    void previewsOfAKernel() {
        const QString root = ckpt::testing::realTestDataDir();
        const QString dir = root + QStringLiteral("/tfx_keras_adam_savedmodel");
        if (root.isEmpty() || !QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        MainWindow w;
        ExplorerPage explorer(w);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(dir);
        QVERIFY(opened.wait(10000));
        QVERIFY(opened.first().first().toBool());

        TensorInspector* inspector = explorer.inspector();
        auto* tabs = inspector->findChild<QTabWidget*>();
        auto* stats = inspector->findChild<StatsPage*>();
        auto* histogram = inspector->findChild<HistogramPage*>();
        auto* heatmap = inspector->findChild<HeatmapPage*>();
        QVERIFY(tabs && stats && histogram && heatmap);
        QCOMPARE(tabs->count(), 5);  // values, statistics, histogram, heatmap, history
        tabs->setCurrentWidget(stats);

        ObjectTreeModel* model = explorer.treePane()->model();
        const QList<QModelIndex> kernels = findTensors(model, "kernel", 2);
        QVERIFY(kernels.size() >= 2);
        QTreeView* view = explorer.treePane()->view();
        StallMeter meter;
        meter.start();

        // Two selections in a row: the first one's previews are stale and
        // must never show.
        view->setCurrentIndex(kernels[0]);
        view->setCurrentIndex(kernels[1]);
        const TensorInfo* info = model->entry(kernels[1])->tensor;
        QTRY_VERIFY_WITH_TIMEOUT(stats->stats().has_value(), 20000);
        QVERIFY(stats->tensor());
        QCOMPARE(stats->tensor()->shape.dims, info->shape.dims);
        PreviewOptions cpu;
        cpu.device = PreviewDevice::Cpu;
        const auto expected = computeStats(TensorView::of(*stats->tensor()), cpu);
        QVERIFY(expected.ok());
        const TensorStats& s = *stats->stats();
        QCOMPARE(s.count, *info->shape.numElements());
        QCOMPARE(s.count, expected->count);
        QCOMPARE(s.finiteCount, expected->finiteCount);
        QCOMPARE(s.zeros, expected->zeros);
        QCOMPARE(s.nans, expected->nans);
        QCOMPARE(s.posInfs, expected->posInfs);
        QCOMPARE(s.negInfs, expected->negInfs);
        QCOMPARE(s.min, expected->min);
        QCOMPARE(s.max, expected->max);
        QCOMPARE(s.absMax, expected->absMax);
        QVERIFY(near(s.mean, expected->mean));
        QVERIFY(near(s.std, expected->std));
        QVERIFY(stats->computedOn().startsWith(QStringLiteral("Computed on ")));
        // Hidden pages have not computed yet: they wait for their tab.
        QVERIFY(!histogram->histogram());
        QVERIFY(!heatmap->view()->heatmap());

        tabs->setCurrentWidget(histogram);
        QTRY_VERIFY_WITH_TIMEOUT(histogram->histogram().has_value(), 20000);
        auto checkBins = [&](int bins) {
            const Histogram& h = *histogram->histogram();
            QCOMPARE(static_cast<int>(h.counts.size()), bins);
            QCOMPARE(h.edges.size(), h.counts.size() + 1);
            const int64_t sum = std::accumulate(h.counts.begin(), h.counts.end(), int64_t{0});
            QCOMPARE(sum, s.finiteCount);
            QCOMPARE(sum + h.below + h.above + h.nans, s.count);
            QCOMPARE(h.lo, s.min);
            QCOMPARE(h.hi, s.max);
        };
        QCOMPARE(histogram->binsBox()->value(), 0);  // auto
        checkBins(HistogramPage::autoBins(s.count));
        if (QTest::currentTestFailed()) return;
        histogram->binsBox()->setValue(17);
        QTRY_VERIFY_WITH_TIMEOUT(histogram->histogram() && histogram->histogram()->counts.size() == 17, 20000);
        checkBins(17);
        if (QTest::currentTestFailed()) return;
        QVERIFY(histogram->chartView()->chart()->series().size() == 1);
        histogram->logBox()->setChecked(true);
        bool logAxis = false;
        for (QAbstractAxis* a : histogram->chartView()->chart()->axes(Qt::Vertical))
            logAxis |= qobject_cast<QLogValueAxis*>(a) != nullptr;
        QVERIFY(logAxis);

        tabs->setCurrentWidget(heatmap);
        QTRY_VERIFY_WITH_TIMEOUT(heatmap->view()->heatmap().has_value() && !heatmap->isBusy(), 20000);
        const HeatmapRequest request = heatmap->lastRequest();
        const Heatmap& h = *heatmap->view()->heatmap();
        QVERIFY(h.width <= request.maxWidth);
        QVERIFY(h.height <= request.maxHeight);
        QCOMPARE(heatmap->view()->image().size(), QSize(h.width, h.height));
        QCOMPARE(h.height, static_cast<int>(std::min<int64_t>(info->shape.dims[0], request.maxHeight)));
        QCOMPARE(h.width, static_cast<int>(std::min<int64_t>(info->shape.dims[1], request.maxWidth)));
        const auto direct = renderHeatmap(TensorView::of(*heatmap->tensor()), request);
        QVERIFY(direct.ok());
        QCOMPARE(h.values.size(), direct->values.size());
        for (size_t i = 0; i < h.values.size(); ++i)
            QVERIFY(h.values[i] == direct->values[i] || (std::isnan(h.values[i]) && std::isnan(direct->values[i])));
        QCOMPARE(h.colormap, std::string(s.min < 0 && s.max > 0 ? "coolwarm" : "viridis"));
        QVERIFY(!heatmap->view()->imageRect().isEmpty());
        QVERIFY(heatmap->view()->valueTextAt(heatmap->view()->imageRect().center()).contains(QStringLiteral(": ")));
        QVERIFY(heatmap->view()->valueTextAt(QPointF(0, 0)).isEmpty());

        // A chosen colormap and a transposed slice recompute.
        heatmap->colormapBox()->setCurrentText(QStringLiteral("magma"));
        emit heatmap->colormapBox()->activated(heatmap->colormapBox()->currentIndex());
        heatmap->rowAxisBox()->setCurrentIndex(1);
        emit heatmap->rowAxisBox()->activated(1);
        QTRY_VERIFY_WITH_TIMEOUT(
            !heatmap->isBusy() && heatmap->view()->heatmap() && heatmap->view()->heatmap()->colormap == "magma", 20000);
        QCOMPARE(heatmap->view()->heatmap()->rowAxis, 1);
        QCOMPARE(heatmap->view()->heatmap()->colAxis, 0);

        qInfo("longest event-loop stall during previews: %lld ms", meter.longest());
        // Generous next to tst_open_stall's 100 ms: this runs beside other
        // builds on shared CI cores; a preview computed on the GUI thread
        // would still show up as far longer.
        QVERIFY2(meter.longest() <= 250, qPrintable(QStringLiteral("event loop stalled %1 ms").arg(meter.longest())));
    }

    void pooledAndReducedSlices() {
        // A 784 x 10 matrix in a small view pools its rows; the tooltip
        // names the block of rows behind a cell.
        auto matrix = readReal("tfnet_python_func_model", "layer_with_weights-0/matrix/.ATTRIBUTES/VARIABLE_VALUE");
        if (!matrix) CKPT_MISSING_CORPUS();
        HeatmapPage page;
        page.resize(320, 320);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setSelection({});
        page.setValues(matrix);
        QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy() && page.view()->heatmap(), 10000);
        const Heatmap& h = *page.view()->heatmap();
        // The thumbnail follows the view's size in device pixels, within bounds.
        const int maxHeight = page.lastRequest().maxHeight;
        QVERIFY(maxHeight >= 256 && maxHeight <= 1024);
        QCOMPARE(h.height, std::min(784, maxHeight));
        QCOMPARE(h.width, 10);
        const QString tip = page.view()->valueTextAt(page.view()->imageRect().topLeft() + QPointF(0.25, 0.25));
        if (maxHeight == 256) QVERIFY2(tip.startsWith(QStringLiteral("rows 0\u20133, column")), qPrintable(tip));
        QVERIFY2(tip.endsWith(QStringLiteral("(pooled)")), qPrintable(tip));

        // A rank-3 kernel: the first axis reduced by max |x|, then fixed.
        auto kernel = readReal("ranking_bert_lite_tf2",
                               "model/layer_with_weights-4/_attention_output_dense/kernel/.ATTRIBUTES/VARIABLE_VALUE");
        QVERIFY(kernel);
        QCOMPARE(kernel->shape.rank(), 3);
        page.setSelection({});
        page.setValues(kernel);
        QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy() && page.view()->heatmap(), 10000);
        QCOMPARE(page.indexBoxes().size(), 3);
        QVERIFY(!page.indexBoxes()[0]->isHidden());
        QVERIFY(page.indexBoxes()[1]->isHidden());
        page.reduceBox()->setCurrentIndex(1);
        emit page.reduceBox()->activated(1);
        QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy() && page.lastRequest().reduce == HeatmapReduce::MaxAbs, 10000);
        auto direct = renderHeatmap(TensorView::of(*kernel), page.lastRequest());
        QVERIFY(direct.ok());
        QCOMPARE(page.view()->heatmap()->values, direct->values);
        page.indexBoxes()[0]->setValue(0);
        QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy() && page.lastRequest().fixedIndices.count(0) == 1, 10000);
        direct = renderHeatmap(TensorView::of(*kernel), page.lastRequest());
        QVERIFY(direct.ok());
        QCOMPARE(page.view()->heatmap()->values, direct->values);
    }

    // Issue #30, item 13 (clipped text): in a 1024x700 window the
    // histogram's value axis had eight ticks over ~190 px and drew "-…" for
    // -0.6. Ticks are as far apart as their widest label and a gap.
    void histogramTickLabelsFitANarrowInspector() {
        // The demo run's first kernel spans [-0.63, 0.83]: round steps of 0.2.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        DemoTrainOptions run;
        run.directory = tmp.filePath(QStringLiteral("run")).toStdString();
        auto trained = runDemoTraining(run);
        QVERIFY2(trained.ok(), trained.status().toString().c_str());
        const QString dir = tmp.filePath(QStringLiteral("run"));
        MainWindow w;
        ExplorerPage explorer(w);
        QVERIFY(ckpt::testing::showFreshAt(w, QSize(1024, 700)));
        QVERIFY(ckpt::testing::openAndWait(w, dir));
        auto* tabs = explorer.inspector()->findChild<QTabWidget*>();
        auto* histogram = explorer.inspector()->findChild<HistogramPage*>();
        QVERIFY(tabs && histogram);
        tabs->setCurrentWidget(histogram);
        const QList<QModelIndex> kernels = findTensors(explorer.treePane()->model(), "kernel", 2);
        QVERIFY(!kernels.isEmpty());
        explorer.treePane()->view()->setCurrentIndex(kernels[0]);
        QTRY_VERIFY_WITH_TIMEOUT(histogram->histogram().has_value(), 20000);
        QTest::qWait(50);
        QChart* chart = histogram->chartView()->chart();
        const QList<QAbstractAxis*> horizontal = chart->axes(Qt::Horizontal);
        QCOMPARE(horizontal.size(), qsizetype{1});
        auto* x = qobject_cast<QValueAxis*>(horizontal.first());
        QVERIFY(x);
        const double span = x->max() - x->min();
        QVERIFY(span > 0 && x->tickInterval() > 0);
        const double spacing = x->tickInterval() / span * chart->plotArea().width();
        const QFontMetrics metrics(x->labelsFont());
        const QByteArray format = x->labelFormat().toLatin1();
        int widest = 0;
        QStringList labels;
        for (double t = std::ceil(x->min() / x->tickInterval()) * x->tickInterval(); t <= x->max(); t += x->tickInterval()) {
            const QString label = QString::asprintf(format.constData(), std::abs(t) < 1e-12 ? 0.0 : t);
            labels << label;
            widest = std::max(widest, metrics.horizontalAdvance(label));
        }
        QVERIFY2(labels.size() >= 2, qPrintable(labels.join(QLatin1Char(' '))));
        QVERIFY2(spacing >= widest + metrics.height() / 2, qPrintable(QStringLiteral("ticks %1 every %2 px, widest label %3 px")
                                                                          .arg(labels.join(QLatin1Char(' ')))
                                                                          .arg(spacing)
                                                                          .arg(widest)));
    }

    void autoBins() {
        QCOMPARE(HistogramPage::autoBins(0), 8);
        QCOMPARE(HistogramPage::autoBins(32), 8);
        QCOMPARE(HistogramPage::autoBins(1000), 32);
        QCOMPARE(HistogramPage::autoBins(10'000'000), 128);
    }

    void staleResultsDropped() {
        // The second tensor arrives before the first one's job reports: only
        // the second is ever shown.
        auto first = std::make_shared<Tensor>();
        first->dtype = DataType::Float;
        first->shape.dims = {4};
        first->bytes.assign(16, 0);
        auto second = std::make_shared<Tensor>();
        second->dtype = DataType::Float;
        second->shape.dims = {2};
        second->bytes.assign(8, 0);
        StatsPage stats;
        stats.show();
        QVERIFY(QTest::qWaitForWindowExposed(&stats));
        QSignalSpy ready(&stats, &PreviewPage::previewReady);
        stats.setSelection({});
        stats.setValues(first);
        stats.setSelection({});
        stats.setValues(second);
        QTRY_VERIFY_WITH_TIMEOUT(!stats.isBusy(), 10000);
        QTest::qWait(50);
        QCOMPARE(ready.size(), 1);
        QCOMPARE(stats.stats()->count, int64_t{2});
        QCOMPARE(stats.stats()->zeros, int64_t{2});
    }

    void engineErrorsVerbatim() {
        // An empty tensor: statistics work, the heatmap has nothing to draw
        // and says so in the engine's words.
        auto empty = std::make_shared<Tensor>();
        empty->dtype = DataType::Float;
        empty->shape.dims = {0, 3};
        HeatmapPage heatmap;
        StatsPage stats;
        heatmap.show();
        stats.show();
        QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
        heatmap.setSelection({});
        heatmap.setValues(empty);
        stats.setSelection({});
        stats.setValues(empty);
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap.isBusy() && !stats.isBusy(), 10000);
        const auto direct = renderHeatmap(TensorView::of(*empty), heatmap.lastRequest());
        QVERIFY(!direct.ok());
        QCOMPARE(heatmap.message(), QString::fromStdString(direct.status().toString()));
        QVERIFY(!heatmap.view()->heatmap());
        QVERIFY(stats.stats());
        QCOMPARE(stats.stats()->count, int64_t{0});

        auto variant = std::make_shared<Tensor>();
        variant->dtype = DataType::Variant;
        variant->shape.dims = {2};
        stats.setSelection({});
        stats.setValues(variant);
        QTRY_VERIFY_WITH_TIMEOUT(!stats.isBusy(), 10000);
        const auto error = computeStats(TensorView::of(*variant));
        QVERIFY(!error.ok());
        QVERIFY(!stats.stats());
        QCOMPARE(stats.message(), QString::fromStdString(error.status().toString()));
    }
};

CKPT_EXPLORER_TEST_MAIN(TstPreviewPages)
#include "tst_preview_pages.moc"
