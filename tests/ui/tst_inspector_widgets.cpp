// The value grid's slice selectors and the status bar's job progress/cancel,
// driven through their widgets.

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QSpinBox>
#include <QTableView>
#include <QStyle>
#include <QToolButton>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

#include "explorer_test.h"
#include "jobs/job_tracker.h"
#include "models/tensor_slice_model.h"
#include "views/heatmap_controls.h"
#include "views/job_status_widget.h"
#include "views/values_page.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

// The first of 'parts' with less of it in sight than its size hint, said as
// "QComboBox: 90 of 94 px in sight"; empty when every one reads whole.
QString firstCut(const QList<QWidget*>& parts) {
    for (QWidget* w : parts) {
        const int shown = w->visibleRegion().boundingRect().width();
        if (shown < w->sizeHint().width())
            return QStringLiteral("%1: %2 of %3 px in sight")
                .arg(QString::fromLatin1(w->metaObject()->className()))
                .arg(shown)
                .arg(w->sizeHint().width());
    }
    return {};
}

}  // namespace

class TstInspectorWidgets : public QObject {
    Q_OBJECT
private slots:
    void sliceSelectorsDriveTheGrid() {
        auto t = std::make_shared<Tensor>();
        t->dtype = DataType::Int32;
        t->shape.dims = {2, 3, 4};
        t->bytes.resize(24 * 4);
        for (int32_t i = 0; i < 24; ++i) std::memcpy(t->bytes.data() + i * 4, &i, 4);
        ValuesPage page;
        QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.show();
        page.setValues(t);
        QCOMPARE(page.rowAxisBox()->count(), 3);
        QCOMPARE(page.pinnedBoxes().size(), 3);
        // Default: rows = axis 1, columns = axis 2, axis 0 pinned at 0.
        QVERIFY(page.pinnedBoxes()[0]->isVisible());
        QVERIFY(!page.pinnedBoxes()[1]->isVisible());
        page.pinnedBoxes()[0]->setValue(1);
        QCOMPARE(page.model()->index(0, 0).data().toString(), QStringLiteral("12"));
        // Choosing axis 0 as rows pins axis 1 instead.
        page.rowAxisBox()->setCurrentIndex(0);
        emit page.rowAxisBox()->activated(0);
        QCOMPARE(page.model()->rowAxis(), 0);
        QCOMPARE(page.model()->rowCount(), 2);
        QVERIFY(page.pinnedBoxes()[1]->isVisible());
        page.pinnedBoxes()[1]->setValue(2);
        QCOMPARE(page.model()->index(1, 3).data().toString(), QStringLiteral("23"));  // [1,2,3]
        // Picking the column axis as rows transposes.
        page.rowAxisBox()->setCurrentIndex(2);
        emit page.rowAxisBox()->activated(2);
        QCOMPARE(page.model()->rowAxis(), 2);
        QCOMPARE(page.model()->columnAxis(), 0);
    }

    // The axis selectors read whole in the inspector of a 1024 px window
    // (issue #30, item 13: "Column axis:" was cut to "Column ax").
    void axisSelectorsFitANarrowInspector() {
        auto t = std::make_shared<Tensor>();
        t->dtype = DataType::Int32;
        t->shape.dims = {8, 32};
        t->bytes.resize(8 * 32 * 4);
        ValuesPage page;
        page.resize(270, 300);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setValues(t);
        QTRY_VERIFY(page.rowAxisBox()->isVisible());
        QTest::qWait(50);
        QList<QWidget*> parts{page.rowAxisBox(), page.columnAxisBox()};
        for (QLabel* l : page.rowAxisBox()->parentWidget()->findChildren<QLabel*>())
            if (l->isVisible()) parts << l;
        QVERIFY(parts.size() >= 4);
        const QString cut = firstCut(parts);
        QVERIFY2(cut.isEmpty(), qPrintable(cut));
    }

    // The heatmap's axis boxes read whole in the same narrow inspector
    // (issue #30, item 13: "axis 1 (32)" was cut to "axis 1 (3").
    void heatmapAxisSelectorsFitANarrowInspector() {
        HeatmapControlsWording wording;
        wording.colormapLabel = QStringLiteral("C&olormap:");
        HeatmapControls controls(wording);
        controls.resize(270, 80);
        const TensorShape shape{{8, 32}};
        controls.setShape(&shape);
        controls.show();
        QVERIFY(QTest::qWaitForWindowExposed(&controls));
        QTest::qWait(50);
        QList<QWidget*> parts;
        for (QComboBox* box : controls.findChildren<QComboBox*>())
            if (box->isVisible()) parts << box;
        for (QLabel* l : controls.findChildren<QLabel*>())
            if (l->isVisible()) parts << l;
        QVERIFY(parts.size() >= 8);
        const QString cut = firstCut(parts);
        QVERIFY2(cut.isEmpty(), qPrintable(cut));
        QCOMPARE(controls.columnAxisBox()->currentText(), QStringLiteral("1 (32)"));
    }

