// The checkpoint manager's safety around saves, each scenario replaying a
// failure users reported against another checkpoint manager: rotation
// before the new save is durable, a restarted run's checkpoints kept
// forever or deleted, `latest` moving before an async write commits,
// deleting checkpoints it did not write, preemption, queued saves, and
// committed checkpoints without their metadata. Real saves into
// temporary directories; faults are real (RLIMIT_FSIZE, SIGKILL).

#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/retention.h"
#include "ckpt/save.h"
#include "ckpt/scheduled_checkpointer.h"
#include "ckpt/verify.h"
#include "test_support.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <mutex>
#include <random>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ckpt;

namespace {

constexpr int64_t kElements = 64 * 1024;  // 256 KiB of floats: more than the disk-full limit below

struct Program {
    std::shared_ptr<Trackable> root;
    std::shared_ptr<Variable> weights;
};

Program makeProgram(int64_t elements = kElements) {
    Program p;
    p.root = Trackable::makeObject();
    p.weights = Variable::make(DataType::Float, TensorShape{{elements}});
    (void)p.root->addChild("w", p.weights);
    return p;
}

void fill(Program& p, float value) {
    float* f = reinterpret_cast<float*>(p.weights->mutableValue().bytes.data());
    std::fill(f, f + p.weights->value().numElements(), value);
}

// What a restore would do: continue numbering after the checkpoints already saved.
void setSaveCounter(Program& p, int64_t n) { std::memcpy((*saveCounter(*p.root))->mutableValue().bytes.data(), &n, 8); }

std::string prefixIn(const QString& dir, const std::string& name) { return dir.toStdString() + "/" + name; }

bool hasIndex(const QString& dir, const std::string& name) {
    return QFile::exists(QString::fromStdString(prefixIn(dir, name) + ".index"));
}

// Names of the committed checkpoints (those with an .index), sorted.
QStringList committed(const QString& dir) {
    QStringList names = QDir(dir).entryList({QStringLiteral("*.index")}, QDir::Files, QDir::Name);
    for (QString& n : names) n.chop(6);
    return names;
}

QString verified(const std::string& prefix) {
    const auto report = verifyBundle(prefix);
    if (!report.ok()) return QString::fromStdString(report.status().toString());
    if (!report->ok()) return QString::fromStdString(report->problems.front().message);
    return {};
}

std::string stateLatest(const QString& dir) {
    auto state = readCheckpointState(dir.toStdString());
    return state.ok() && *state ? (*state)->modelCheckpointPath : std::string("<none>");
}

std::string ownerOf(const std::string& prefix) {
    auto m = readCheckpointMetadata(prefix);
    return m.ok() && *m ? (*m)->owner : std::string("<none>");
}

// A real sharding policy (one shard per task) that holds the writer until
// the test opens it, so a test can look at the directory while an async
// write is in flight. Opens by itself after 20 s so a failing test ends.
class GatedPolicy final : public ShardingPolicy {
public:
    std::string description() const override { return "by task, gated"; }
    Result<std::vector<std::vector<SaveTensor>>> shard(std::vector<SaveTensor> tensors) const override {
        std::unique_lock lock(m_mutex);
        ++m_entered;
        m_cv.notify_all();
        m_cv.wait_for(lock, std::chrono::seconds(20), [this] { return m_open; });
        return ShardByTaskPolicy().shard(std::move(tensors));
    }
    void open() {
        std::lock_guard lock(m_mutex);
        m_open = true;
        m_cv.notify_all();
    }
    bool waitEntered(int n) const {
        std::unique_lock lock(m_mutex);
        return m_cv.wait_for(lock, std::chrono::seconds(10), [&] { return m_entered >= n; });
    }

private:
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_cv;
    mutable int m_entered = 0;
    bool m_open = false;
};

RetentionPolicy keepLatest(int n) {
    RetentionPolicy p;
    p.keepLatest = n;
    return p;
}

}  // namespace

class TstManagerSafety : public QObject {
    Q_OBJECT
private slots:
    void init() { clearPreemption(); }

