// Issue #29, findings 1 and 7: a replacement is swapped in only after it
// verified, and what an interrupted operation leaves is collected, never
// what a running one still uses.
//  - A replace killed at every write-side system call of the operation (a
//    forked child that _exits there): the destination is the old checkpoint
//    or the new one, whole, or absent only while a verified replacement
//    waits; `ckpt gc` (or the next write of the destination) then leaves the
//    new or the old one and no leftovers. The same with a power loss after
//    each call (FaultStorage: unsynced data and directory entries lost).
//  - Two processes saving into one directory never remove each other's
//    shard directories (the gap docs/format.md used to admit).
//  - A live writer's staging directory and temporary files are kept; once
//    it is killed they are collected.
//  - Names without an owner (TensorFlow's, older ones) and index-less data
//    files wait out the grace period; symlinks and foreign directories are
//    never touched.

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/garbage_collection.h"
#include "ckpt/save.h"
#include "ckpt/surgery.h"
#include "ckpt/verify.h"
#include "fault_storage.h"
#include "numbered_checkpoints.h"
#include "pipeline/staged_checkpoint.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;

namespace {

constexpr int kVariables = 2;
constexpr int64_t kElements = 512;

bool saveValue(const std::string& prefix, float value, int shards) {
    NumberedProgram p(kVariables, kElements);
    p.fill(value);
    (void)saveCounter(*p.root);
    SaveOptions o;
    o.policy = std::make_shared<FixedShardCountPolicy>(shards);
    return writeCheckpoint(*p.root, prefix, o).ok();
}

// The value every variable of 'prefix' holds after it verifies; -1 when it
// does not verify or its values disagree (a mix of old and new).
float valueOf(const std::string& prefix) {
    auto report = verifyBundle(prefix);
    if (!report.ok() || !report->ok()) return -1;
    auto reader = BundleReader::open(prefix);
    if (!reader.ok()) return -1;
    float value = -2;
    for (int i = 0; i < kVariables; ++i) {
        auto t = (*reader)->read("v" + std::to_string(i) + "/.ATTRIBUTES/VARIABLE_VALUE");
        if (!t.ok()) return -1;
        for (float f : t->as<float>()) {
            if (value == -2) value = f;
            if (f != value) return -1;
        }
    }
    return value;
}

// Counts the write-side storage operations under 'root', or _exits the
// process right before operation 'exitAt' (a kill exactly there).
class CountingStorage : public FaultStorage {
public:
    explicit CountingStorage(const std::string& root, int64_t exitAt = 0) : FaultStorage(root) {
        if (exitAt > 0) {
            FileFault fault;
            fault.at = exitAt;
            fault.exitProcess = true;
            arm(fault);
        }
    }
    int64_t count() const { return static_cast<int64_t>(operations().size()); }
};

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

bool committedStagingIn(const std::string& dir) {
    for (const std::string& e : entries(dir))
        if (e.starts_with(".") && pipeline::stagingCommitted(dir + "/" + e)) return true;
    return false;
}

// Files the checkpoint 'name' owns in 'dir' plus nothing else: no staging,
// no temporary, no data file of another shard count.
QString onlyTheCheckpoint(const std::string& dir, const std::string& name) {
    auto reader = BundleReader::open(dir + "/" + name);
    if (!reader.ok()) return QString::fromStdString(reader.status().toString());
    const int32_t shards = (*reader)->header().numShards;
    std::vector<std::string> expected{name + ".index"};
    for (int32_t i = 0; i < shards; ++i) expected.push_back(dataFileName(name, i, shards));
    std::sort(expected.begin(), expected.end());
    const std::vector<std::string> found = entries(dir);
    if (found == expected) return {};
    QString list;
    for (const std::string& f : found) list += QString::fromStdString(f) + QLatin1Char(' ');
    return QStringLiteral("left in %1: %2").arg(QString::fromStdString(dir), list);
}

void age(const std::string& path, double seconds) {
    struct timeval times[2];
    ::gettimeofday(&times[0], nullptr);
    times[0].tv_sec -= static_cast<time_t>(seconds);
    times[1] = times[0];
    ::lutimes(path.c_str(), times);
}

}  // namespace

