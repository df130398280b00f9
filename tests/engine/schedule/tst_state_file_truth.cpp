// Issue #29, finding 4: the `checkpoint` state file never names a
// checkpoint that is gone. A CheckpointManager saving while retention in
// another process deletes checkpoints of the same directory, a manager
// adopting a state file that lists deleted checkpoints, retention applied
// to a lying state file, retention interrupted by a power loss between its
// deletions or killed at any point of it, and a killed save: after each, every entry of the state file
// has its index. TensorFlow's CheckpointManager reading our state file is
// checked in tests/interop (tst_interop_tf); `ckpt verify DIR` and the
// catalog's health reporting a lying state file are tested here too.

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/wait.h>
#include <filesystem>
#include <unistd.h>

#include "ckpt/bundle_naming.h"
#include "ckpt/catalog.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/retention.h"
#include "ckpt/save.h"
#include "ckpt/verify.h"
#include "fault_storage.h"
#include "numbered_checkpoints.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;

namespace {

constexpr int kVariables = 1;
constexpr int64_t kElements = 256;

// Entries of the state file whose checkpoint has no index, joined; empty when it tells the truth.
QString lies(const std::string& dir) {
    auto state = readCheckpointState(dir);
    if (!state.ok()) return QString::fromStdString(state.status().toString());
    if (!*state) return {};
    QStringList gone;
    for (const std::string& e : stateEntriesWithoutIndex(dir, **state)) gone << QString::fromStdString(e);
    return gone.join(QLatin1Char(' '));
}

CheckpointManagerOptions unlimited(const std::string& owner = "run") {
    CheckpointManagerOptions o;
    o.maxToKeep.reset();
    o.owner = owner;
    return o;
}

// 'n' saves ckpt-1..n (value = number) by one manager.
bool saveRun(const std::string& dir, int n, CheckpointManagerOptions o) {
    NumberedProgram p(kVariables, kElements);
    auto m = CheckpointManager::create(p.root, dir, std::move(o));
    if (!m.ok()) return false;
    for (int i = 1; i <= n; ++i) {
        p.fill(static_cast<float>(i));
        if (!(*m)->save().ok()) return false;
    }
    return true;
}

// Retention in "another process": keep the newest 'keep', owned by 'owner'.
Status retain(const std::string& dir, int keep, const std::string& owner = "run") {
    RetentionPolicy policy;
    policy.keepLatest = keep;
    CKPT_ASSIGN_OR_RETURN(RetentionPlan plan, planDirectoryRetention(dir, policy, {.now = 4e9, .owner = owner}));
    return applyRetention(plan).status();
}

}  // namespace

class TstStateFileTruth : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    int m_case = 0;
    std::string fresh() { return m_tmp.filePath(QStringLiteral("case-%1").arg(++m_case)).toStdString(); }

