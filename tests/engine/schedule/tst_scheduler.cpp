// The scheduler on real directories and a real store, each scenario named
// after the failure it replays: two schedulers on one store, a burst of
// runs after downtime, a scheduler killed mid-save, a disk that fills
// during a copy, re-copying an unchanged checkpoint, and retention that
// deletes before the new copy is safe.

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/save.h"
#include "ckpt/schedule_client.h"
#include "ckpt/scheduler.h"
#include "ckpt/trackable.h"
#include "ckpt/verify.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <thread>

#include "test_support.h"

using namespace ckpt;

namespace {

// 2026-11-24 12:00:00 UTC.
constexpr double kT0 = 1795521600.0;

// Saves <dir>/ckpt-<N> through the save pipeline (tf.train.Checkpoint.save):
// a stored `step` and a weight whose every element is the step.
std::string saveSource(const std::string& dir, int64_t step, int64_t elements = 256, int64_t counter = 0) {
    auto root = Trackable::makeObject();
    Tensor s;
    s.dtype = DataType::Int64;
    s.bytes.resize(8);
    std::memcpy(s.bytes.data(), &step, 8);
    Tensor w;
    w.dtype = DataType::Float;
    w.shape = TensorShape{{elements}};
    w.bytes.resize(static_cast<size_t>(elements) * 4);
    const float value = static_cast<float>(step);
    for (int64_t i = 0; i < elements; ++i) std::memcpy(w.bytes.data() + i * 4, &value, 4);
    if (!root->addChild("step", Variable::fromTensor(std::move(s))).isOk()) return {};
    if (!root->addChild("w", Variable::fromTensor(std::move(w))).isOk()) return {};
    // Numbered like a manager: the counter continues the directory's.
    if (counter == 0) {
        auto listing = listCheckpoints(dir, CheckpointListOptions{.countTensors = false});
        counter = listing.ok() ? static_cast<int64_t>(listing->checkpoints.size()) + 1 : 1;
    }
    auto sc = saveCounter(*root);
    if (!sc.ok()) return {};
    const int64_t before = counter - 1;
    std::memcpy((*sc)->mutableValue().bytes.data(), &before, 8);
    auto path = saveCheckpoint(*root, dir + "/ckpt", SaveOptions{});
    return path.ok() ? *path : std::string();
}

// The value every element of the checkpoint's weight holds, or -1.
float weightValue(const std::string& prefix) {
    auto reader = BundleReader::open(prefix);
    if (!reader.ok()) return -1;
    auto t = (*reader)->read("w/.ATTRIBUTES/VARIABLE_VALUE");
    if (!t.ok()) return -1;
    return t->as<float>()[0];
}

QString verifyAll(const std::string& dir) {
    auto listing = listCheckpoints(dir);
    if (!listing.ok()) return QString::fromStdString(listing.status().toString());
    for (const CheckpointListEntry& e : listing->checkpoints) {
        auto report = verifyBundle(e.prefix);
        if (!report.ok()) return QString::fromStdString(report.status().toString());
        if (!report->ok()) return QString::fromStdString(e.prefix + ": " + report->problems.front().message);
    }
    return {};
}

std::vector<std::string> names(const std::string& dir) {
    std::vector<std::string> out;
    auto listing = listCheckpoints(dir, CheckpointListOptions{.countTensors = false});
    if (listing.ok())
        for (const CheckpointListEntry& e : listing->checkpoints) out.push_back(e.name);
    return out;
}

struct Fixture {
    QTemporaryDir tmp;
    std::string root = tmp.path().toStdString();
    std::string source = root + "/run";
    std::string destination = root + "/archive";
    std::string store = root + "/schedules.db";
    double now = kT0;

    Fixture() { QDir().mkpath(QString::fromStdString(source)); }

