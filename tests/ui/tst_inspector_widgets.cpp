// The value grid's slice selectors and the status bar's job progress/cancel,
// driven through their widgets.

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QProgressBar>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

#include <cstring>

#include "jobs/job_tracker.h"
#include "models/tensor_slice_model.h"
#include "views/job_status_widget.h"
#include "views/values_page.h"

using namespace ckpt;
using namespace ckpt::ui;

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

QTEST_MAIN(TstInspectorWidgets)
#include "tst_inspector_widgets.moc"