Q_DECLARE_METATYPE(ckpt::testing::CrashImage)

class TstGarbageCollection : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    int m_case = 0;

    // A fresh directory with src/ckpt-1 (1.0 everywhere, 1 shard) and
    // out/ckpt-5 (5.0 everywhere, 'oldShards' shards).
    std::string fixture(int oldShards) {
        const std::string root = m_tmp.filePath(QStringLiteral("case-%1").arg(++m_case)).toStdString();
        if (!saveValue(root + "/src/ckpt-1", 1, 1) || !saveValue(root + "/out/ckpt-5", 5, oldShards)) return {};
        return root;
    }

    static Status replace(const std::string& root, int newShards, bool overwrite = true) {
        SurgeryOptions o;
        o.overwrite = overwrite;
        o.save.policy = std::make_shared<FixedShardCountPolicy>(newShards);
        return saveCheckpointAs(root + "/src/ckpt-1", root + "/out/ckpt-5", o).status();
    }

private slots:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    // A kill at every write-side call of a replacement (same shard count:
    // the new data files take the old ones' names; another count: they do not).
    void killedAtEveryCall_data() {
        QTest::addColumn<int>("oldShards");
        QTest::addColumn<int>("newShards");
        QTest::addColumn<bool>("byNextWrite");
        QTest::newRow("same shard count, gc") << 1 << 1 << false;
        QTest::newRow("same shard count, next write") << 2 << 2 << true;
        QTest::newRow("other shard count, gc") << 2 << 1 << false;
        QTest::newRow("other shard count, next write") << 1 << 3 << true;
    }
    void killedAtEveryCall() {
        QFETCH(int, oldShards);
        QFETCH(int, newShards);
        QFETCH(bool, byNextWrite);
        int64_t calls = 0;
        {
            const std::string root = fixture(oldShards);
            QVERIFY(!root.empty());
            CountingStorage counting(root);
            ScopedStorage scoped(counting);
            QVERIFY(replace(root, newShards).isOk());
            calls = counting.count();
        }
        QVERIFY(calls > 10);
        int sawOld = 0, sawNew = 0, sawPending = 0;
        for (int64_t at = 1; at <= calls; ++at) {
            const std::string root = fixture(oldShards);
            QVERIFY(!root.empty());
            const std::string dst = root + "/out/ckpt-5";
            const int status = runInChild([&] {
                CountingStorage exiting(root, at);
                ScopedStorage scoped(exiting);
                return replace(root, newShards).isOk() ? 0 : 9;
            });
            QVERIFY2(status == 0, qPrintable(QStringLiteral("call %1: child %2").arg(at).arg(status)));
            // Readers see the old checkpoint or the new one, never a mix.
            const bool present = QFile::exists(QString::fromStdString(indexFileName(dst)));
            const bool pending = committedStagingIn(root + "/out");
            const float before = present ? valueOf(dst) : -1;
            if (present) {
                QVERIFY2(before == 5 || before == 1,
                         qPrintable(QStringLiteral("call %1: the destination holds %2").arg(at).arg(before)));
                (before == 5 ? sawOld : sawNew)++;
            } else {
                QVERIFY2(pending, qPrintable(QStringLiteral("call %1: no checkpoint and nothing to finish").arg(at)));
                ++sawPending;
            }
            if (byNextWrite) {
                if (pending && !present) {
                    // The destination looks empty, but the next write first
                    // finishes the replacement the kill left: without
                    // overwrite it must not then replace that one too.
                    QCOMPARE(replace(root, newShards, /*overwrite=*/false).code(), StatusCode::AlreadyExists);
                    QCOMPARE(valueOf(dst), 1.0f);
                }
                QVERIFY(replace(root, newShards).isOk());
                QCOMPARE(valueOf(dst), 1.0f);
            } else {
                auto report = collectGarbage(root + "/out", {.apply = true});
                QVERIFY2(report.ok(), report.status().toString().c_str());
                QVERIFY(report->errors.empty());
                // A verified replacement is finished; anything before it is undone.
                QCOMPARE(valueOf(dst), pending ? 1.0f : before);
            }
            QCOMPARE(onlyTheCheckpoint(root + "/out", "ckpt-5"), QString());
            QCOMPARE(valueOf(root + "/src/ckpt-1"), 1.0f);
        }
        qInfo("%lld kills: old kept %d, new in place %d, finished afterwards %d", static_cast<long long>(calls), sawOld, sawNew,
              sawPending);
        QVERIFY(sawOld > 0 && sawNew > 0);
    }

    // A power loss right after each call: what was not synced is lost.
    void powerLossAtEveryCall_data() {
        QTest::addColumn<CrashImage>("image");
        QTest::newRow("directory entries undone") << CrashImage::UndoEntries;
        QTest::newRow("directory entries kept") << CrashImage::KeepEntries;
    }
    void powerLossAtEveryCall() {
        QFETCH(CrashImage, image);
        int64_t calls = 0;
        {
            const std::string root = fixture(1);
            CountingStorage counting(root);
            ScopedStorage scoped(counting);
            QVERIFY(replace(root, 1).isOk());
            calls = counting.count();
        }
        for (int64_t at = 1; at <= calls; ++at) {
            const std::string root = fixture(1);
            const std::string dst = root + "/out/ckpt-5";
            // In a child, so that what it leaves belongs to a process that is gone.
            const int crashed = runInChild([&] {
                FaultStorage faults(root);
                faults.markAllDurable();
                FileFault fault;
                fault.at = at;
                fault.powerLoss = true;
                faults.arm(fault);
                {
                    ScopedStorage scoped(faults);
                    (void)replace(root, 1);
                }
                if (!faults.powerLost()) return 2;
                return faults.restoreDurableImage(image).empty() ? 0 : 3;
            });
            QCOMPARE(crashed, 0);
            const bool present = QFile::exists(QString::fromStdString(indexFileName(dst)));
            if (present) {
                const float v = valueOf(dst);
                QVERIFY2(v == 5 || v == 1, qPrintable(QStringLiteral("call %1: the destination holds %2").arg(at).arg(v)));
            } else {
                QVERIFY2(committedStagingIn(root + "/out"), qPrintable(QStringLiteral("call %1: nothing to finish").arg(at)));
            }
            auto report = collectGarbage(root + "/out", {.apply = true, .now = 0, .graceSeconds = 0});
            QVERIFY2(report.ok() && report->errors.empty(), qPrintable(QStringLiteral("call %1").arg(at)));
            const float v = valueOf(dst);
            QVERIFY2(v == 5 || v == 1, qPrintable(QStringLiteral("call %1: after gc %2").arg(at).arg(v)));
            QCOMPARE(onlyTheCheckpoint(root + "/out", "ckpt-5"), QString());
        }
    }

    // Two processes saving different checkpoints into one directory: each
    // save cleans up what dead writers left, never the other's live shards.
    void concurrentSavesInOneDirectory() {
        const std::string dir = m_tmp.filePath(QStringLiteral("shared")).toStdString();
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        std::vector<pid_t> children;
        for (int w = 0; w < 2; ++w) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                NumberedProgram p(kVariables, 16 * 1024);
                for (int i = 0; i < 60; ++i) {
                    p.fill(static_cast<float>(i));
                    const std::string prefix = dir + "/w" + std::to_string(w) + "-" + std::to_string(i);
                    if (!writeCheckpoint(*p.root, prefix, SaveOptions{}).ok()) ::_exit(10 + w);
                }
                ::_exit(0);
            }
            children.push_back(pid);
        }
        for (pid_t pid : children) {
            int status = 0;
            ::waitpid(pid, &status, 0);
            QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                     qPrintable(QStringLiteral("a writer failed: %1").arg(WIFEXITED(status) ? WEXITSTATUS(status) : -1)));
        }
        auto report = collectGarbage(dir);
        QVERIFY(report.ok());
        QCOMPARE(report->items.size(), size_t{0});
    }

    // A writer that is still running: its staging directory and the temp
    // files under way are kept by gc, applied or not, and by the next
    // writer of the same destination; once it is killed, they go.
    void liveWriterKept() {
        const std::string root = fixture(1);
        const std::string out = root + "/out";
        int ready[2];
        QVERIFY(::pipe(ready) == 0);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(ready[0]);
            auto staged = pipeline::StagedCheckpoint::begin(out + "/ckpt-5", /*overwrite=*/false);
            NumberedProgram p(kVariables, kElements);
            p.fill(1);
            if (!staged.ok() || !writeCheckpoint(*p.root, (*staged)->stagingPrefix(), SaveOptions{}).ok()) ::_exit(3);
            (void)::write(ready[1], "x", 1);
            ::pause();
            ::_exit(0);
        }
        ::close(ready[1]);
        char c = 0;
        QCOMPARE(::read(ready[0], &c, 1), ssize_t{1});
        ::close(ready[0]);
        for (bool apply : {false, true}) {
            auto report = collectGarbage(out, {.apply = apply});
            QVERIFY(report.ok());
            QCOMPARE(report->items.size(), size_t{1});
            QCOMPARE(report->items[0].kind, GarbageKind::StagedCheckpoint);
            QVERIFY(!report->items[0].removable);
            QVERIFY2(report->items[0].reason.find("still running") != std::string::npos, report->items[0].reason.c_str());
            QCOMPARE(report->removed, 0);
        }
        // The next writer of the destination leaves it alone too, and still writes.
        QVERIFY(replace(root, 1).isOk());
        QCOMPARE(valueOf(out + "/ckpt-5"), 1.0f);
        QVERIFY(collectGarbage(out)->items.size() == 1);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        auto report = collectGarbage(out);
        QVERIFY(report.ok());
        QCOMPARE(report->items.size(), size_t{1});
        QVERIFY(report->items[0].removable);
        QVERIFY2(report->items[0].reason.find("has ended") != std::string::npos, report->items[0].reason.c_str());
        QVERIFY(report->removableBytes > 0);
        report = collectGarbage(out, {.apply = true});
        QCOMPARE(report->removed, 1);
        QCOMPARE(onlyTheCheckpoint(out, "ckpt-5"), QString());
    }

    // Leftovers without an owner: removed only once unchanged for the grace
    // period; what is not a save's (or is a symlink) never.
    void unownedLeftovers() {
        const std::string dir = m_tmp.filePath(QStringLiteral("unowned")).toStdString();
        QVERIFY(saveValue(dir + "/ckpt-2", 2, 1));
        const auto file = [&](const std::string& name, const char* bytes) {
            QVERIFY(writeAll(QString::fromStdString(dir + "/" + name), bytes));
        };
        QVERIFY(QDir().mkpath(QString::fromStdString(dir + "/ckpt-3_temp")));
        file("ckpt-3_temp/part-00000-of-00001.data-00000-of-00001", "partial");
        QVERIFY(QDir().mkpath(QString::fromStdString(dir + "/notours_temp")));
        file("notours_temp/keep.txt", "mine");
        file("checkpoint.tmp0123456789abcdef", "model_checkpoint_path: \"ckpt-2\"\n");  // an older writer's
        file(".model.npz.tmp-4242-7", "half an export");                                // an older export's
        file("ckpt-4.data-00000-of-00001", "no index for this");
        file("ckpt-4.info.json", "{}");
        file("ckpt-2.data-00000-of-00003", "another shard count than ckpt-2.index names");
        QVERIFY(::symlink("/etc", (dir + "/ckpt-9_temp").c_str()) == 0);
        QVERIFY(::symlink("/etc/hostname", (dir + "/state.tmp-1-2-deadbeef-3").c_str()) == 0);

        // Fresh: listed, kept.
        auto report = collectGarbage(dir);
        QVERIFY(report.ok());
        int kept = 0;
        for (const GarbageItem& g : report->items) {
            QVERIFY2(!g.removable, g.path.c_str());
            QVERIFY2(g.reason.find("kept until") != std::string::npos || g.reason.find("not a save's") != std::string::npos,
                     g.reason.c_str());
            ++kept;
        }
        QCOMPARE(kept, 7);
        // Two days later.
        for (const char* n : {"ckpt-3_temp", "ckpt-3_temp/part-00000-of-00001.data-00000-of-00001", "notours_temp",
                              "notours_temp/keep.txt", "checkpoint.tmp0123456789abcdef", ".model.npz.tmp-4242-7",
                              "ckpt-4.data-00000-of-00001", "ckpt-4.info.json", "ckpt-2.data-00000-of-00003"})
            age(dir + "/" + n, 2 * 86400);
        report = collectGarbage(dir, {.apply = true});
        QVERIFY(report.ok());
        QCOMPARE(report->removed, 6);
        QVERIFY(report->errors.empty());
        const std::vector<std::string> left = entries(dir);
        const std::vector<std::string> expected{"ckpt-2.data-00000-of-00001", "ckpt-2.index", "ckpt-9_temp", "notours_temp",
                                                "state.tmp-1-2-deadbeef-3"};
        QCOMPARE(left, expected);
        QVERIFY(QFile::exists(QString::fromStdString(dir + "/notours_temp/keep.txt")));
        QCOMPARE(valueOf(dir + "/ckpt-2"), 2.0f);
    }

    // The parts area a save by N writers leaves when its merge never
    // happened (a rank died): listed as "writers' parts", kept while it
    // is fresh (its writers may still be at work), removed once unchanged
    // for the grace period; one beside a committed checkpoint is removed at
    // once (its writers all finished before the merge). Before, gc did not
    // see these areas at all.
    void writerPartsAreas() {
        const std::string dir = m_tmp.filePath(QStringLiteral("parts")).toStdString();
        QVERIFY(saveValue(dir + "/ckpt-2", 2, 1));
        for (const char* area : {"/.ckpt-2.parts-ckpt-2-job1", "/.ckpt-3.parts-ckpt-3-job1"}) {
            QVERIFY(QDir().mkpath(QString::fromStdString(dir + area)));
            QVERIFY(writeAll(QString::fromStdString(dir + area + "/plan"), "world 2\n"));
        }
        auto report = collectGarbage(dir);
        QVERIFY(report.ok());
        QCOMPARE(report->items.size(), size_t(2));
        for (const GarbageItem& g : report->items) {
            QCOMPARE(garbageKindName(g.kind), std::string_view("writers' parts"));
            QCOMPARE(g.removable, g.target == "ckpt-2");
        }
        report = collectGarbage(dir, {.apply = true});
        QVERIFY(report.ok());
        QCOMPARE(report->removed, 1);
        QCOMPARE(entries(dir),
                 (std::vector<std::string>{".ckpt-3.parts-ckpt-3-job1", "ckpt-2.data-00000-of-00001", "ckpt-2.index"}));
        age(dir + "/.ckpt-3.parts-ckpt-3-job1", 2 * 86400);
        age(dir + "/.ckpt-3.parts-ckpt-3-job1/plan", 2 * 86400);
        report = collectGarbage(dir, {.apply = true});
        QVERIFY(report.ok());
        QCOMPARE(report->removed, 1);
        QCOMPARE(entries(dir), (std::vector<std::string>{"ckpt-2.data-00000-of-00001", "ckpt-2.index"}));
    }
};

QTEST_GUILESS_MAIN(TstGarbageCollection)
#include "tst_garbage_collection.moc"