    SchedulerOptions options() {
        SchedulerOptions o;
        o.clock = [this] { return now; };
        return o;
    }
    Schedule directory(const std::string& name, double every = 60) const {
        Schedule s;
        s.name = name;
        s.source = ScheduleSource::Directory;
        s.sourcePath = source;
        s.destination = destination;
        s.triggers.everySeconds = every;
        s.createdAt = kT0;
        return s;
    }
    int64_t add(const Schedule& s) const {
        const Status valid = validateSchedule(s);
        if (!valid.isOk()) qWarning("%s", valid.toString().c_str());
        auto store_ = ScheduleStore::open(store);
        if (!store_.ok()) return -1;
        auto id = (*store_)->addSchedule(s);
        return id.ok() ? *id : -1;
    }
};

// Runs 'body' in a forked child; returns its exit status.
int inChild(const std::function<int()>& body) {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(body());
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

}  // namespace

class TstScheduler : public QObject {
    Q_OBJECT
private slots:
    void second_scheduler_refused() {
        Fixture f;
        auto first = Scheduler::open(f.store);
        QVERIFY2(first.ok(), first.status().toString().c_str());
        auto second = Scheduler::open(f.store);
        QVERIFY(!second.ok());
        QCOMPARE(second.status().code(), StatusCode::FailedPrecondition);
        const std::string expected = "another scheduler (pid " + std::to_string(::getpid()) + ") is running on " + f.store;
        QCOMPARE(second.status().message(), expected);
        // From another process too, and the lock dies with its holder.
        QCOMPARE(inChild([&] { return Scheduler::open(f.store).ok() ? 0 : 1; }), 1);
        first->reset();
        QVERIFY(Scheduler::open(f.store).ok());
    }

    void catch_up_runs_once() {
        Fixture f;
        QVERIFY(!saveSource(f.source, 100).empty());
        QVERIFY(f.add(f.directory("hourly", 60)) > 0);
        auto scheduler = Scheduler::open(f.store, f.options());
        QVERIFY(scheduler.ok());

        auto runs = (*scheduler)->runDue(f.now);
        QCOMPARE(runs->size(), size_t{1});  // never ran: at once
        QCOMPARE(runs->at(0).trigger, RunTrigger::Due);
        QCOMPARE(runs->at(0).result, RunResult::Ok);
        f.now += 30;
        QCOMPARE((*scheduler)->runDue(f.now)->size(), size_t{0});

        // Down for ten intervals: one catch-up run, not ten.
        f.now = kT0 + 600;
        runs = (*scheduler)->runDue(f.now);
        QCOMPARE(runs->size(), size_t{1});
        QCOMPARE(runs->at(0).trigger, RunTrigger::CatchUp);
        QCOMPARE((*scheduler)->runDue(f.now)->size(), size_t{0});
        f.now += 59;
        QCOMPARE((*scheduler)->runDue(f.now)->size(), size_t{0});
        f.now += 1;
        runs = (*scheduler)->runDue(f.now);
        QCOMPARE(runs->size(), size_t{1});
        QCOMPARE(runs->at(0).trigger, RunTrigger::Due);
        QCOMPARE((*scheduler)->store().runs(std::nullopt)->size(), size_t{3});

        // The pure rule the explorer shows as "next run".
        Schedule s = f.directory("x", 60);
        ScheduleRun last;
        last.startedAt = kT0;
        QCOMPARE(*scheduleDue(s, last, kT0 + 10).nextAt, kT0 + 60);
        QVERIFY(!scheduleDue(s, last, kT0 + 10).due);
        QCOMPARE(scheduleDue(s, last, kT0 + 119).trigger, RunTrigger::Due);
        QCOMPARE(scheduleDue(s, last, kT0 + 120).trigger, RunTrigger::CatchUp);
        s.enabled = false;
        QVERIFY(!scheduleDue(s, last, kT0 + 1000).nextAt);
    }

    void killed_mid_save_recorded_interrupted() {
        Fixture f;
        Schedule demo;
        demo.name = "long-demo";
        demo.source = ScheduleSource::DemoTrainer;
        demo.destination = f.destination;
        demo.triggers.everySeconds = 3600;
        demo.triggers.everySteps = 2000;
        demo.demoSteps = 5'000'000;  // minutes of training: it is killed long before the end
        QVERIFY(f.add(demo) > 0);

        const pid_t child = ::fork();
        if (child == 0) {
            auto scheduler = Scheduler::open(f.store);
            if (!scheduler.ok()) ::_exit(2);
            (void)(*scheduler)->runNow("long-demo");
            ::_exit(0);
        }
        // Kill it once it has committed a few saves and is still training.
        auto watcher = ScheduleStore::open(f.store);
        QVERIFY(watcher.ok());
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 60000 && names(f.destination).size() < 3)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        QCOMPARE((*watcher)->runningRuns()->size(), size_t{1});
        QCOMPARE((*watcher)->runningRuns()->at(0).pid, int64_t{child});
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        QVERIFY(WIFSIGNALED(status));