    // bghira/SimpleTuner #2989: old checkpoints were rotated away before the
    // new save was complete, so a save that failed left a stale one or none.
    // Here the disk fills (RLIMIT_FSIZE) during the third save: both earlier
    // checkpoints, their metadata and the state file's latest stay as they were.
    void rotate_after_durable_data() {
        QTest::addColumn<bool>("async");
        QTest::addColumn<bool>("retention");
        QTest::newRow("sync, max_to_keep 2") << false << false;
        QTest::newRow("async, max_to_keep 2") << true << false;
        QTest::newRow("sync, keep_latest 2") << false << true;
        QTest::newRow("async, keep_latest 2") << true << true;
    }
    void rotate_after_durable() {
        QFETCH(bool, async);
        QFETCH(bool, retention);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        CheckpointManagerOptions o;
        o.maxToKeep = 2;
        if (retention) o.retention = keepLatest(2);
        o.async = async;
        {
            Program p = makeProgram();
            auto m = CheckpointManager::create(p.root, dir.toStdString(), o);
            QVERIFY(m.ok());
            for (int i = 1; i <= 2; ++i) {
                fill(p, static_cast<float>(i));
                QVERIFY((*m)->save().ok());
            }
            QVERIFY((*m)->close().isOk());
        }
        const QByteArray stateBefore = testing::readAll(dir + QStringLiteral("/checkpoint"));
        const int code = ckpt::testing::runInChild([&]() -> int {
            Program p = makeProgram();
            setSaveCounter(p, 2);
            fill(p, 3);
            auto m = CheckpointManager::create(p.root, dir.toStdString(), o);
            if (!m.ok()) return 90;
            std::signal(SIGXFSZ, SIG_IGN);
            rlimit limit{64 * 1024, 64 * 1024};  // the metadata fits, the data file does not
            ::setrlimit(RLIMIT_FSIZE, &limit);
            auto saved = (*m)->save();
            const Status s = saved.ok() ? (*m)->close() : saved.status();
            return s.isOk() ? 0 : int(s.code());
        });
        QCOMPARE(code, int(StatusCode::ResourceExhausted));
        QCOMPARE(committed(dir), (QStringList{QStringLiteral("ckpt-1"), QStringLiteral("ckpt-2")}));
        for (const char* name : {"ckpt-1", "ckpt-2"}) {
            QCOMPARE(verified(prefixIn(dir, name)), QString());
            QVERIFY(QFile::exists(QString::fromStdString(checkpointMetadataFileName(prefixIn(dir, name)))));
        }
        QCOMPARE(stateLatest(dir), std::string("ckpt-2"));
        QCOMPARE(testing::readAll(dir + QStringLiteral("/checkpoint")), stateBefore);
    }