    // Every number of the grid shows whole: its column is as wide as the
    // dtype's longest text in the grid's font (issue #30, item 11:
    // "-0.0072193…" could not be read).
    void numbersAreNeverElided() {
        for (const DataType dtype : {DataType::Float, DataType::Double, DataType::Int64, DataType::Int32}) {
            auto t = std::make_shared<Tensor>();
            t->dtype = dtype;
            t->shape.dims = {3, 3};
            const size_t size = dtype == DataType::Float || dtype == DataType::Int32 ? 4 : 8;
            t->bytes.resize(9 * size);
            for (int i = 0; i < 9; ++i) {
                const double v = -0.0072193012345 * std::pow(10.0, i * 4 - 20);
                if (dtype == DataType::Float) {
                    const float f = static_cast<float>(v);
                    std::memcpy(t->bytes.data() + i * 4, &f, 4);
                } else if (dtype == DataType::Double) {
                    std::memcpy(t->bytes.data() + i * 8, &v, 8);
                } else if (dtype == DataType::Int64) {
                    const int64_t n = std::numeric_limits<int64_t>::min() + i;
                    std::memcpy(t->bytes.data() + i * 8, &n, 8);
                } else {
                    const int32_t n = std::numeric_limits<int32_t>::min() + i;
                    std::memcpy(t->bytes.data() + i * 4, &n, 4);
                }
            }
            ValuesPage page;
            page.resize(900, 400);
            page.show();
            QVERIFY(QTest::qWaitForWindowExposed(&page));
            page.setValues(t);
            QTableView* table = page.table();
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) {
                    const QModelIndex i = page.model()->index(r, c);
                    const QString text = i.data().toString();
                    const QFont font = i.data(Qt::FontRole).value<QFont>();
                    const int needed = QFontMetrics(font).horizontalAdvance(text);
                    // The text's room: the cell less the style's margins.
                    const int room = table->columnWidth(c) - 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 1);
                    QVERIFY2(needed <= room,
                             qPrintable(QStringLiteral("%1 needs %2 px, has %3").arg(text).arg(needed).arg(room)));
                }
        }
    }

    // What the grid says while it has no values: the state the inspector
    // reports, never "Reading values…" beside a failure or an offer.
    void gridSaysWhereTheValuesStand() {
        auto snapshot = std::make_shared<CheckpointSnapshot>();
        TensorInfo info;
        info.key = "kernel";
        info.dtype = DataType::Float;
        info.shape.dims = {4};
        ValuesPage page;
        page.show();
        page.setSelection({snapshot, &info, QStringLiteral("kernel")});
        page.setValuesState(ValuesState::OnRequest, {});
        QVERIFY2(!page.message().contains(QStringLiteral("Reading")), qPrintable(page.message()));
        page.setValuesState(ValuesState::Reading, {});
        QVERIFY(page.message().contains(QStringLiteral("Reading")));
        page.setValues(nullptr);
        page.setValuesState(ValuesState::Failed, QStringLiteral("DataLoss: checksum mismatch"));
        QVERIFY2(page.message().contains(QStringLiteral("DataLoss: checksum mismatch")), qPrintable(page.message()));
        QVERIFY(!page.message().contains(QStringLiteral("Reading")));
        page.setSelection({snapshot, nullptr, {}});
        QVERIFY(page.message().contains(QStringLiteral("Select")));
    }

    // A window of the values, for axes longer than the grid shows at once.
    void longAxesShowAWindow() {
        auto t = std::make_shared<Tensor>();
        t->dtype = DataType::Int32;
        const int64_t n = TensorSliceModel::kMaxRows * 3 + 5;
        t->shape.dims = {n};
        t->bytes.resize(static_cast<size_t>(n) * 4);
        for (int32_t i = 0; i < n; ++i) std::memcpy(t->bytes.data() + static_cast<size_t>(i) * 4, &i, 4);
        ValuesPage page;
        QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.show();
        page.setValues(t);
        QCOMPARE(page.model()->rowCount(), TensorSliceModel::kMaxRows);
        QVERIFY(page.rowStartBox()->isVisible());
        QVERIFY(!page.columnStartBox()->isVisible());
        page.rowStartBox()->setValue(static_cast<int>(n));  // past the end: the last full window
        QCOMPARE(page.model()->rowOffset(), n - TensorSliceModel::kMaxRows);
        QCOMPARE(page.model()->index(TensorSliceModel::kMaxRows - 1, 0).data().toString(), QString::number(n - 1));
        QCOMPARE(page.model()->headerData(0, Qt::Vertical).toString(), QString::number(n - TensorSliceModel::kMaxRows));
        QCOMPARE(page.model()->copyText(0, 0, 0, 0), QString::number(n - TensorSliceModel::kMaxRows) + QLatin1Char('\n'));
    }

    void statusBarShowsAndCancelsJobs() {
        JobTracker tracker;
        // Hidden until there is work, as it sits in the status bar.
        JobStatusWidget widget(&tracker);
        QVERIFY(!widget.isVisible());
        auto job = tracker.start(QStringLiteral("Verifying ckpt-1"));
        QVERIFY(widget.isVisible());
        job->setProgress(50, 100);
        QProgressBar* bar = widget.findChild<QProgressBar*>();
        QTRY_COMPARE(bar->value(), 500);
        QTest::mouseClick(widget.findChild<QToolButton*>(), Qt::LeftButton);
        QVERIFY(job->isCancelled());
        tracker.finish(job);
        QVERIFY(!widget.isVisible());
    }
};

CKPT_EXPLORER_TEST_MAIN(TstInspectorWidgets)
#include "tst_inspector_widgets.moc"