        auto scheduler = Scheduler::open(f.store, f.options());
        QVERIFY2(scheduler.ok(), scheduler.status().toString().c_str());
        QCOMPARE((*scheduler)->interruptedAtOpen().size(), size_t{1});
        auto runs = (*scheduler)->store().runs(std::nullopt);
        QCOMPARE(runs->size(), size_t{1});
        QCOMPARE(runs->at(0).result, RunResult::Interrupted);
        QVERIFY(runs->at(0).endedAt);
        QVERIFY2(QString::fromStdString(runs->at(0).error).contains(QStringLiteral("pid %1").arg(child)),
                 runs->at(0).error.c_str());
        // Nothing committed was lost: every checkpoint there verifies.
        QVERIFY(!names(f.destination).empty());
        QCOMPARE(verifyAll(f.destination), QString());
    }

    void disk_full_keeps_previous() {
        Fixture f;
        QVERIFY(!saveSource(f.source, 100).empty());
        Schedule s = f.directory("backup");
        s.retention.keepLatest = 1;  // would delete the previous copy if it ran too early
        QVERIFY(f.add(s) > 0);
        {
            auto scheduler = Scheduler::open(f.store, f.options());
            QVERIFY(scheduler.ok());
            QCOMPARE((*scheduler)->runNow("backup")->result, RunResult::Ok);
        }
        // 2 MiB of weights against a 256 KiB file size limit.
        QVERIFY(!saveSource(f.source, 200, 512 * 1024).empty());
        const int code = inChild([&] {
            std::signal(SIGXFSZ, SIG_IGN);
            rlimit limit{256 * 1024, 256 * 1024};
            ::setrlimit(RLIMIT_FSIZE, &limit);
            auto scheduler = Scheduler::open(f.store);
            if (!scheduler.ok()) return 90;
            auto run = (*scheduler)->runNow("backup");
            return run.ok() ? int(run->result) : 91;
        });
        QCOMPARE(code, int(RunResult::Failed));

        auto store = ScheduleStore::open(f.store);
        auto last = (*store)->lastRun((*store)->schedule("backup")->id);
        QVERIFY(last.ok() && *last);
        QCOMPARE((*last)->result, RunResult::Failed);
        QVERIFY2(QString::fromStdString((*last)->error).contains(QStringLiteral("ResourceExhausted")), (*last)->error.c_str());
        // The previous copy is intact; nothing of the failed one is left.
        QCOMPARE(names(f.destination), std::vector<std::string>{"ckpt-1"});
        QCOMPARE(weightValue(f.destination + "/ckpt-1"), 100.0f);
        QCOMPARE(verifyAll(f.destination), QString());
        QVERIFY(!QFile::exists(QString::fromStdString(f.destination + "/ckpt-2.info.json")));
        QVERIFY(!QDir(QString::fromStdString(f.destination + "/ckpt-2_temp")).exists());
    }

    void archive_skips_unchanged() {
        Fixture f;
        QVERIFY(!saveSource(f.source, 100).empty());
        QVERIFY(f.add(f.directory("archive")) > 0);
        auto scheduler = Scheduler::open(f.store, f.options());
        QVERIFY(scheduler.ok());
        auto first = (*scheduler)->runNow("archive");
        QCOMPARE(first->result, RunResult::Ok);
        QCOMPARE(first->checkpoint, f.destination + "/ckpt-1");
        QVERIFY(first->bytes > 1024);
        auto metadata = readCheckpointMetadata(f.destination + "/ckpt-1");
        QVERIFY(metadata.ok() && *metadata);
        QCOMPARE((*metadata)->owner, std::string("schedule:archive"));
        QCOMPARE(*(*metadata)->step, int64_t{100});
        auto latest = latestCheckpoint(f.destination);
        QCOMPARE(**latest, f.destination + "/ckpt-1");

        auto second = (*scheduler)->runNow("archive");
        QCOMPARE(second->result, RunResult::Skipped);
        QVERIFY2(QString::fromStdString(second->note).contains(QStringLiteral("already archived")), second->note.c_str());
        QCOMPARE(names(f.destination).size(), size_t{1});

        // A new checkpoint in the source is copied.
        QVERIFY(!saveSource(f.source, 200).empty());
        QCOMPARE((*scheduler)->runNow("archive")->checkpoint, f.destination + "/ckpt-2");

        // The source run restarted: a different ckpt-1 is archived beside the
        // old one, never over it.
        QVERIFY(QDir(QString::fromStdString(f.source)).removeRecursively());
        QDir().mkpath(QString::fromStdString(f.source));
        QVERIFY(!saveSource(f.source, 7, 256, 1).empty());
        auto restarted = (*scheduler)->runNow("archive");
        QCOMPARE(restarted->result, RunResult::Ok);
        QCOMPARE(restarted->checkpoint, f.destination + "/ckpt-1-run" + std::to_string(restarted->id));
        QCOMPARE(weightValue(f.destination + "/ckpt-1"), 100.0f);
        QCOMPARE(weightValue(restarted->checkpoint), 7.0f);
        QCOMPARE(verifyAll(f.destination), QString());
    }