    // tensorflow #16215 / #16025, Lightning #5173: a restarted run either
    // deleted the previous run's checkpoints without saying so or kept them
    // forever. Adopt: the second manager records itself as their owner and
    // its retention manages them. LeaveAlone: it never deletes them and says
    // so in previousRun().
    void restart_adopts_previous_run_data() {
        QTest::addColumn<bool>("adopt");
        QTest::addColumn<bool>("retention");
        QTest::addColumn<bool>("withMetadata");  // false: a TensorFlow run (state file, no metadata)
        QTest::newRow("adopt, keep_latest 2") << true << true << true;
        QTest::newRow("adopt, max_to_keep 2") << true << false << true;
        QTest::newRow("adopt a TensorFlow run, keep_latest 2") << true << true << false;
        QTest::newRow("adopt a TensorFlow run, max_to_keep 2") << true << false << false;
        QTest::newRow("leave alone, keep_latest 2") << false << true << true;
        QTest::newRow("leave alone, max_to_keep 2") << false << false << true;
    }
    void restart_adopts_previous_run() {
        QFETCH(bool, adopt);
        QFETCH(bool, retention);
        QFETCH(bool, withMetadata);
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        {
            Program p = makeProgram(16);
            CheckpointManagerOptions first;
            first.owner = "run-a";
            first.maxToKeep = 10;
            auto m = CheckpointManager::create(p.root, dir.toStdString(), first);
            for (int i = 0; i < 3; ++i) QVERIFY((*m)->save().ok());
        }
        if (!withMetadata)
            for (const char* name : {"ckpt-1", "ckpt-2", "ckpt-3"})
                QVERIFY(QFile::remove(QString::fromStdString(checkpointMetadataFileName(prefixIn(dir, name)))));
        Program p = makeProgram(16);
        setSaveCounter(p, 3);
        CheckpointManagerOptions second;
        second.owner = "run-b";
        second.maxToKeep = 2;
        if (retention) second.retention = keepLatest(2);
        second.previousRun =
            adopt ? CheckpointManagerOptions::PreviousRun::Adopt : CheckpointManagerOptions::PreviousRun::LeaveAlone;
        auto m = CheckpointManager::create(p.root, dir.toStdString(), second);
        QVERIFY2(m.ok(), m.status().toString().c_str());
        const PreviousRunReport& found = (*m)->previousRun();
        const std::vector<std::string> previous = {prefixIn(dir, "ckpt-1"), prefixIn(dir, "ckpt-2"), prefixIn(dir, "ckpt-3")};
        QVERIFY(found.own.empty());
        QVERIFY(found.foreign.empty());
        QCOMPARE(adopt ? found.adopted : found.leftAlone, previous);
        QVERIFY((adopt ? found.leftAlone : found.adopted).empty());
        // The adoption is on disk, so it survives this process.
        for (const std::string& prefix : previous)
            QCOMPARE(ownerOf(prefix), adopt ? std::string("run-b") : withMetadata ? std::string("run-a") : std::string("<none>"));
        for (int i = 0; i < 4; ++i) QVERIFY((*m)->save().ok());
        if (adopt) {
            QCOMPARE(committed(dir), (QStringList{QStringLiteral("ckpt-6"), QStringLiteral("ckpt-7")}));
        } else {
            QCOMPARE(committed(dir), (QStringList{QStringLiteral("ckpt-1"), QStringLiteral("ckpt-2"), QStringLiteral("ckpt-3"),
                                                  QStringLiteral("ckpt-6"), QStringLiteral("ckpt-7")}));
            for (const std::string& prefix : previous) QCOMPARE(verified(prefix), QString());
        }
        // A third start with the same owner finds only its own.
        m->reset();
        auto third = CheckpointManager::create(p.root, dir.toStdString(), second);
        QVERIFY(third.ok());
        QCOMPARE((*third)->previousRun().own, (std::vector<std::string>{prefixIn(dir, "ckpt-6"), prefixIn(dir, "ckpt-7")}));
        QCOMPARE((*third)->previousRun().leftAlone.size(), adopt ? size_t{0} : size_t{3});
    }

    // The state file's latest and rotation move only once an async write
    // has committed: while the writer is held, `checkpoint` still names
    // ckpt-1, ckpt-1 is still there and ckpt-2 has no index.
    void latest_moves_after_durable_data() {
        QTest::addColumn<bool>("retention");
        QTest::newRow("max_to_keep 1") << false;
        QTest::newRow("keep_latest 1") << true;
    }
    void latest_moves_after_durable() {
        QFETCH(bool, retention);
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        auto gate = std::make_shared<GatedPolicy>();
        Program p = makeProgram(1024);
        CheckpointManagerOptions o;
        o.async = true;
        o.maxToKeep = 1;
        if (retention) o.retention = keepLatest(1);
        {
            auto first = CheckpointManager::create(p.root, dir.toStdString(), o);
            QVERIFY((*first)->save().ok());
            QVERIFY((*first)->close().isOk());
        }
        o.save.policy = gate;
        auto m = CheckpointManager::create(p.root, dir.toStdString(), o);
        QVERIFY(m.ok());
        QVERIFY((*m)->save().ok());
        QVERIFY(gate->waitEntered(1));
        QVERIFY((*m)->saveInFlight());
        QCOMPARE(stateLatest(dir), std::string("ckpt-1"));
        QCOMPARE((*m)->latestCheckpoint(), std::optional<std::string>(prefixIn(dir, "ckpt-1")));
        QCOMPARE(committed(dir), QStringList{QStringLiteral("ckpt-1")});
        QCOMPARE(verified(prefixIn(dir, "ckpt-1")), QString());
        gate->open();
        QVERIFY((*m)->sync().isOk());
        QVERIFY(!(*m)->saveInFlight());
        QCOMPARE(stateLatest(dir), std::string("ckpt-2"));
        QCOMPARE(committed(dir), QStringList{QStringLiteral("ckpt-2")});
        QVERIFY(!QFile::exists(QString::fromStdString(checkpointMetadataFileName(prefixIn(dir, "ckpt-1")))));
    }

