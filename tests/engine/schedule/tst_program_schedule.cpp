// A live program in the schedule store (issue 15's "program" source): a
// ScheduledCheckpointer with a store registers a Program schedule and
// records one run per save, ended only once the save is durable (async:
// after the writer's commit); a store that is missing, not a database, or
// breaks during training never fails the loop. And a demo schedule's run
// reports progress between its saves.

#include "ckpt/demo_trainer.h"
#include "ckpt/schedule_store.h"
#include "ckpt/scheduled_checkpointer.h"
#include "ckpt/scheduler.h"
#include "ckpt/verify.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace ckpt;

namespace {

std::shared_ptr<Trackable> rootOf(int64_t floats) {
    auto root = Trackable::makeObject();
    (void)root->addChild("w", Variable::make(DataType::Float, TensorShape{{floats}}));
    return root;
}

// What the run's bytes must be: the checkpoint's .index and data files.
uint64_t bytesOnDisk(const QString& prefix) {
    const QFileInfo p(prefix);
    uint64_t bytes = 0;
    const QStringList files =
        p.dir().entryList({p.fileName() + QStringLiteral(".index"), p.fileName() + QStringLiteral(".data-*")}, QDir::Files);
    for (const QString& f : files) bytes += static_cast<uint64_t>(QFileInfo(p.dir().filePath(f)).size());
    return bytes;
}

bool verifies(const std::string& prefix) {
    auto report = verifyBundle(prefix);
    return report.ok() && report->ok();
}

std::vector<ScheduleRun> runsOf(const std::string& storePath, const std::string& name) {
    auto store = ScheduleStore::open(storePath);
    if (!store.ok()) return {};
    auto schedule = (*store)->schedule(name);
    if (!schedule.ok()) return {};
    auto runs = (*store)->runs(schedule->id);
    return runs.ok() ? *runs : std::vector<ScheduleRun>{};
}

ScheduledCheckpointerOptions storeOptions(const QTemporaryDir& tmp, const std::string& name) {
    ScheduledCheckpointerOptions o;
    o.schedule = name;
    o.storePath = tmp.filePath(QStringLiteral("schedules.db")).toStdString();
    o.program = "tst_program_schedule";
    return o;
}

}  // namespace

class TstProgramSchedule : public QObject {
    Q_OBJECT
private slots:
    void syncSavesAreRuns() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath(QStringLiteral("run")).toStdString();
        ScheduledCheckpointerOptions o = storeOptions(tmp, "trainer");
        o.triggers.everySteps = 5;
        o.manager.maxToKeep = 2;
        auto c = ScheduledCheckpointer::create(rootOf(256), dir, o);
        QVERIFY2(c.ok(), c.status().toString().c_str());
        for (int64_t step = 1; step <= 12; ++step) QVERIFY((*c)->onStep(step).ok());
        QVERIFY((*c)->saveNow("before evaluation").ok());
        QVERIFY((*c)->close().isOk());

        auto store = ScheduleStore::open(*o.storePath);
        QVERIFY(store.ok());
        auto schedule = (*store)->schedule("trainer");
        QVERIFY2(schedule.ok(), schedule.status().toString().c_str());
        QCOMPARE(schedule->source, ScheduleSource::Program);
        QCOMPARE(schedule->sourcePath, std::string("tst_program_schedule"));
        QCOMPARE(schedule->destination, dir);
        QCOMPARE(schedule->triggers.everySteps.value_or(0), int64_t{5});
        QCOMPARE(schedule->retention.keepLatest.value_or(0), 2);

        const auto runs = runsOf(*o.storePath, "trainer");  // newest first
        QCOMPARE(runs.size(), size_t{3});
        const char* notes[] = {"before evaluation (step 12)", "every 5 steps (step 10)", "every 5 steps (step 5)"};
        const RunTrigger triggers[] = {RunTrigger::RunNow, RunTrigger::Due, RunTrigger::Due};
        for (size_t i = 0; i < runs.size(); ++i) {
            const ScheduleRun& r = runs[i];
            QCOMPARE(r.result, RunResult::Ok);
            QCOMPARE(r.trigger, triggers[i]);
            QCOMPARE(r.note, std::string(notes[i]));
            QCOMPARE(r.checkpoint, dir + "/ckpt-" + std::to_string(3 - i));
            QCOMPARE(r.pid, int64_t{::getpid()});
            QVERIFY(r.endedAt && *r.endedAt >= r.startedAt);
        }
        // max_to_keep 2 rotated ckpt-1 out; the kept ones' bytes are theirs on disk.
        for (size_t i = 0; i < 2; ++i) {
            QVERIFY(verifies(runs[i].checkpoint));
            QCOMPARE(runs[i].bytes, bytesOnDisk(QString::fromStdString(runs[i].checkpoint)));
            QVERIFY(runs[i].bytes > 256 * 4);
        }