private slots:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    // The 178 entries: a training run's manager keeps saving while
    // retention deletes checkpoints of the same directory. The manager's
    // next state file must not name what retention deleted.
    void managerSavingWhileRetentionDeletes() {
        const std::string dir = fresh();
        NumberedProgram p(kVariables, kElements);
        auto m = CheckpointManager::create(p.root, dir, unlimited());
        QVERIFY(m.ok());
        for (int i = 1; i <= 6; ++i) {
            p.fill(static_cast<float>(i));
            QVERIFY((*m)->save().ok());
        }
        QVERIFY(retain(dir, 2).isOk());  // deletes ckpt-1..4
        QCOMPARE(lies(dir), QString());
        p.fill(7);
        QVERIFY((*m)->save().ok());  // the manager still remembers ckpt-1..4
        QCOMPARE(lies(dir), QString());
        QCOMPARE(QString::fromStdString(checkDirectory(dir, kVariables, kElements)), QString());
        // ...and no longer counts them as its own.
        QCOMPARE((*m)->checkpoints().size(), size_t{3});
    }

    // The same race in two processes, over and over: a child saving with a
    // manager, the parent applying retention; every state file seen names
    // only checkpoints that exist (the directory lock orders them).
    void concurrentProcesses() {
        const std::string dir = fresh();
        QVERIFY(saveRun(dir, 2, unlimited()));
        const pid_t saver = ::fork();
        if (saver == 0) {
            NumberedProgram p(kVariables, kElements);
            p.setSaveCounter(2);
            auto m = CheckpointManager::create(p.root, dir, unlimited());
            if (!m.ok()) ::_exit(3);
            for (int i = 3; i <= 150; ++i) {
                p.fill(static_cast<float>(i));
                if (!(*m)->save().ok()) ::_exit(4);
            }
            ::_exit(0);
        }
        int rounds = 0;
        QString problem;
        for (int status = 0; ::waitpid(saver, &status, WNOHANG) == 0; ++rounds) {
            (void)retain(dir, 3);
            if (problem.isEmpty()) problem = lies(dir);
        }
        // The saver is done: its last state file, after a last retention, too.
        QVERIFY(retain(dir, 3).isOk());
        QCOMPARE(lies(dir), QString());
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("after %1 rounds: %2").arg(rounds).arg(problem)));
        QCOMPARE(QString::fromStdString(checkDirectory(dir, kVariables, kElements)), QString());
        qInfo("%d retention rounds while 148 saves ran", rounds);
    }

    // A manager started on a state file that lists deleted checkpoints
    // (a run restarted after someone deleted files) never names them again.
    void managerAdoptingALyingStateFile() {
        const std::string dir = fresh();
        QVERIFY(saveRun(dir, 4, unlimited()));
        for (const char* n : {"ckpt-1", "ckpt-3"}) QVERIFY(deleteCheckpointFiles(dir, n).isOk());
        QCOMPARE(lies(dir), QStringLiteral("ckpt-1 ckpt-3"));
        NumberedProgram p(kVariables, kElements);
        p.setSaveCounter(4);
        p.fill(5);
        auto m = CheckpointManager::create(p.root, dir, unlimited());
        QVERIFY(m.ok());
        QVERIFY((*m)->save().ok());
        QCOMPARE(lies(dir), QString());
        auto state = readCheckpointState(dir);
        QVERIFY(state.ok() && *state);
        QCOMPARE((*state)->allModelCheckpointPaths, (std::vector<std::string>{"ckpt-2", "ckpt-4", "ckpt-5"}));
        QCOMPARE((*state)->allModelCheckpointTimestamps.size(), size_t{3});
        QCOMPARE((*state)->modelCheckpointPath, std::string("ckpt-5"));
    }

    // A later `retention apply` repairs a state file that lies, even when it
    // has nothing to delete; its latest, when gone, becomes the newest left.
    void retentionRepairs() {
        const std::string dir = fresh();
        QVERIFY(saveRun(dir, 3, unlimited()));
        QVERIFY(deleteCheckpointFiles(dir, "ckpt-3").isOk());  // the latest
        QCOMPARE(lies(dir), QStringLiteral("ckpt-3"));
        QVERIFY(retain(dir, 10).isOk());  // keeps everything
        QCOMPARE(lies(dir), QString());
        QCOMPARE(QString::fromStdString(*latestCheckpoint(dir).value()), QString::fromStdString(dir + "/ckpt-2"));
    }

    // Retention rewrites the state file before it deletes: a power loss
    // after any of its file operations leaves a state file that names only
    // what is still there.
    void retentionPowerLoss() {
        const std::string templ = fresh();
        QVERIFY(saveRun(templ, 5, unlimited()));
        int64_t ops = 0;
        {
            const std::string dir = fresh();
            std::filesystem::copy(templ, dir);
            FaultStorage count(dir);
            ScopedStorage scoped(count);
            QVERIFY(retain(dir, 2).isOk());
            ops = static_cast<int64_t>(count.operations().size());
        }
        QVERIFY(ops >= 8);
        for (int64_t at = 1; at <= ops; ++at) {
            for (CrashImage image : {CrashImage::UndoEntries, CrashImage::KeepEntries}) {
                const std::string dir = fresh();
                std::filesystem::copy(templ, dir);
                FaultStorage faults(dir);
                faults.markAllDurable();
                FileFault fault;
                fault.at = at;
                fault.powerLoss = true;
                faults.arm(fault);
                {
                    ScopedStorage scoped(faults);
                    (void)retain(dir, 2);
                }
                QCOMPARE(QString::fromStdString(faults.restoreDurableImage(image)), QString());
                QVERIFY2(lies(dir).isEmpty(),
                         qPrintable(QStringLiteral("power lost after operation %1 of %2: the state file names %3")
                                        .arg(at)
                                        .arg(ops)
                                        .arg(lies(dir))));
                QCOMPARE(QString::fromStdString(checkDirectory(dir, kVariables, kElements)), QString());
            }
        }
    }

    // The 12 of 35: retention killed between its deletions and the
    // state file's rewrite. Killed right before each of its storage
    // operations (a child that _exits there), the state file names only
    // checkpoints whose index is still there, and the next apply leaves a
    // true state file and no half-deleted checkpoint.
    void retentionKilledAtEveryOperation() {
        const std::string templ = fresh();
        QVERIFY(saveRun(templ, 5, unlimited()));
        int64_t ops = 0;
        {
            const std::string dir = fresh();
            std::filesystem::copy(templ, dir);
            FaultStorage count(dir);
            ScopedStorage scoped(count);
            QVERIFY(retain(dir, 2).isOk());
            ops = static_cast<int64_t>(count.operations().size());
        }
        QVERIFY(ops >= 8);
        for (int64_t at = 1; at <= ops; ++at) {
            const std::string dir = fresh();
            std::filesystem::copy(templ, dir);
            const pid_t pid = ::fork();
            if (pid == 0) {
                FaultStorage faults(dir);
                FileFault fault;
                fault.at = at;
                fault.exitProcess = true;
                faults.arm(fault);
                ScopedStorage scoped(faults);
                (void)retain(dir, 2);
                ::_exit(3);  // the kill point was never reached
            }
            int status = 0;
            QCOMPARE(::waitpid(pid, &status, 0), pid);
            QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, qPrintable(QStringLiteral("kill %1 of %2").arg(at).arg(ops)));
            QVERIFY2(
                lies(dir).isEmpty(),
                qPrintable(
                    QStringLiteral("killed before operation %1 of %2: the state file names %3").arg(at).arg(ops).arg(lies(dir))));
            QCOMPARE(QString::fromStdString(checkDirectory(dir, kVariables, kElements)), QString());
            QVERIFY(retain(dir, 2).isOk());
            QCOMPARE(lies(dir), QString());
            QCOMPARE(QString::fromStdString(checkDirectory(dir, kVariables, kElements)), QString());
        }
    }

    // `ckpt verify DIR`'s engine call reports each entry without an index;
    // the catalog shows the directory's checkpoints as damaged, and healthy
    // again once the state file is repaired.
    void verifyAndCatalogReport() {
        const std::string dir = fresh();
        QVERIFY(saveRun(dir, 3, unlimited()));
        QVERIFY(deleteCheckpointFiles(dir, "ckpt-1").isOk());
        auto report = verifyCheckpointPath(dir);
        QVERIFY(report.ok());
        QCOMPARE(report->problems.size(), size_t{1});
        QCOMPARE(report->problems[0].file, std::string("checkpoint"));
        QVERIFY2(report->problems[0].message.find("names ckpt-1, which has no index") != std::string::npos,
                 report->problems[0].message.c_str());

        const std::string catalogPath = m_tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = Catalog::open(catalogPath);
        QVERIFY(catalog.ok());
        QVERIFY((*catalog)->addRoot(dir).ok());
        CatalogScanOptions verifying;
        verifying.verify = true;
        QVERIFY((*catalog)->scan(verifying).ok());
        auto row = (*catalog)->checkpoint(dir + "/ckpt-3");
        QVERIFY(row.ok());
        QCOMPARE(row->health(), CatalogHealth::Damaged);
        QVERIFY2(row->stateProblem.find("ckpt-1") != std::string::npos, row->stateProblem.c_str());
        QCOMPARE(row->problem(), row->stateProblem);
        // A malformed state file shows the same way.
        QVERIFY(writeAll(QString::fromStdString(dir + "/checkpoint"), "model_checkpoint_path: ckpt-3 {\n"));
        QVERIFY((*catalog)->scan({}).ok());
        row = (*catalog)->checkpoint(dir + "/ckpt-3");
        QCOMPARE(row->health(), CatalogHealth::Damaged);
        QVERIFY2(row->stateProblem.find("invalid checkpoint state file") != std::string::npos, row->stateProblem.c_str());
        // Repaired: healthy again.
        CheckpointState good;
        good.modelCheckpointPath = "ckpt-3";
        good.allModelCheckpointPaths = {"ckpt-2", "ckpt-3"};
        QVERIFY(commitCheckpointState(dir, good).isOk());
        QVERIFY((*catalog)->scan({}).ok());
        row = (*catalog)->checkpoint(dir + "/ckpt-3");
        QCOMPARE(row->health(), CatalogHealth::Healthy);
        QVERIFY(row->stateProblem.empty());
    }

    // commitCheckpointState itself: drops what is gone with its timestamp,
    // falls back for the latest, removes a file that would name nothing,
    // never adds anything.
    void commitDropsWhatIsGone() {
        const std::string dir = fresh();
        QVERIFY(saveRun(dir, 3, unlimited()));
        CheckpointState s;
        s.modelCheckpointPath = "ckpt-9";
        s.allModelCheckpointPaths = {"ckpt-1", "ckpt-7", "ckpt-2", "ckpt-9"};
        s.allModelCheckpointTimestamps = {1, 7, 2, 9};
        s.lastPreservedTimestamp = 0.5;
        QVERIFY(commitCheckpointState(dir, s).isOk());
        auto state = readCheckpointState(dir);
        QVERIFY(state.ok() && *state);
        QCOMPARE((*state)->modelCheckpointPath, std::string("ckpt-2"));
        QCOMPARE((*state)->allModelCheckpointPaths, (std::vector<std::string>{"ckpt-1", "ckpt-2"}));
        QCOMPARE((*state)->allModelCheckpointTimestamps, (std::vector<double>{1, 2}));
        QCOMPARE((*state)->lastPreservedTimestamp, 0.5);
        s.allModelCheckpointPaths = {"ckpt-8"};
        s.allModelCheckpointTimestamps = {8};
        QVERIFY(commitCheckpointState(dir, s).isOk());
        QVERIFY(!QFile::exists(QString::fromStdString(dir + "/checkpoint")));
    }
};

QTEST_GUILESS_MAIN(TstStateFileTruth)
#include "tst_state_file_truth.moc"