    // tensorflow #34234: a manager deleted checkpoints in its directory that
    // it had not written. Here: a TensorFlow-written checkpoint (from the
    // real corpus), one written with tf.train.Checkpoint.write semantics
    // under the manager's own naming but never listed, and another run's
    // manager with another name. Twenty rotations later all are intact.
    void foreign_checkpoints_untouched_by_manager_data() {
        QTest::addColumn<bool>("retention");
        QTest::newRow("max_to_keep 2") << false;
        QTest::newRow("keep_latest 2") << true;
    }
    void foreign_checkpoints_untouched_by_manager() {
        QFETCH(bool, retention);
        const QString real = testing::realTestDataDir();
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        if (!real.isEmpty()) {
            for (const char* file : {"model.ckpt-1000.index", "model.ckpt-1000.data-00000-of-00001"})
                QVERIFY(QFile::copy(real + QStringLiteral("/tfx_estimator_ckpt1000/") + QLatin1String(file),
                                    dir + QLatin1Char('/') + QLatin1String(file)));
        } else {
            // Without the real corpus, our own writer stands in for the
            // estimator: a checkpoint with no metadata is foreign all the same.
            Program estimator = makeProgram(4);
            QVERIFY(writeCheckpoint(*estimator.root, prefixIn(dir, "model.ckpt-1000"), {}).ok());
        }
        Program p = makeProgram(16);
        QVERIFY(writeCheckpoint(*p.root, prefixIn(dir, "ckpt-100"), {}).ok());
        {
            Program other = makeProgram(16);
            CheckpointManagerOptions o;
            o.checkpointName = "other";
            o.owner = "other-run";
            auto m = CheckpointManager::create(other.root, dir.toStdString(), o);
            for (int i = 0; i < 2; ++i) QVERIFY((*m)->save().ok());
        }
        const std::vector<std::string> foreign = {prefixIn(dir, "model.ckpt-1000"), prefixIn(dir, "other-1"),
                                                  prefixIn(dir, "other-2"), prefixIn(dir, "ckpt-100")};
        CheckpointManagerOptions o;
        o.maxToKeep = 2;
        if (retention) o.retention = keepLatest(2);
        auto m = CheckpointManager::create(p.root, dir.toStdString(), o);
        QVERIFY(m.ok());
        std::vector<std::string> reported = (*m)->previousRun().foreign;
        std::sort(reported.begin(), reported.end());
        std::vector<std::string> expected = foreign;
        std::sort(expected.begin(), expected.end());
        QCOMPARE(reported, expected);
        QVERIFY((*m)->previousRun().adopted.empty());
        for (int i = 0; i < 20; ++i) QVERIFY((*m)->save().ok());
        QCOMPARE((*m)->checkpoints(), (std::vector<std::string>{prefixIn(dir, "ckpt-19"), prefixIn(dir, "ckpt-20")}));
        for (const std::string& prefix : foreign) QCOMPARE(verified(prefix), QString());
        QCOMPARE(ownerOf(prefixIn(dir, "other-1")), std::string("other-run"));
        QCOMPARE(ownerOf(prefixIn(dir, "model.ckpt-1000")), std::string("<none>"));
        QCOMPARE(committed(dir).size(), qsizetype(6));
    }