        // A restarted program updates its schedule and adds to its runs.
        o.triggers.everySteps = 3;
        auto again = ScheduledCheckpointer::create(rootOf(256), dir, o);
        QVERIFY(again.ok());
        for (int64_t step = 13; step <= 15; ++step) QVERIFY((*again)->onStep(step).ok());
        QVERIFY((*again)->close().isOk());
        QCOMPARE((*store)->schedules()->size(), size_t{1});
        QCOMPARE((*store)->schedule("trainer")->triggers.everySteps.value_or(0), int64_t{3});
        QCOMPARE(runsOf(*o.storePath, "trainer").size(), size_t{4});
    }

    void asyncRunEndsOkOnlyWhenCommitted() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath(QStringLiteral("run")).toStdString();
        ScheduledCheckpointerOptions o = storeOptions(tmp, "async-trainer");
        o.triggers.atSteps = {1, 40};
        o.triggers.skipWhileInFlight = false;  // step 40 saves even if the first write is slow
        o.manager.async = true;
        auto c = ScheduledCheckpointer::create(rootOf(1 << 20), dir, o);  // 4 MiB
        QVERIFY2(c.ok(), c.status().toString().c_str());
        // Whenever the store has the run ok (the recorder writes it on its
        // own thread, after a step found the write committed), the
        // checkpoint verifies: never ok before it is durable.
        for (int64_t step = 1; step <= 60; ++step) {
            auto r = (*c)->onStep(step);
            QVERIFY2(r.ok(), r.status().toString().c_str());
            QCOMPARE(r->saved, step == 1 || step == 40);
            for (const ScheduleRun& run : runsOf(*o.storePath, "async-trainer")) {
                if (run.result == RunResult::Ok) QVERIFY(verifies(run.checkpoint));
                else QCOMPARE(run.result, RunResult::Running);
            }
        }
        QVERIFY((*c)->close().isOk());
        const auto runs = runsOf(*o.storePath, "async-trainer");
        QCOMPARE(runs.size(), size_t{2});
        for (const ScheduleRun& r : runs) {
            QCOMPARE(r.result, RunResult::Ok);
            QVERIFY(verifies(r.checkpoint));
            QCOMPARE(r.bytes, bytesOnDisk(QString::fromStdString(r.checkpoint)));
            QVERIFY(r.bytes > (4u << 20));
        }
        QCOMPARE(runs[0].checkpoint, dir + "/ckpt-2");
    }

    void asyncWriteFailureIsAFailedRun() {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        ScheduledCheckpointerOptions o = storeOptions(tmp, "doomed");
        o.triggers.atSteps = {1};
        o.manager.async = true;
        auto c = ScheduledCheckpointer::create(rootOf(1024), dir.toStdString(), o);
        QVERIFY2(c.ok(), c.status().toString().c_str());
        // The directory becomes a file: the writer's metadata write fails (even as root).
        QVERIFY(QDir(dir).removeRecursively());
        QFile blocker(dir);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        auto saved = (*c)->onStep(1);
        QVERIFY(saved.ok() && saved->saved);  // async: handed to the writer
        QVERIFY(!(*c)->close().isOk());
        const auto runs = runsOf(*o.storePath, "doomed");
        QCOMPARE(runs.size(), size_t{1});
        QCOMPARE(runs[0].result, RunResult::Failed);
        QVERIFY(!runs[0].error.empty());
    }

    void brokenStoreNeverFailsTraining_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("missing directory") << QStringLiteral("missing");
        QTest::newRow("not a database") << QStringLiteral("garbage");
        QTest::newRow("name taken by a demo schedule") << QStringLiteral("taken");
        QTest::newRow("schedule removed during training") << QStringLiteral("removed");
    }
    void brokenStoreNeverFailsTraining() {
        QFETCH(QString, kind);
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath(QStringLiteral("run")).toStdString();
        ScheduledCheckpointerOptions o = storeOptions(tmp, "trainer");
        o.triggers.everySteps = 2;
        QByteArray garbage(4096, 'x');
        if (kind == QStringLiteral("missing")) o.storePath = tmp.filePath(QStringLiteral("no/such/dir/s.db")).toStdString();
        if (kind == QStringLiteral("garbage")) {
            QFile f(QString::fromStdString(*o.storePath));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(garbage);
        }
        if (kind == QStringLiteral("taken")) {
            auto store = ScheduleStore::open(*o.storePath);
            QVERIFY(store.ok());
            Schedule other;
            other.name = "trainer";
            other.source = ScheduleSource::DemoTrainer;
            other.destination = tmp.filePath(QStringLiteral("elsewhere")).toStdString();
            other.triggers.everySeconds = 3600;
            QVERIFY((*store)->addSchedule(other).ok());
        }
        auto c = ScheduledCheckpointer::create(rootOf(64), dir, o);
        QVERIFY2(c.ok(), c.status().toString().c_str());
        for (int64_t step = 1; step <= 6; ++step) {
            if (kind == QStringLiteral("removed") && step == 3) {
                auto store = ScheduleStore::open(*o.storePath);
                QVERIFY(store.ok() && (*store)->removeSchedule("trainer").isOk());
            }
            auto r = (*c)->onStep(step);
            QVERIFY2(r.ok(), r.status().toString().c_str());
            QCOMPARE(r->saved, step % 2 == 0);
        }
        QVERIFY((*c)->close().isOk());
        QCOMPARE((*c)->saves(), int64_t{3});
        QVERIFY(verifies(dir + "/ckpt-3"));
        if (kind == QStringLiteral("garbage")) {
            QFile f(QString::fromStdString(*o.storePath));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QCOMPARE(f.readAll(), garbage);  // never overwritten
        }
        if (kind == QStringLiteral("taken")) {
            auto store = ScheduleStore::open(*o.storePath);
            QCOMPARE((*store)->schedule("trainer")->source, ScheduleSource::DemoTrainer);  // left as it was
            QVERIFY((*store)->runs(std::nullopt)->empty());
        }
        if (kind == QStringLiteral("removed")) {
            auto store = ScheduleStore::open(*o.storePath);
            QVERIFY((*store)->schedules()->empty());  // not re-added behind the user's back
        }
    }

    void badScheduleNameIsRefused() {
        QTemporaryDir tmp;
        ScheduledCheckpointerOptions o = storeOptions(tmp, "no spaces");
        o.triggers.everySteps = 2;
        auto c = ScheduledCheckpointer::create(rootOf(64), tmp.filePath(QStringLiteral("run")).toStdString(), o);
        QCOMPARE(c.status().code(), StatusCode::InvalidArgument);
        o.schedule.clear();
        c = ScheduledCheckpointer::create(rootOf(64), tmp.filePath(QStringLiteral("run")).toStdString(), o);
        QCOMPARE(c.status().code(), StatusCode::InvalidArgument);
        QVERIFY(!QFile::exists(QString::fromStdString(*o.storePath)));
    }

    void demoTrainerRecordsItsSaves() {
        QTemporaryDir tmp;
        DemoTrainOptions d;
        d.directory = tmp.filePath(QStringLiteral("demo")).toStdString();
        d.steps = 80;
        d.schedule = "demo-program";
        d.storePath = tmp.filePath(QStringLiteral("schedules.db")).toStdString();
        std::vector<int64_t> reported;
        d.progressEvery = 10;
        auto run = runDemoTraining(d, [&](const DemoProgress& p) { reported.push_back(p.step); });
        QVERIFY2(run.ok(), run.status().toString().c_str());
        QCOMPARE(reported, (std::vector<int64_t>{10, 20, 30, 40, 50, 60, 70, 80}));
        QCOMPARE(run->saves.size(), size_t{2});
        const auto runs = runsOf(*d.storePath, "demo-program");
        QCOMPARE(runs.size(), size_t{2});
        QCOMPARE(runs[0].checkpoint, d.directory + "/ckpt-2");
        QCOMPARE(runs[1].checkpoint, d.directory + "/ckpt-1");
        for (const ScheduleRun& r : runs) QCOMPARE(r.result, RunResult::Ok);
    }

    // A demo schedule that saves only at its last step still shows the
    // run advancing: progress about every 1% of its steps.
    void demoScheduleProgressBetweenSaves() {
        QTemporaryDir tmp;
        const std::string storePath = tmp.filePath(QStringLiteral("schedules.db")).toStdString();
        {
            auto store = ScheduleStore::open(storePath);
            QVERIFY(store.ok());
            Schedule demo;
            demo.name = "demo";
            demo.source = ScheduleSource::DemoTrainer;
            demo.destination = tmp.filePath(QStringLiteral("demo")).toStdString();
            demo.triggers.everySeconds = 3600;
            demo.demoSteps = 300;
            QVERIFY((*store)->addSchedule(demo).ok());
        }
        auto scheduler = Scheduler::open(storePath);
        QVERIFY2(scheduler.ok(), scheduler.status().toString().c_str());
        std::vector<int64_t> training;
        auto run = (*scheduler)->runNow("demo", nullptr, [&](int64_t done, int64_t total, std::string_view phase) {
            if (phase == "training" && total == 300) training.push_back(done);
        });
        QVERIFY2(run.ok(), run.status().toString().c_str());
        QCOMPARE(run->result, RunResult::Ok);
        QCOMPARE(run->checkpoint, tmp.filePath(QStringLiteral("demo/ckpt-1")).toStdString());  // one save, at the end
        QVERIFY(std::is_sorted(training.begin(), training.end()));
        const auto between = std::count_if(training.begin(), training.end(), [](int64_t s) { return s > 0 && s < 300; });
        QVERIFY2(between >= 99, qPrintable(QString::number(between)));
        QCOMPARE(training.back(), int64_t{300});
    }
};

QTEST_GUILESS_MAIN(TstProgramSchedule)
#include "tst_program_schedule.moc"
