// The retention preview and the Schedules tab on real files: checkpoints
// written by the engine's demo training run into a temporary directory and
// a temporary schedule store. The preview shows the engine's plan row by
// row (verdict and rule as text, not colour alone) and follows the policy
// editor; Apply deletes what it listed. The schedule dialog takes the
// engine's verdict as the user types; the view lists the store's schedules
// and runs, runs a schedule now with progress, and cancels a run, both in
// process and through a `ckpt scheduler run` child process holding the store.

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QStyle>
#include <QtTest>

#include <csignal>

#include "explorer_test.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/schedule_store.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "models/retention_plan_model.h"
#include "models/schedules_model.h"
#include "views/duration_sparkline.h"
#include "views/retention_policy_editor.h"
#include "views/retention_preview.h"
#include "views/schedule_dialog.h"
#include "views/schedules_view.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

constexpr int kWaitMs = 60000;
constexpr int kCheckpoints = 8;

QString cell(const QAbstractItemModel* model, int row, int column) { return model->index(row, column).data().toString(); }

// Clicks the button named 'objectName' (or the standard 'fallback') of the
// next message box, once it is open.
void answerNextMessageBox(const QString& objectName, QMessageBox::StandardButton fallback = QMessageBox::NoButton) {
    QTimer::singleShot(0, qApp, [objectName, fallback] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return answerNextMessageBox(objectName, fallback);
        QAbstractButton* b = objectName.isEmpty() ? box->button(fallback) : box->findChild<QPushButton*>(objectName);
        QVERIFY(b);
        b->click();
    });
}

// Demo training with every save kept: ckpt-1 .. ckpt-N, one every 20 steps.
bool trainInto(const QString& dir, QString* error) {
    DemoTrainOptions run;
    run.directory = dir.toStdString();
    run.steps = 20 * kCheckpoints;
    run.saveEvery = 20;
    run.maxToKeep = 100;
    auto trained = runDemoTraining(run);
    if (!trained.ok()) *error = QString::fromStdString(trained.status().toString());
    return trained.ok();
}

}  // namespace