    // Preemption (SIGTERM, as a cluster scheduler sends before killing a
    // job): exactly one save at the next step, durable when onStep returns,
    // then stopRequested(); later steps save nothing.
    void preemption_saves_once_data() {
        QTest::addColumn<bool>("async");
        QTest::newRow("sync") << false;
        QTest::newRow("async") << true;
    }
    void preemption_saves_once() {
        QFETCH(bool, async);
        QTemporaryDir tmp;
        Program p = makeProgram(1024);
        ScheduledCheckpointerOptions o;
        o.triggers.everySteps = 1000;
        o.triggers.onPreemption = true;
        o.manager.async = async;
        auto c = ScheduledCheckpointer::create(p.root, tmp.path().toStdString(), o);
        QVERIFY2(c.ok(), c.status().toString().c_str());
        int saves = 0;
        int64_t stoppedAt = 0;
        for (int64_t step = 1; step <= 20; ++step) {
            auto r = (*c)->onStep(step);
            QVERIFY2(r.ok(), r.status().toString().c_str());
            if (r->saved) {
                ++saves;
                QCOMPARE(step, int64_t{6});
                QCOMPARE(QString::fromStdString(r->reason), QStringLiteral("preemption (SIGTERM)"));
                QVERIFY(hasIndex(tmp.path(), "ckpt-1"));  // durable before the loop exits
            }
            if (step == 5) QCOMPARE(::raise(SIGTERM), 0);
            if ((*c)->stopRequested() && !stoppedAt) stoppedAt = step;
        }
        QCOMPARE(saves, 1);
        QCOMPARE(stoppedAt, int64_t{6});
        QVERIFY((*c)->close().isOk());
        QCOMPARE(committed(tmp.path()), QStringList{QStringLiteral("ckpt-1")});
        auto meta = readCheckpointMetadata(prefixIn(tmp.path(), "ckpt-1"));
        QVERIFY(meta.ok() && *meta);
        QCOMPARE((*meta)->step.value_or(-1), int64_t{6});
        clearPreemption();
    }

    // A save due while an async write is still running is skipped, not
    // queued behind it: the loop is never held, and once the write is done
    // the next due step saves.
    void skip_while_in_flight() {
        QTemporaryDir tmp;
        auto gate = std::make_shared<GatedPolicy>();
        Program p = makeProgram(1024);
        ScheduledCheckpointerOptions o;
        o.triggers.everySteps = 1;
        o.manager.async = true;
        o.manager.save.policy = gate;
        auto c = ScheduledCheckpointer::create(p.root, tmp.path().toStdString(), o);
        QVERIFY(c.ok());
        auto first = (*c)->onStep(1);
        QVERIFY(first.ok() && first->saved);
        QVERIFY(gate->waitEntered(1));
        QElapsedTimer held;
        held.start();
        for (int64_t step = 2; step <= 10; ++step) {
            auto r = (*c)->onStep(step);
            QVERIFY(r.ok());
            QVERIFY(!r->saved);
            QCOMPARE(QString::fromStdString(r->reason), QStringLiteral("skipped: a save is in flight"));
        }
        QVERIFY2(held.elapsed() < 5000, "onStep waited for the write in flight");
        gate->open();
        QVERIFY((*c)->manager().sync().isOk());
        auto next = (*c)->onStep(11);
        QVERIFY(next.ok() && next->saved);
        QVERIFY((*c)->close().isOk());
        QCOMPARE((*c)->saves(), int64_t{2});
        QCOMPARE(committed(tmp.path()), (QStringList{QStringLiteral("ckpt-1"), QStringLiteral("ckpt-2")}));
    }