    void retention_after_durable_copy() {
        Fixture f;
        Schedule s = f.directory("keep-one");
        s.retention.keepLatest = 1;
        s.sharding.shardCount = 2;
        QVERIFY(f.add(s) > 0);
        // A checkpoint in the destination that the schedule did not write.
        QDir().mkpath(QString::fromStdString(f.destination));
        {
            auto root = Trackable::makeObject();
            QVERIFY(root->addChild("v", Variable::make(DataType::Float, TensorShape{{4}})).isOk());
            QVERIFY(writeCheckpoint(*root, f.destination + "/foreign", SaveOptions{}).ok());
        }
        auto scheduler = Scheduler::open(f.store, f.options());
        QVERIFY(scheduler.ok());
        QVERIFY(!saveSource(f.source, 100).empty());
        QCOMPARE((*scheduler)->runNow("keep-one")->result, RunResult::Ok);
        f.now += 60;
        QVERIFY(!saveSource(f.source, 200).empty());
        auto second = (*scheduler)->runNow("keep-one");
        QCOMPARE(second->result, RunResult::Ok);
        QVERIFY2(QString::fromStdString(second->note).contains(QStringLiteral("retention: deleted 1")), second->note.c_str());
        QCOMPARE(names(f.destination), (std::vector<std::string>{"ckpt-2", "foreign"}));
        auto reader = BundleReader::open(f.destination + "/ckpt-2");
        QVERIFY(reader.ok());
        QCOMPARE((*reader)->header().numShards, 2);  // the schedule's sharding

        // A source checkpoint that cannot be read: the copy fails, and the
        // previous copy (the only one retention would otherwise keep) stays.
        f.now += 60;
        const std::string bad = saveSource(f.source, 300);
        QVERIFY(!bad.empty());
        {
            QFile data(QString::fromStdString(bad + ".data-00000-of-00001"));
            QVERIFY(data.open(QIODevice::ReadWrite));
            QByteArray bytes = data.readAll();
            bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x5A);
            data.seek(0);
            data.write(bytes);
        }
        auto failed = (*scheduler)->runNow("keep-one");
        QCOMPARE(failed->result, RunResult::Failed);
        QVERIFY(!failed->error.empty());
        QCOMPARE(names(f.destination), (std::vector<std::string>{"ckpt-2", "foreign"}));
        QCOMPARE(verifyAll(f.destination), QString());
        QVERIFY(!QFile::exists(QString::fromStdString(f.destination + "/ckpt-3.info.json")));
    }

    void cancelled_and_program_runs() {
        Fixture f;
        QVERIFY(!saveSource(f.source, 100).empty());
        QVERIFY(f.add(f.directory("copy")) > 0);
        Schedule program;
        program.name = "trainer";
        program.source = ScheduleSource::Program;
        program.sourcePath = "train.py";
        program.destination = f.root + "/live";
        program.triggers.everySteps = 100;
        QVERIFY(f.add(program) > 0);
        auto scheduler = Scheduler::open(f.store, f.options());
        QVERIFY(scheduler.ok());
        CancellationToken token;
        token.cancel();
        auto cancelled = (*scheduler)->runNow("copy", &token);
        QCOMPARE(cancelled->result, RunResult::Interrupted);
        QVERIFY(names(f.destination).empty());
        QCOMPARE((*scheduler)->runNow("trainer").status().code(), StatusCode::FailedPrecondition);
        QCOMPARE((*scheduler)->runNow("nope").status().code(), StatusCode::NotFound);
        // runDue never starts a program's schedule.
        f.now += 3600;
        auto due = (*scheduler)->runDue(f.now);
        QCOMPARE(due->size(), size_t{1});
        QCOMPARE(due->at(0).scheduleName, std::string("copy"));
    }

    void demo_schedule_trains_into_destination() {
        Fixture f;
        Schedule demo;
        demo.name = "demo";
        demo.source = ScheduleSource::DemoTrainer;
        demo.destination = f.destination;
        demo.triggers.everySeconds = 600;
        demo.triggers.everySteps = 50;
        demo.demoSteps = 200;
        demo.retention.keepLatest = 2;
        QVERIFY(validateSchedule(demo).isOk());
        QVERIFY(f.add(demo) > 0);
        auto scheduler = Scheduler::open(f.store, f.options());
        std::vector<std::string> phases;
        auto run =
            (*scheduler)->runNow("demo", nullptr, [&](int64_t, int64_t, std::string_view phase) { phases.emplace_back(phase); });
        QVERIFY(run.ok());
        QVERIFY2(run->result == RunResult::Ok, run->error.c_str());
        QVERIFY(run->bytes > 0);
        QVERIFY(!phases.empty());
        QCOMPARE(names(f.destination).size(), size_t{2});
        QCOMPARE(verifyAll(f.destination), QString());
    }

    void demo_run_cancelled_mid_training() {
        Fixture f;
        Schedule demo;
        demo.name = "long-demo";
        demo.source = ScheduleSource::DemoTrainer;
        demo.destination = f.destination;
        demo.triggers.everySeconds = 3600;
        demo.triggers.everySteps = 500;
        demo.demoSteps = 5'000'000;
        QVERIFY(f.add(demo) > 0);
        auto scheduler = Scheduler::open(f.store, f.options());
        QVERIFY(scheduler.ok());
        CancellationToken token;
        int saves = 0;
        QElapsedTimer timer;
        timer.start();
        auto run = (*scheduler)->runNow("long-demo", &token, [&](int64_t, int64_t, std::string_view) {
            if (++saves == 3) token.cancel();
        });
        QVERIFY(run.ok());
        QCOMPARE(run->result, RunResult::Interrupted);
        QVERIFY(timer.elapsed() < 30000);
        QVERIFY(!names(f.destination).empty());
        QCOMPARE(verifyAll(f.destination), QString());
        // What it wrote before it stopped is recorded, not "0 bytes" (issue #30).
        auto listing = listCheckpoints(f.destination, CheckpointListOptions{.countTensors = false});
        QVERIFY(listing.ok());
        uint64_t written = 0;
        for (const CheckpointListEntry& e : listing->checkpoints) written += e.bytes;
        QVERIFY(written > 0);
        QCOMPARE(run->bytes, written);
        QCOMPARE(run->checkpoint, listing->checkpoints.back().prefix);
    }

    // `ckpt schedule run-now` while the service holds the lock: the request
    // is served within a couple of seconds, once, with trigger run-now.
    void service_serves_run_now_request() {
        Fixture f;
        QVERIFY(!saveSource(f.source, 100).empty());
        Schedule s = f.directory("backup", 3600);
        s.enabled = false;  // never due: only the request runs it
        QVERIFY(f.add(s) > 0);
        auto scheduler = Scheduler::open(f.store);
        QVERIFY(scheduler.ok());
        CancellationToken stop;
        Status result = internalError("not run");
        std::thread loop([&] { result = (*scheduler)->run(stop); });
        auto holder = Scheduler::lockHolder(f.store);
        QVERIFY(holder.ok() && *holder);
        QCOMPARE(**holder, int64_t{::getpid()});

        auto client = ScheduleStore::open(f.store);
        QVERIFY(client.ok());
        const int64_t id = (*client)->schedule("backup")->id;
        QElapsedTimer timer;
        timer.start();
        const int64_t first = *(*client)->requestRun(id, kT0, 4242);
        const int64_t second = *(*client)->requestRun(id, kT0, 4343);  // asked twice before it ran: one run
        std::optional<ScheduleRun> run;
        while (timer.elapsed() < 20000 && !run) {
            auto q = (*client)->request(first);
            if (q.ok() && q->runId) {
                auto r = (*client)->run(*q->runId);
                if (r.ok() && r->result != RunResult::Running) run = *r;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        QVERIFY2(run, "the request was not served");
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(run->trigger, RunTrigger::RunNow);
        QCOMPARE(run->result, RunResult::Ok);
        QCOMPARE(*(*client)->request(second)->runId, run->id);
        // Served once: no second run however long the service keeps going.
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        QCOMPARE((*client)->runs(id)->size(), size_t{1});
        QCOMPARE((*client)->requests(id, true)->size(), size_t{0});
        stop.cancel();
        loop.join();
        QVERIFY2(result.isOk(), result.toString().c_str());
        scheduler->reset();
        QVERIFY(!*Scheduler::lockHolder(f.store));  // the lock went with it
        QCOMPARE(verifyAll(f.destination), QString());
    }

    // A cancel request from another process stops a long run of the
    // service (a forked child): recorded interrupted, progress rows advanced
    // while it ran, and every checkpoint it committed verifies.
    void cancel_request_stops_service_run() {
        Fixture f;
        Schedule demo;
        demo.name = "long-demo";
        demo.source = ScheduleSource::DemoTrainer;
        demo.destination = f.destination;
        demo.triggers.everySeconds = 3600;
        demo.triggers.everySteps = 500;
        demo.demoSteps = 300'000;  // about half a minute: cancelled long before
        demo.enabled = false;
        QVERIFY(f.add(demo) > 0);

        // The child says when it holds the lock (polling lockHolder could
        // itself refuse the starting scheduler, see scheduler.h).
        int ready[2];
        QCOMPARE(::pipe(ready), 0);
        const pid_t child = ::fork();
        if (child == 0) {
            auto scheduler = Scheduler::open(f.store);
            const char byte = scheduler.ok() ? 1 : 0;
            if (::write(ready[1], &byte, 1) != 1 || !scheduler.ok()) ::_exit(2);
            CancellationToken stop;  // runs until killed
            (void)(*scheduler)->run(stop);
            ::_exit(3);
        }
        ::close(ready[1]);
        char byte = 0;
        QCOMPARE(::read(ready[0], &byte, 1), ssize_t{1});
        ::close(ready[0]);
        QCOMPARE(byte, char{1});
        auto holder = Scheduler::lockHolder(f.store);
        QVERIFY(holder.ok() && *holder);
        QCOMPARE(**holder, int64_t{child});
        auto client = ScheduleStore::open(f.store);
        QVERIFY(client.ok());
        QElapsedTimer timer;
        const int64_t id = (*client)->schedule("long-demo")->id;
        const int64_t request = *(*client)->requestRun(id, kT0, ::getpid());

        // Progress rows advance while it runs.
        std::optional<int64_t> runId;
        int64_t firstDone = 0, laterDone = 0;
        timer.restart();
        while (timer.elapsed() < 30000 && laterDone <= firstDone) {
            auto q = (*client)->request(request);
            if (q.ok() && q->runId) {
                runId = q->runId;
                const int64_t done = (*client)->run(*runId)->progressDone;
                if (firstDone == 0) firstDone = done;
                else laterDone = done;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        QVERIFY(runId);
        QVERIFY2(firstDone > 0 && laterDone > firstDone, qPrintable(QStringLiteral("%1 then %2").arg(firstDone).arg(laterDone)));
        const ScheduleRun running = *(*client)->run(*runId);
        QCOMPARE(running.result, RunResult::Running);
        QCOMPARE(running.progressTotal, int64_t{300'000});
        QCOMPARE(running.progressPhase, std::string("training"));
        QCOMPARE(running.pid, int64_t{child});

        auto cancel = (*client)->requestCancel(id, kT0, ::getpid());
        QVERIFY2(cancel.ok(), cancel.status().toString().c_str());
        QCOMPARE(*cancel->runId, *runId);
        timer.restart();
        ScheduleRun ended = running;
        while (timer.elapsed() < 20000 && ended.result == RunResult::Running) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ended = *(*client)->run(*runId);
        }
        QCOMPARE(ended.result, RunResult::Interrupted);
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY2(QString::fromStdString(ended.note).contains(QStringLiteral("cancel requested by pid %1").arg(::getpid())),
                 ended.note.c_str());
        QVERIFY(ended.progressDone < 300'000);
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        QVERIFY(!names(f.destination).empty());
        QCOMPARE(verifyAll(f.destination), QString());
        // The cancel was served once; nothing is left to cancel.
        QCOMPARE((*client)->requestCancel(id, kT0, ::getpid()).status().code(), StatusCode::FailedPrecondition);
    }

    // What the CLI and the explorer call: in-process without a service (and
    // then `ckpt schedule cancel` from elsewhere still stops it), queued and
    // followed with one, where cancelling sends a cancel request.
    void run_or_queue_both_ways() {
        Fixture f;
        Schedule demo;
        demo.name = "long-demo";
        demo.source = ScheduleSource::DemoTrainer;
        demo.destination = f.destination;
        demo.triggers.everySeconds = 3600;
        demo.triggers.everySteps = 500;
        demo.demoSteps = 300'000;
        demo.enabled = false;
        QVERIFY(f.add(demo) > 0);

        // No service: this process runs it; a cancel from another store handle stops it.
        std::atomic<bool> training{false};
        RunNowOptions options;
        options.progress = [&](int64_t done, int64_t, std::string_view) {
            if (done > 0) training = true;
        };
        options.queued = [](int64_t, int64_t) { QFAIL("queued without a service"); };
        std::thread canceller([&] {
            QElapsedTimer t;
            t.start();
            while (!training && t.elapsed() < 30000) std::this_thread::sleep_for(std::chrono::milliseconds(10));
            auto sent = cancelScheduleRun(f.store, "long-demo");
            QVERIFY2(sent.ok(), sent.status().toString().c_str());
        });
        auto local = runOrQueueSchedule(f.store, "long-demo", options);
        canceller.join();
        QVERIFY2(local.ok(), local.status().toString().c_str());
        QVERIFY(!local->servicePid);
        QCOMPARE(local->run->result, RunResult::Interrupted);
        QCOMPARE(local->run->pid, int64_t{::getpid()});

        // A service: queued, followed, cancelled through the store.
        auto scheduler = Scheduler::open(f.store);
        QVERIFY(scheduler.ok());
        CancellationToken stop;
        std::thread loop([&] { (void)(*scheduler)->run(stop); });
        CancellationToken cancel;
        std::vector<int64_t> seen;
        int64_t queuedPid = 0;
        options.cancel = &cancel;
        options.queued = [&](int64_t pid, int64_t) { queuedPid = pid; };
        options.progress = [&](int64_t done, int64_t, std::string_view) {
            seen.push_back(done);
            if (seen.size() == 3) cancel.cancel();  // three progress reads from the store, then Ctrl+C
        };
        auto queued = runOrQueueSchedule(f.store, "long-demo", options);
        stop.cancel();
        loop.join();
        QVERIFY2(queued.ok(), queued.status().toString().c_str());
        QCOMPARE(queuedPid, int64_t{::getpid()});
        QCOMPARE(*queued->servicePid, int64_t{::getpid()});
        QVERIFY(queued->requestId);
        QVERIFY(queued->cancelRequested);
        QCOMPARE(queued->run->result, RunResult::Interrupted);
        QCOMPARE(queued->run->trigger, RunTrigger::RunNow);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QVERIFY(seen.size() >= 3);
        QCOMPARE(verifyAll(f.destination), QString());
        // Nothing left running or queued.
        QCOMPARE(cancelScheduleRun(f.store, "long-demo").status().code(), StatusCode::FailedPrecondition);
    }

    void service_loop_stops_on_cancel() {
        Fixture f;
        QVERIFY(!saveSource(f.source, 100).empty());
        QVERIFY(f.add(f.directory("every-second", 1)) > 0);
        std::vector<std::string> lines;
        SchedulerOptions options;
        options.log = [&](std::string_view line) { lines.emplace_back(line); };
        auto scheduler = Scheduler::open(f.store, options);
        QVERIFY(scheduler.ok());
        CancellationToken stop;
        Status result = internalError("not run");
        std::thread loop([&] { result = (*scheduler)->run(stop); });
        std::this_thread::sleep_for(std::chrono::milliseconds(2300));
        QElapsedTimer timer;
        timer.start();
        stop.cancel();
        loop.join();
        QVERIFY(timer.elapsed() < 1000);
        QVERIFY2(result.isOk(), result.toString().c_str());
        const size_t runs = (*scheduler)->store().runs(std::nullopt)->size();
        QVERIFY2(runs >= 2 && runs <= 4, qPrintable(QString::number(runs)));
        QVERIFY(!lines.empty());
        QVERIFY(QString::fromStdString(lines.back()).contains(QStringLiteral("scheduler stopped")));
    }
};

QTEST_GUILESS_MAIN(TstScheduler)
#include "tst_scheduler.moc"