class TstSchedulesView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        m_run = m_tmp.filePath(QStringLiteral("run"));
        QString error;
        QVERIFY2(trainInto(m_run, &error), qPrintable(error));
        m_store = m_tmp.filePath(QStringLiteral("schedules.db"));
    }

    void previewShowsThePlan() {
        JobTracker jobs;
        RetentionPreview preview(&jobs);
        QAbstractItemModelTester tester(preview.model());
        RetentionPolicy policy;
        policy.keepLatest = 3;
        preview.setPolicy(policy);
        preview.show();
        QSignalSpy planned(&preview, &RetentionPreview::planned);
        preview.setDirectory(m_run);
        QTRY_VERIFY_WITH_TIMEOUT(!planned.isEmpty() && !preview.isBusy(), kWaitMs);
        QVERIFY2(planned.last().at(0).toBool(), qPrintable(preview.statusLabel()->text()));
        const RetentionPlanModel* model = preview.model();
        QCOMPARE(model->rowCount(), kCheckpoints);
        // The demo run's manager recorded itself as the owner: the preview
        // plans for it, so the older checkpoints go and nothing is foreign.
        QVERIFY(preview.ownerBox()->lineEdit()->placeholderText().contains(QStringLiteral("ckpt@")));
        for (int row = 0; row < kCheckpoints; ++row) {
            QCOMPARE(cell(model, row, RetentionPlanModel::NameColumn), QStringLiteral("ckpt-%1").arg(row + 1));
            QCOMPARE(cell(model, row, RetentionPlanModel::StepColumn), QLocale().toString(20 * (row + 1)));
            QVERIFY(cell(model, row, RetentionPlanModel::OwnerColumn).startsWith(QStringLiteral("ckpt@")));
            const QString verdict = cell(model, row, RetentionPlanModel::VerdictColumn);
            const QString why = cell(model, row, RetentionPlanModel::WhyColumn);
            if (row >= kCheckpoints - 3) {
                QCOMPARE(verdict, QStringLiteral("keep"));
                QVERIFY2(why.contains(QStringLiteral("latest 3")), qPrintable(why));
            } else {
                QCOMPARE(verdict, QStringLiteral("delete"));
                QCOMPARE(why, QStringLiteral("no rule keeps it"));
            }
        }
        QVERIFY(cell(model, kCheckpoints - 1, RetentionPlanModel::WhyColumn).contains(QStringLiteral("newest complete")));
        // The reason reads whole even in a narrow tab (issue #30, item 13:
        // squeezed to "…" between the other columns, then, as wide as its
        // text, run out of view): its column ends inside the viewport and
        // each row is tall enough for its reason wrapped to that width.
        preview.resize(700, 500);
        QTRY_VERIFY(preview.table()->isVisible());
        QTest::qWait(50);
        QTableView* table = preview.table();
        const int whyWidth = table->columnWidth(RetentionPlanModel::WhyColumn);
        const int whyEnd = table->columnViewportPosition(RetentionPlanModel::WhyColumn) + whyWidth;
        QVERIFY2(whyEnd <= table->viewport()->width(),
                 qPrintable(QStringLiteral("reason ends at %1 of %2 px").arg(whyEnd).arg(table->viewport()->width())));
        const int margins = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
        const QFontMetrics metrics(table->font());
        bool wrapped = false;
        for (int row = 0; row < kCheckpoints; ++row) {
            const QString why = cell(model, row, RetentionPlanModel::WhyColumn);
            const QRect needed = metrics.boundingRect(QRect(0, 0, whyWidth - margins, 10000), Qt::TextWordWrap, why);
            QVERIFY2(needed.width() <= whyWidth - margins && needed.height() <= table->rowHeight(row),
                     qPrintable(QStringLiteral("%1x%2 px for \"%3\" in %4x%5")
                                    .arg(needed.width())
                                    .arg(needed.height())
                                    .arg(why)
                                    .arg(whyWidth)
                                    .arg(table->rowHeight(row))));
            wrapped = wrapped || needed.height() > metrics.height();
        }
        // This plan's longest reason does not fit on one line here.
        QVERIFY(wrapped);
        // Colour says the same as the text, and keep and delete differ.
        const auto colour = [&](int row) { return model->index(row, 0).data(Qt::BackgroundRole).value<QBrush>().color(); };
        QVERIFY(colour(0) != colour(kCheckpoints - 1));
        QCOMPARE(colour(0), colour(1));
        QVERIFY(preview.totalsLabel()->text().contains(QStringLiteral("keep 3")));
        QVERIFY(preview.totalsLabel()->text().contains(QStringLiteral("delete %1").arg(kCheckpoints - 3)));
        QVERIFY(preview.applyButton()->isEnabled());
    }

    void editingARuleReplans() {
        JobTracker jobs;
        RetentionPreview preview(&jobs);
        preview.show();
        QSignalSpy planned(&preview, &RetentionPreview::planned);
        preview.setDirectory(m_run);
        QTRY_VERIFY_WITH_TIMEOUT(!planned.isEmpty() && !preview.isBusy(), kWaitMs);
        auto* latest = preview.editor()->findChild<QSpinBox*>(QStringLiteral("keep_latest"));
        auto* everySteps = preview.editor()->findChild<QSpinBox*>(QStringLiteral("keep_every_steps"));
        QVERIFY(latest && everySteps);

        latest->setValue(1);
        everySteps->setValue(60);  // steps 20, 60, 120: the first of each 60-step bucket
        QVERIFY(preview.isBusy());
        QVERIFY(!preview.applyButton()->isEnabled());  // never the plan of an older policy
        QTRY_VERIFY_WITH_TIMEOUT(!preview.isBusy() && preview.model()->plan() && preview.model()->plan()->kept == 4, kWaitMs);
        const RetentionPlanModel* model = preview.model();
        QStringList kept;
        for (int row = 0; row < model->rowCount(); ++row)
            if (cell(model, row, RetentionPlanModel::VerdictColumn) == QStringLiteral("keep"))
                kept << cell(model, row, RetentionPlanModel::NameColumn);
        QCOMPARE(kept, (QStringList{QStringLiteral("ckpt-1"), QStringLiteral("ckpt-3"), QStringLiteral("ckpt-6"),
                                    QStringLiteral("ckpt-8")}));
        QVERIFY(cell(model, 2, RetentionPlanModel::WhyColumn).contains(QStringLiteral("every 60 steps")));
        QVERIFY(cell(model, 7, RetentionPlanModel::WhyColumn).contains(QStringLiteral("latest 1")));
        // The JSON page shows the same policy.
        const QString json = preview.editor()->jsonEdit()->toPlainText();
        QVERIFY2(json.contains(QStringLiteral("\"keep_every_steps\": 60")), qPrintable(json));

        // A policy the engine refuses is named, and nothing is planned from it.
        preview.editor()->jsonEdit()->setPlainText(QStringLiteral("{\"keep_latets\": 2}"));
        QVERIFY(!preview.editor()->isValid());
        QVERIFY2(preview.editor()->error().contains(QStringLiteral("keep_latets")), qPrintable(preview.editor()->error()));
        QTRY_VERIFY(!preview.isBusy());
        QVERIFY(!preview.applyButton()->isEnabled());
        // Fixed JSON updates the boxes.
        preview.editor()->jsonEdit()->setPlainText(QStringLiteral("{\"keep_latest\": 2}"));
        QVERIFY(preview.editor()->isValid());
        QCOMPARE(latest->value(), 2);
        QCOMPARE(everySteps->value(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!preview.isBusy() && preview.model()->plan()->kept == 2, kWaitMs);
    }

    void applyDeletesWhatItListed() {
        const QString dir = m_tmp.filePath(QStringLiteral("apply"));
        QString error;
        QVERIFY2(trainInto(dir, &error), qPrintable(error));
        JobTracker jobs;
        RetentionPreview preview(&jobs);
        RetentionPolicy policy;
        policy.keepLatest = 2;
        preview.setPolicy(policy);
        preview.show();
        preview.setDirectory(dir);
        QTRY_VERIFY_WITH_TIMEOUT(!preview.isBusy() && preview.applyButton()->isEnabled(), kWaitMs);
        QSignalSpy applied(&preview, &RetentionPreview::applied);
        answerNextMessageBox(QStringLiteral("confirmDelete"));
        preview.applyButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, kWaitMs);
        QCOMPARE(applied.first().at(1).toInt(), kCheckpoints - 2);
        for (int i = 1; i <= kCheckpoints; ++i)
            QCOMPARE(QFile::exists(QStringLiteral("%1/ckpt-%2.index").arg(dir).arg(i)), i > kCheckpoints - 2);
        QTRY_VERIFY_WITH_TIMEOUT(!preview.isBusy() && preview.model()->rowCount() == 2, kWaitMs);
        QVERIFY2(preview.statusLabel()->text().contains(QStringLiteral("Deleted %1").arg(kCheckpoints - 2)),
                 qPrintable(preview.statusLabel()->text()));
        QVERIFY(!preview.applyButton()->isEnabled());  // nothing left to delete

        // Cancelling the confirmation deletes nothing.
        policy.keepLatest = 1;
        preview.setPolicy(policy);
        QTRY_VERIFY_WITH_TIMEOUT(!preview.isBusy() && preview.applyButton()->isEnabled(), kWaitMs);
        answerNextMessageBox({}, QMessageBox::Cancel);
        preview.applyButton()->click();
        QVERIFY(QFile::exists(dir + QStringLiteral("/ckpt-%1.index").arg(kCheckpoints - 1)));
    }

    void dialogTakesTheEnginesVerdict() {
        Schedule start;
        start.source = ScheduleSource::Directory;
        start.sourcePath = m_run.toStdString();
        start.triggers.everySeconds = 3600;
        ScheduleDialog dialog(start);
        dialog.show();
        QSignalSpy checked(&dialog, &ScheduleDialog::checked);
        dialog.nameEdit()->setText(QStringLiteral("backup"));
        dialog.destinationEdit()->setText(m_run + QStringLiteral("/archive"));
        QTRY_VERIFY_WITH_TIMEOUT(dialog.isChecked() && !checked.isEmpty(), kWaitMs);
        QVERIFY(!dialog.okButton()->isEnabled());
        QVERIFY2(dialog.reason().contains(QStringLiteral("inside the source")), qPrintable(dialog.reason()));
        QCOMPARE(dialog.reasonLabel()->text(), dialog.reason());

        dialog.destinationEdit()->setText(m_tmp.filePath(QStringLiteral("archive")));
        QVERIFY(!dialog.okButton()->isEnabled());  // until the engine has seen it
        QTRY_VERIFY_WITH_TIMEOUT(dialog.isChecked() && dialog.okButton()->isEnabled(), kWaitMs);
        QVERIFY(dialog.reason().isEmpty());

        // A trigger a directory copy cannot honour is refused with why.
        dialog.everyStepsBox()->setValue(100);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.isChecked() && !dialog.reason().isEmpty(), kWaitMs);
        QVERIFY2(dialog.reason().contains(QStringLiteral("every_steps")), qPrintable(dialog.reason()));
        QVERIFY(!dialog.okButton()->isEnabled());
        dialog.everyStepsBox()->setValue(0);
        dialog.intervalEdit()->setText(QStringLiteral("0"));
        QTRY_VERIFY_WITH_TIMEOUT(dialog.isChecked() && !dialog.reason().isEmpty(), kWaitMs);
        QVERIFY2(dialog.reason().contains(QStringLiteral("interval")), qPrintable(dialog.reason()));
        dialog.intervalEdit()->setText(QStringLiteral("2h"));
        QTRY_VERIFY_WITH_TIMEOUT(dialog.isChecked() && dialog.okButton()->isEnabled(), kWaitMs);
        const Schedule s = dialog.schedule();
        QCOMPARE(s.name, std::string("backup"));
        QCOMPARE(s.triggers.everySeconds.value_or(0), 7200.0);
        QCOMPARE(QString::fromStdString(s.destination), m_tmp.filePath(QStringLiteral("archive")));
    }

    void storeSchedulesAndRunsAppear() {
        const QString storePath = m_tmp.filePath(QStringLiteral("listed.db"));
        auto store = ScheduleStore::open(storePath.toStdString());
        QVERIFY2(store.ok(), store.status().toString().c_str());
        Schedule s;
        s.name = "nightly";
        s.sourcePath = m_run.toStdString();
        s.destination = m_tmp.filePath(QStringLiteral("nightly")).toStdString();
        s.triggers.everySeconds = 86400;
        auto id = (*store)->addSchedule(s);
        QVERIFY2(id.ok(), id.status().toString().c_str());
        const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
        for (int i = 0; i < 3; ++i) {  // three runs of 2, 4 and 6 s, the last one failed
            auto run = (*store)->beginRun(*id, RunTrigger::Due, now - 3000 + 1000 * i, 1);
            QVERIFY(run.ok());
            RunOutcome outcome;
            outcome.result = i == 2 ? RunResult::Failed : RunResult::Ok;
            outcome.endedAt = now - 3000 + 1000 * i + 2 * (i + 1);
            outcome.bytes = 1024 * (i + 1);
            if (i == 2) outcome.error = "disk full";
            QVERIFY((*store)->finishRun(*run, outcome).isOk());
        }

        JobTracker jobs;
        SchedulesView view(&jobs);
        QAbstractItemModelTester tester(view.model());
        QAbstractItemModelTester runsTester(view.runsModel());
        view.setStorePath(storePath);
        QSignalSpy refreshed(&view, &SchedulesView::refreshed);
        view.show();
        QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), kWaitMs);
        QVERIFY(refreshed.last().at(0).toBool());
        const SchedulesModel* model = view.model();
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(cell(model, 0, SchedulesModel::NameColumn), QStringLiteral("nightly"));
        QVERIFY(cell(model, 0, SchedulesModel::RouteColumn).contains(QStringLiteral("\u2192")));
        QVERIFY2(cell(model, 0, SchedulesModel::LastResultColumn).startsWith(QStringLiteral("failed")),
                 qPrintable(cell(model, 0, SchedulesModel::LastResultColumn)));
        QVERIFY(cell(model, 0, SchedulesModel::NextRunColumn).startsWith(QStringLiteral("in ")));
        QCOMPARE(view.selectedName(), QStringLiteral("nightly"));
        const auto durations =
            model->index(0, SchedulesModel::DurationsColumn).data(SchedulesModel::DurationsRole).value<QList<double>>();
        QCOMPARE(durations, (QList<double>{2, 4, 6}));
        QCOMPARE(view.sparkline()->durations(), durations);

        const ScheduleRunsModel* runs = view.runsModel();
        QCOMPARE(runs->rowCount(), 3);
        QCOMPARE(cell(runs, 0, ScheduleRunsModel::ResultColumn), QStringLiteral("failed"));
        QCOMPARE(cell(runs, 0, ScheduleRunsModel::ErrorColumn), QStringLiteral("disk full"));
        QCOMPARE(cell(runs, 0, ScheduleRunsModel::TriggerColumn), QStringLiteral("due"));
        QCOMPARE(cell(runs, 0, ScheduleRunsModel::BytesColumn), QStringLiteral("3.0 KiB"));  // as `ckpt` writes it
        QCOMPARE(cell(runs, 2, ScheduleRunsModel::ResultColumn), QStringLiteral("ok"));

        // A run recorded by another process shows on the next periodic read.
        auto other = (*store)->beginRun(*id, RunTrigger::CatchUp, now, 2);
        QVERIFY(other.ok());
        view.refreshTimer()->setInterval(50);
        QTRY_COMPARE_WITH_TIMEOUT(runs->rowCount(), 4, kWaitMs);
        QCOMPARE(cell(runs, 0, ScheduleRunsModel::ResultColumn), QStringLiteral("running"));
        QCOMPARE(cell(runs, 0, ScheduleRunsModel::TriggerColumn), QStringLiteral("catch-up"));
        QCOMPARE(view.selectedName(), QStringLiteral("nightly"));  // the selection survives re-reads

        // Remove asks first; Cancel keeps the schedule, Yes removes it and its runs.
        answerNextMessageBox({}, QMessageBox::Cancel);
        view.removeSelected();
        QCOMPARE((*store)->schedules()->size(), size_t(1));
        answerNextMessageBox({}, QMessageBox::Yes);
        view.removeSelected();
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 0, kWaitMs);
        QVERIFY((*store)->schedules()->empty());
        QVERIFY((*store)->runs(std::nullopt)->empty());
        QCOMPARE(view.runsModel()->rowCount(), 0);
    }

    void runNowRecordsARun() {
        auto store = ScheduleStore::open(m_store.toStdString());
        QVERIFY2(store.ok(), store.status().toString().c_str());
        Schedule s;
        s.name = "copy";
        s.sourcePath = m_run.toStdString();
        s.destination = m_tmp.filePath(QStringLiteral("copies")).toStdString();
        s.triggers.everySeconds = 3600;
        s.retention.keepLatest = 2;
        QVERIFY(validateSchedule(s).isOk());
        QVERIFY((*store)->addSchedule(s).ok());
        store->reset();

        JobTracker jobs;
        SchedulesView view(&jobs);
        view.setStorePath(m_store);
        QSignalSpy refreshed(&view, &SchedulesView::refreshed);
        view.show();
        QTRY_VERIFY_WITH_TIMEOUT(view.model()->rowCount() > 0, kWaitMs);
        view.selectSchedule(QStringLiteral("copy"));
        QCOMPARE(view.runsModel()->rowCount(), 0);
        QVERIFY(view.runButton()->isEnabled());
        QSignalSpy finished(&view, &SchedulesView::runFinished);
        view.runButton()->click();
        QVERIFY(view.isRunning());
        QVERIFY(view.progressBar()->isVisible());
        QVERIFY(!view.runButton()->isEnabled());
        QVERIFY(view.cancelButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kWaitMs);
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("ok"));
        QVERIFY2(view.statusLabel()->text().contains(QStringLiteral("copy: ok")), qPrintable(view.statusLabel()->text()));
        QVERIFY(!view.progressBar()->isVisible());
        QVERIFY(QFile::exists(m_tmp.filePath(QStringLiteral("copies/ckpt-%1.index").arg(kCheckpoints))));
        QTRY_COMPARE_WITH_TIMEOUT(view.runsModel()->rowCount(), 1, kWaitMs);
        QCOMPARE(cell(view.runsModel(), 0, ScheduleRunsModel::TriggerColumn), QStringLiteral("run-now"));
        // The row may still show the run as running: the view re-reads the
        // store after the run ends, in a job.
        QTRY_COMPARE_WITH_TIMEOUT(cell(view.runsModel(), 0, ScheduleRunsModel::ResultColumn), QStringLiteral("ok"), kWaitMs);
    }

    void cancelInterruptsTheRun() {
        auto store = ScheduleStore::open(m_store.toStdString());
        QVERIFY2(store.ok(), store.status().toString().c_str());
        Schedule s;
        s.name = "long-demo";
        s.source = ScheduleSource::DemoTrainer;
        s.destination = m_tmp.filePath(QStringLiteral("long-demo")).toStdString();
        s.triggers.everySeconds = 3600;
        s.demoSteps = 1'000'000;      // far longer than the test waits
        s.triggers.everySteps = 500;  // a save, and so a progress report, every 500 steps
        QVERIFY((*store)->addSchedule(s).ok());
        store->reset();

        JobTracker jobs;
        SchedulesView view(&jobs);
        view.setStorePath(m_store);
        view.show();
        QTRY_VERIFY_WITH_TIMEOUT(view.model()->rowCount() > 0, kWaitMs);
        view.selectSchedule(QStringLiteral("long-demo"));
        QCOMPARE(view.selectedName(), QStringLiteral("long-demo"));
        QSignalSpy finished(&view, &SchedulesView::runFinished);
        view.runButton()->click();
        // Training has started (the progress bar has a total) before the cancel.
        QTRY_VERIFY_WITH_TIMEOUT(view.progressBar()->maximum() > 0 && view.progressBar()->value() > 0, kWaitMs);
        view.cancelButton()->click();
        QVERIFY(!view.cancelButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kWaitMs);
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("interrupted"));
        QTRY_VERIFY_WITH_TIMEOUT(view.runsModel()->rowCount() == 1, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(cell(view.runsModel(), 0, ScheduleRunsModel::ResultColumn), QStringLiteral("interrupted"),
                                  kWaitMs);
        QVERIFY(view.runButton()->isEnabled());
    }

    // With the scheduler service (a child process) holding the store, Run
    // Now queues for it and the run appears; a run the service makes shows
    // its live progress, and Cancel Run stops it through the store.
    void runAndCancelThroughTheService() {
        const QString storePath = m_tmp.filePath(QStringLiteral("service.db"));
        auto store = ScheduleStore::open(storePath.toStdString());
        QVERIFY2(store.ok(), store.status().toString().c_str());
        const auto demo = [&](const char* name, int64_t steps) {
            Schedule s;
            s.name = name;
            s.source = ScheduleSource::DemoTrainer;
            s.destination = m_tmp.filePath(QString::fromLatin1(name)).toStdString();
            s.triggers.everySeconds = 86400;
            s.triggers.everySteps = 500;
            s.demoSteps = steps;
            s.enabled = false;  // the service runs it only when asked
            return (*store)->addSchedule(s);
        };
        QVERIFY(demo("svc-short", 20'000).ok());  // a second or two: long enough to see it queued
        auto longId = demo("svc-long", 300'000);  // half a minute: cancelled long before
        QVERIFY(longId.ok());

        QProcess service;
        service.start(ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"),
                      {QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--store"), storePath});
        QVERIFY(service.waitForStarted());
        QByteArray log;
        QTRY_VERIFY_WITH_TIMEOUT((log += service.readAllStandardOutput()).contains("scheduler started"), kWaitMs);
        const QString pid = QString::number(service.processId());

        JobTracker jobs;
        SchedulesView view(&jobs);
        view.setStorePath(storePath);
        view.show();
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 2, kWaitMs);
        view.selectSchedule(QStringLiteral("svc-short"));
        QSignalSpy finished(&view, &SchedulesView::runFinished);
        view.runButton()->click();
        QVERIFY(view.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(
            view.statusLabel()->text().contains(QStringLiteral("queued for the scheduler service (pid %1)").arg(pid)) ||
                !finished.isEmpty(),
            kWaitMs);
        QVERIFY2(finished.isEmpty(), "the run ended before the view said it was queued");
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kWaitMs);
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("ok"));
        QVERIFY2(view.statusLabel()->text().contains(QStringLiteral("run by the scheduler service, pid %1").arg(pid)),
                 qPrintable(view.statusLabel()->text()));
        QTRY_COMPARE_WITH_TIMEOUT(view.runsModel()->rowCount(), 1, kWaitMs);
        QCOMPARE(cell(view.runsModel(), 0, ScheduleRunsModel::TriggerColumn), QStringLiteral("run-now"));
        // The row may still show the run as running: the view re-reads the
        // store after the run ends, in a job.
        QTRY_COMPARE_WITH_TIMEOUT(cell(view.runsModel(), 0, ScheduleRunsModel::ResultColumn), QStringLiteral("ok"), kWaitMs);

        // Another process asks the service to run the long one (as
        // `ckpt schedule run-now --no-wait` does): its progress shows.
        view.selectSchedule(QStringLiteral("svc-long"));
        QVERIFY((*store)->requestRun(*longId, 0, 4242).ok());
        QTRY_VERIFY_WITH_TIMEOUT(view.runsModel()->rowCount() == 1 &&
                                     cell(view.runsModel(), 0, ScheduleRunsModel::ResultColumn).contains(QStringLiteral("%")),
                                 kWaitMs);
        const QString progress = cell(view.runsModel(), 0, ScheduleRunsModel::ResultColumn);
        QVERIFY2(progress.startsWith(QStringLiteral("running: ")) && progress.endsWith(QStringLiteral("% training")),
                 qPrintable(progress));
        QCOMPARE(view.refreshTimer()->interval(), 1000);  // re-read every second while it runs
        QVERIFY(cell(view.model(), view.model()->rowOf(*longId), SchedulesModel::LastResultColumn)
                    .startsWith(QStringLiteral("running (")));
        QTRY_VERIFY_WITH_TIMEOUT(view.cancelButton()->isEnabled(), kWaitMs);
        QVERIFY(!view.isRunning());  // not this view's run
        view.cancelButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(cell(view.runsModel(), 0, ScheduleRunsModel::ResultColumn) == QStringLiteral("interrupted"),
                                 kWaitMs);
        QVERIFY2(view.statusLabel()->text().contains(QStringLiteral("Asked run")), qPrintable(view.statusLabel()->text()));
        QVERIFY(!view.cancelButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(view.refreshTimer()->interval(), 3000, kWaitMs);

        ::kill(static_cast<pid_t>(service.processId()), SIGTERM);
        QVERIFY(service.waitForFinished(kWaitMs));
        QCOMPARE(service.exitCode(), 0);
    }

    void cleanupTestCase() { jobPool()->waitForDone(); }

private:
    QTemporaryDir m_tmp;
    QString m_run;
    QString m_store;
};

CKPT_EXPLORER_TEST_MAIN(TstSchedulesView)
#include "tst_schedules_view.moc"