    // Every committed checkpoint has its metadata, with what the save was
    // given, whether the save was sync or async, and after SIGKILLs at
    // random moments of a save loop (the metadata commits before the index).
    void metadata_with_every_commit_data() {
        QTest::addColumn<bool>("async");
        QTest::addColumn<bool>("deferred");
        QTest::newRow("sync") << false << false;
        QTest::newRow("async") << true << false;
        QTest::newRow("async deferred") << true << true;
    }
    void metadata_with_every_commit() {
        QFETCH(bool, async);
        QFETCH(bool, deferred);
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        // Read on the writer thread too (the state file's timestamps).
        std::atomic<double> fakeNow = 1'700'000'000;
        Program p = makeProgram(1024);
        CheckpointManagerOptions o;
        o.async = async;
        if (deferred) o.asyncSnapshot = CheckpointManagerOptions::Snapshot::Deferred;
        o.owner = "run-m";
        o.maxToKeep = 3;
        o.clock = [&fakeNow] { return fakeNow.load(); };
        auto m = CheckpointManager::create(p.root, dir.toStdString(), o);
        for (int i = 1; i <= 5; ++i) {
            fakeNow = fakeNow + 60;
            SaveRequest r;
            r.step = i * 100;
            r.metrics = {{"loss", 1.0 / i}, {"accuracy", 0.1 * i}};
            r.tags = {i == 2 ? "pin" : "regular"};
            QVERIFY((*m)->save(r).ok());
        }
        QVERIFY((*m)->close().isOk());
        QCOMPARE(committed(dir), (QStringList{QStringLiteral("ckpt-3"), QStringLiteral("ckpt-4"), QStringLiteral("ckpt-5")}));
        for (int i = 3; i <= 5; ++i) {
            auto meta = readCheckpointMetadata(prefixIn(dir, "ckpt-" + std::to_string(i)));
            QVERIFY2(meta.ok() && *meta, "metadata missing");
            const CheckpointMetadata& md = **meta;
            QCOMPARE(md.owner, std::string("run-m"));
            QCOMPARE(md.step.value_or(-1), int64_t{i * 100});
            QCOMPARE(md.savedAt, 1'700'000'000.0 + 60 * i);
            QCOMPARE(md.metrics.at("loss"), 1.0 / i);
            QCOMPARE(md.tags, std::vector<std::string>{"regular"});
        }
        // Rotated checkpoints take their metadata with them.
        QVERIFY(QDir(dir).entryList({QStringLiteral("*.info.json")}, QDir::Files).size() == 3);

        // Kills at random moments: whatever committed has its metadata.
        const QString killed = tmp.filePath(QStringLiteral("killed"));
        std::mt19937 rng(async ? 7 : 3);
        std::uniform_int_distribution<int> delayUs(0, 50000);
        for (int kill = 0; kill < 15; ++kill) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                Program child = makeProgram();
                CheckpointManagerOptions co;
                co.async = async;
                co.maxToKeep = 3;
                auto cm = CheckpointManager::create(child.root, killed.toStdString(), co);
                if (!cm.ok()) ::_exit(3);
                setSaveCounter(child, 100 * kill);
                for (int64_t step = 1;; ++step) {
                    SaveRequest r;
                    r.step = step;
                    if (!(*cm)->save(r).ok()) ::_exit(4);
                }
            }
            ::usleep(static_cast<useconds_t>(delayUs(rng)));
            ::kill(pid, SIGKILL);
            int status = 0;
            ::waitpid(pid, &status, 0);
            QVERIFY2(WIFSIGNALED(status), "the save loop ended on its own (a save failed)");
        }
        const QStringList all = committed(killed);
        for (const QString& name : all) {
            auto meta = readCheckpointMetadata(prefixIn(killed, name.toStdString()));
            QVERIFY2(meta.ok() && *meta, qPrintable(name + QStringLiteral(" committed without metadata")));
        }
        qInfo("%lld checkpoints committed across 15 kills, each with its metadata", static_cast<long long>(all.size()));
    }
};

QTEST_GUILESS_MAIN(TstManagerSafety)
#include "tst_manager_safety.moc"
