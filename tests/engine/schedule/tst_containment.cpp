// Containment: the manager's rotation, retention and the scheduler delete
// and write only inside the directory they manage, whatever the directory
// holds: state files naming "../x", absolute paths or names with newlines,
// checkpoint files that are symlinks to files elsewhere, a temp directory
// or a subdirectory that is a symlink to another directory. Each test
// lays such traps next to a directory "outside" whose every file (canaries,
// a real checkpoint, shard-like files) is recorded with its bytes and
// mtime before, and compared after. tst_retention covers the planner's
// verdicts for symlinked and "../" checkpoints; this suite drives the whole
// save / rotate / archive paths through them, and checkpoint surgery
// (average, edit), restore --out and `ckpt gc` whose destination is a
// source in disguise or whose files are links to files elsewhere; and
// catalog scans, which must read and record only what lies inside their
// root however its links point.

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/catalog.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/restore.h"
#include "ckpt/restored_write.h"
#include "ckpt/retention.h"
#include "ckpt/garbage_collection.h"
#include "ckpt/save.h"
#include "ckpt/schedule_store.h"
#include "ckpt/scheduler.h"
#include "ckpt/destination.h"
#include "ckpt/surgery.h"
#include "numbered_checkpoints.h"
#include "pipeline/temp_files.h"
#include "test_support.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

using namespace ckpt;
using namespace ckpt::testing;

namespace {

constexpr int kVariables = 1;
constexpr int64_t kElements = 256;

struct FileStamp {
    std::string bytes;  // a symlink's target for links
    int64_t mtimeNs = 0;
    bool operator==(const FileStamp&) const = default;
};

// Every entry under 'dir' (not following symlinks): bytes and mtime.
std::map<std::string, FileStamp> snapshot(const std::string& dir) {
    std::map<std::string, FileStamp> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        struct stat st {};
        if (::lstat(e.path().c_str(), &st) != 0) continue;
        FileStamp s;
        s.mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
        if (S_ISLNK(st.st_mode)) {
            s.bytes = "-> " + std::filesystem::read_symlink(e.path()).string();
        } else if (S_ISREG(st.st_mode)) {
            std::ifstream in(e.path(), std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            s.bytes = ss.str();
        } else {
            s.bytes = "<dir>";
        }
        out.emplace(e.path().string(), std::move(s));
    }
    return out;
}

bool writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    return static_cast<bool>(out);
}

Status saveNumbered(const std::string& dir, int64_t n, CheckpointManagerOptions o) {
    NumberedProgram p(kVariables, kElements);
    p.setSaveCounter(n - 1);
    p.fill(static_cast<float>(n));
    auto m = CheckpointManager::create(p.root, dir, std::move(o));
    if (!m.ok()) return m.status();
    return (*m)->save().status();
}

CheckpointManagerOptions owned(int keep) {
    CheckpointManagerOptions o;
    o.maxToKeep = keep;
    o.owner = "containment";
    return o;
}

// <tmp>/managed is what the code under test manages; <tmp>/outside holds
// canaries, a real checkpoint and a shard-like temp directory, all stamped
// with an old mtime so that a touch shows.
struct Fixture {
    QTemporaryDir tmp;
    std::string managed = tmp.filePath(QStringLiteral("managed")).toStdString();
    std::string outside = tmp.filePath(QStringLiteral("outside")).toStdString();
    std::map<std::string, FileStamp> before;

    bool setUp() {
        std::filesystem::create_directories(managed);
        std::filesystem::create_directories(outside + "/shards");
        CheckpointManagerOptions o = owned(10);  // the same owner: rotation would delete these if it could reach them
        if (!saveNumbered(outside, 1, o).isOk() || !saveNumbered(outside, 2, o).isOk()) return false;
        if (!writeFile(outside + "/canary.txt", "do not touch\n")) return false;
        if (!writeFile(outside + "/shards/part-00000-of-00001.index", "shard-like\n")) return false;
        if (!writeFile(outside + "/shards/part-00000-of-00001.data-00000-of-00001", "shard-like data\n")) return false;
        for (const auto& e : std::filesystem::recursive_directory_iterator(outside)) {
            const struct utimbuf old { 1000000000, 1000000000 };
            ::utime(e.path().c_str(), &old);
        }
        const struct utimbuf old { 1000000000, 1000000000 };
        ::utime(outside.c_str(), &old);
        before = snapshot(outside);
        return before.size() >= 9;
    }
    // Empty when nothing under outside/ changed.
    QString outsideChanged() const {
        const auto after = snapshot(outside);
        for (const auto& [path, stamp] : before) {
            const auto it = after.find(path);
            if (it == after.end()) return QStringLiteral("deleted: ") + QString::fromStdString(path);
            if (!(it->second == stamp)) return QStringLiteral("changed: ") + QString::fromStdString(path);
        }
        for (const auto& [path, stamp] : after)
            if (!before.count(path)) return QStringLiteral("created: ") + QString::fromStdString(path);
        struct stat st {};
        if (::stat(outside.c_str(), &st) != 0 || st.st_mtim.tv_sec != 1000000000)
            return QStringLiteral("outside/ itself was written");
        return {};
    }
    void writeState(const std::string& latest, const std::vector<std::string>& all) const {
        std::string text = "model_checkpoint_path: \"" + latest + "\"\n";
        for (const std::string& p : all) text += "all_model_checkpoint_paths: \"" + p + "\"\n";
        writeFile(managed + "/checkpoint", text);
    }
};

}  // namespace

class TstContainment : public QObject {
    Q_OBJECT
private slots:
    // The state file lists checkpoints outside by "../", by an absolute
    // path, and a name with a newline; rotation keeping one must reach none.
    void rotationIgnoresPathsLeavingTheDirectory_data() {
        QTest::addColumn<bool>("retention");
        QTest::newRow("max_to_keep") << false;
        QTest::newRow("retention policy") << true;
    }
    void rotationIgnoresPathsLeavingTheDirectory() {
        QFETCH(bool, retention);
        Fixture f;
        QVERIFY(f.setUp());
        QVERIFY(saveNumbered(f.managed, 3, owned(10)).isOk());
        f.writeState("ckpt-3",
                     {"../outside/ckpt-1", f.outside + "/ckpt-2", "ckpt-\\n4", "ckpt-3"});  // text format: a newline in the name
        CheckpointManagerOptions o = owned(1);
        if (retention) {
            o.maxToKeep.reset();
            RetentionPolicy keep;
            keep.keepLatest = 1;
            o.retention = keep;
        }
        for (int64_t n = 4; n <= 6; ++n) {
            const Status s = saveNumbered(f.managed, n, o);
            QVERIFY2(s.isOk(), s.toString().c_str());
        }
        QCOMPARE(f.outsideChanged(), QString());
        QCOMPARE(QString::fromStdString(checkNumbered(f.managed + "/ckpt-6", kVariables, kElements)), QString());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(f.managed + "/ckpt-4.index")));  // rotation did run
    }

    // Checkpoint files that are symlinks to files outside: the index, one
    // data file, and the metadata. Deleting removes at most the link.
    void symlinkedCheckpointFiles() {
        Fixture f;
        QVERIFY(f.setUp());
        const std::string out1 = f.outside + "/ckpt-1", out2 = f.outside + "/ckpt-2";
        // ckpt-1: every file a link to outside/ckpt-1.
        QVERIFY(::symlink(indexFileName(out1).c_str(), indexFileName(f.managed + "/ckpt-1").c_str()) == 0);
        QVERIFY(::symlink(dataFileName(out1, 0, 1).c_str(), dataFileName(f.managed + "/ckpt-1", 0, 1).c_str()) == 0);
        QVERIFY(::symlink(checkpointMetadataFileName(out1).c_str(), checkpointMetadataFileName(f.managed + "/ckpt-1").c_str()) ==
                0);
        // ckpt-2: a real index here, its data file a link to outside/ckpt-2's.
        QVERIFY(std::filesystem::copy_file(indexFileName(out2), indexFileName(f.managed + "/ckpt-2")));
        QVERIFY(std::filesystem::copy_file(checkpointMetadataFileName(out2), checkpointMetadataFileName(f.managed + "/ckpt-2")));
        QVERIFY(::symlink(dataFileName(out2, 0, 1).c_str(), dataFileName(f.managed + "/ckpt-2", 0, 1).c_str()) == 0);
        f.writeState("ckpt-2", {"ckpt-1", "ckpt-2"});
        RetentionPolicy keep;
        keep.keepLatest = 1;
        for (int64_t n = 3; n <= 5; ++n) QVERIFY(saveNumbered(f.managed, n, owned(1)).isOk());
        auto plan = planDirectoryRetention(f.managed, keep, {.now = 2e9, .owner = "containment"});
        QVERIFY2(plan.ok(), plan.status().toString().c_str());
        QVERIFY(applyRetention(*plan).ok());
        QCOMPARE(f.outsideChanged(), QString());
        QCOMPARE(QString::fromStdString(checkNumbered(f.managed + "/ckpt-5", kVariables, kElements)), QString());
    }

    // A save's temp directory and a subdirectory that are symlinks to a
    // directory outside holding shard-like files: the save's clean-up of
    // stale temp directories and of its own must remove the link at most.
    void symlinkedDirectories() {
        Fixture f;
        QVERIFY(f.setUp());
        QVERIFY(::symlink((f.outside + "/shards").c_str(), (f.managed + "/ckpt-1_temp").c_str()) == 0);
        QVERIFY(::symlink((f.outside + "/shards").c_str(), (f.managed + "/old_temp").c_str()) == 0);
        QVERIFY(::symlink(f.outside.c_str(), (f.managed + "/sub").c_str()) == 0);
        f.writeState("sub/ckpt-2", {"sub/ckpt-1", "sub/ckpt-2"});
        for (int64_t n = 1; n <= 3; ++n) {
            const Status s = saveNumbered(f.managed, n, owned(1));
            QVERIFY2(s.isOk(), s.toString().c_str());
        }
        RetentionPolicy keep;
        keep.keepLatest = 1;
        auto plan = planDirectoryRetention(f.managed, keep, {.now = 2e9, .owner = "containment"});
        QVERIFY(plan.ok());
        QVERIFY(applyRetention(*plan).ok());
        QCOMPARE(f.outsideChanged(), QString());
        QCOMPARE(QString::fromStdString(checkDirectory(f.managed, kVariables, kElements)), QString());
    }

    // A scheduler archiving into a destination laid with the same traps.
    void schedulerArchiveStaysInside() {
        Fixture f;
        QVERIFY(f.setUp());
        const std::string source = f.tmp.filePath(QStringLiteral("source")).toStdString();
        const std::string store = f.tmp.filePath(QStringLiteral("schedules.db")).toStdString();
        QVERIFY(::symlink(indexFileName(f.outside + "/ckpt-1").c_str(), indexFileName(f.managed + "/ckpt-0").c_str()) == 0);
        QVERIFY(::symlink((f.outside + "/shards").c_str(), (f.managed + "/ckpt-9_temp").c_str()) == 0);
        f.writeState("../outside/ckpt-2", {"../outside/ckpt-1", f.outside + "/ckpt-2"});
        Schedule s;
        s.name = "archive";
        s.source = ScheduleSource::Directory;
        s.sourcePath = source;
        s.destination = f.managed;
        s.triggers.everySeconds = 60;
        s.retention.keepLatest = 1;
        std::filesystem::create_directories(source);
        {
            auto st = ScheduleStore::open(store);
            QVERIFY(st.ok());
            const auto id = (*st)->addSchedule(s);
            QVERIFY2(id.ok(), id.status().toString().c_str());
        }
        auto scheduler = Scheduler::open(store);
        QVERIFY(scheduler.ok());
        for (int64_t n = 1; n <= 3; ++n) {
            QVERIFY(saveNumbered(source, n, owned(1)).isOk());
            auto run = (*scheduler)->runNow("archive");
            QVERIFY2(run.ok(), run.status().toString().c_str());
            QVERIFY2(run->result == RunResult::Ok, run->error.c_str());
        }
        QCOMPARE(f.outsideChanged(), QString());
        QCOMPARE(QString::fromStdString(checkNumbered(f.managed + "/ckpt-3", kVariables, kElements)), QString());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(f.managed + "/ckpt-1.index")));  // retention did run
    }
    // Surgery reads outside/ckpt-1 and outside/ckpt-2 and writes into
    // managed/. A destination that is a source reached another way (a
    // symlinked directory, "../") is refused even with overwrite; links
    // where the result's temp directory or data file will go are replaced,
    // never followed. Either way nothing under outside/ changes.
    void surgeryWritesOnlyItsDestination_data() {
        QTest::addColumn<QString>("trap");
        QTest::addColumn<bool>("refused");
        QTest::newRow("average onto a source through a symlinked directory") << "link dir" << true;
        QTest::newRow("average onto a source by ../") << "dotdot" << true;
        QTest::newRow("edit onto its source through a symlinked directory") << "edit link dir" << true;
        QTest::newRow("destination inside a source directory through a symlink") << "inside link" << true;
        QTest::newRow("the result's temp directory is a link to outside") << "temp link" << false;
        QTest::newRow("the result's data file is a link to outside") << "data link" << false;
    }
    void surgeryWritesOnlyItsDestination() {
        QFETCH(QString, trap);
        QFETCH(bool, refused);
        Fixture f;
        QVERIFY(f.setUp());
        const std::vector<std::string> sources = {f.outside + "/ckpt-1", f.outside + "/ckpt-2"};
        QVERIFY(::symlink(f.outside.c_str(), (f.managed + "/sub").c_str()) == 0);
        SurgeryOptions o;
        o.overwrite = true;
        std::string dst = f.managed + "/result";
        Status status;
        if (trap == QLatin1String("link dir")) {
            status = averageCheckpoints(sources, f.managed + "/sub/ckpt-2", {}, o).status();
        } else if (trap == QLatin1String("dotdot")) {
            status = averageCheckpoints(sources, f.managed + "/../outside/ckpt-1", {}, o).status();
        } else if (trap == QLatin1String("edit link dir")) {
            auto source = Checkpoint::open(sources[0]);
            QVERIFY(source.ok());
            EditSpec spec;
            spec.deletes = {"save_counter"};
            auto plan = planEdit(**source, spec);
            QVERIFY2(plan.ok(), plan.status().toString().c_str());
            status = applyEdit(*plan, f.managed + "/sub/ckpt-1", o).status();
        } else if (trap == QLatin1String("inside link")) {
            status = checkDestination({.path = f.managed + "/sub/average", .sources = {f.outside}, .overwrite = true}).status();
        } else if (trap == QLatin1String("temp link")) {
            QVERIFY(::symlink((f.outside + "/shards").c_str(), (dst + "_temp").c_str()) == 0);
            status = averageCheckpoints(sources, dst, {}, o).status();
        } else {
            QVERIFY(::symlink((f.outside + "/canary.txt").c_str(), (dst + ".data-00000-of-00001").c_str()) == 0);
            status = averageCheckpoints(sources, dst, {}, o).status();
        }
        QCOMPARE(f.outsideChanged(), QString());
        if (refused) {
            QVERIFY2(!status.isOk(), "a source was accepted as the destination");
            return;
        }
        QVERIFY2(status.isOk(), status.toString().c_str());
        // The mean of ckpt-1 and ckpt-2 holds 1.5 everywhere.
        auto reader = BundleReader::open(dst);
        QVERIFY2(reader.ok(), reader.status().toString().c_str());
        auto v0 = (*reader)->read("v0/.ATTRIBUTES/VARIABLE_VALUE");
        QVERIFY2(v0.ok(), v0.status().toString().c_str());
        QCOMPARE(v0->as<float>()[0], 1.5f);
    }

    // restore --out (issue #29): onto its source reached another way it is
    // refused even with overwrite; replacing a result whose files are links
    // to files outside replaces or removes the links, never their targets;
    // a leftover that is a link is never followed.
    void restoreOutWritesOnlyItsDestination_data() {
        QTest::addColumn<QString>("trap");
        QTest::addColumn<bool>("refused");
        QTest::newRow("onto its source through a symlinked directory") << "link dir" << true;
        QTest::newRow("onto its source by ../") << "dotdot" << true;
        QTest::newRow("replacing a result whose data file is a link to outside") << "data link" << false;
        QTest::newRow("replacing a result whose metadata is a link to outside") << "metadata link" << false;
        QTest::newRow("a dead writer's staging name is a link to outside") << "staging link" << false;
    }
    void restoreOutWritesOnlyItsDestination() {
        QFETCH(QString, trap);
        QFETCH(bool, refused);
        Fixture f;
        QVERIFY(f.setUp());
        QVERIFY(::symlink(f.outside.c_str(), (f.managed + "/sub").c_str()) == 0);
        const std::string source = f.outside + "/ckpt-2";
        std::string dst = f.managed + "/result";
        if (trap == QLatin1String("link dir")) dst = f.managed + "/sub/ckpt-2";
        if (trap == QLatin1String("dotdot")) dst = f.managed + "/../outside/ckpt-2";
        if (trap == QLatin1String("data link") || trap == QLatin1String("metadata link")) {
            // An old result here, with one of its files a link to outside/ckpt-1's.
            QVERIFY(std::filesystem::copy_file(indexFileName(f.outside + "/ckpt-1"), indexFileName(dst)));
            if (trap == QLatin1String("data link")) {
                QVERIFY(::symlink(dataFileName(f.outside + "/ckpt-1", 0, 1).c_str(), dataFileName(dst, 0, 1).c_str()) == 0);
            } else {
                QVERIFY(std::filesystem::copy_file(dataFileName(f.outside + "/ckpt-1", 0, 1), dataFileName(dst, 0, 1)));
                QVERIFY(::symlink(checkpointMetadataFileName(f.outside + "/ckpt-1").c_str(),
                                  checkpointMetadataFileName(dst).c_str()) == 0);
            }
        }
        if (trap == QLatin1String("staging link")) {
            const pid_t dead = ::fork();
            if (dead == 0) ::_exit(0);
            ::waitpid(dead, nullptr, 0);
            const std::string boot = pipeline::ownerToken().substr(pipeline::ownerToken().rfind('-') + 1);
            const std::string name = f.managed + "/.result.staging-" + std::to_string(dead) + "-1-" + boot + "-0";
            QVERIFY(::symlink(f.outside.c_str(), name.c_str()) == 0);
        }
        NumberedProgram p(kVariables, kElements);
        (void)saveCounter(*p.root);
        auto status = restoreCheckpoint(source, p.root);
        QVERIFY2(status.ok(), status.status().toString().c_str());
        RestoredWriteOptions o;
        o.overwrite = true;
        o.sources = {source};
        const RestoredWrite w = writeRestoredVerified(*status, dst, o);
        QCOMPARE(f.outsideChanged(), QString());
        if (refused) {
            QCOMPARE(w.destination.problem, DestinationProblem::IsSource);
            QVERIFY(!w.written());
            return;
        }
        QVERIFY2(w.ok(), w.error.toString().c_str());
        QCOMPARE(w.replaced, trap != QLatin1String("staging link"));
        auto reader = BundleReader::open(dst);
        QVERIFY(reader.ok());
        QCOMPARE((*reader)->read("v0/.ATTRIBUTES/VARIABLE_VALUE")->as<float>()[0], 2.0f);
        // The links themselves went (the metadata of what was replaced, the replaced data file).
        QVERIFY(!std::filesystem::is_symlink(dataFileName(dst, 0, 1)));
        QVERIFY(!std::filesystem::exists(std::filesystem::symlink_status(checkpointMetadataFileName(dst))));
    }

    // `ckpt gc --apply` in a directory laid with links named like what it
    // removes (temp files, shard and staging directories, index-less data
    // files) and a dead writer's staging directory holding a link: it
    // removes the links at most, and never reaches outside.
    void gcStaysInside() {
        Fixture f;
        QVERIFY(f.setUp());
        const pid_t dead = ::fork();
        if (dead == 0) ::_exit(0);
        ::waitpid(dead, nullptr, 0);
        const std::string boot = pipeline::ownerToken().substr(pipeline::ownerToken().rfind('-') + 1);
        const std::string token = std::to_string(dead) + "-1-" + boot;
        const std::string m = f.managed;
        QVERIFY(::symlink((f.outside + "/shards").c_str(), (m + "/ckpt-9_temp").c_str()) == 0);
        QVERIFY(::symlink((f.outside + "/shards").c_str(), (m + "/ckpt-8_temp-" + token + "-0").c_str()) == 0);
        QVERIFY(::symlink(f.outside.c_str(), (m + "/.ckpt-7.staging-" + token + "-1").c_str()) == 0);
        QVERIFY(::symlink((f.outside + "/canary.txt").c_str(), (m + "/checkpoint.tmp-" + token + "-2").c_str()) == 0);
        QVERIFY(::symlink(dataFileName(f.outside + "/ckpt-1", 0, 1).c_str(), dataFileName(m + "/ckpt-6", 0, 1).c_str()) == 0);
        // A dead writer's staging directory holding links to outside: removed
        // (it never verified: no COMMIT), its links unlinked, never followed.
        const std::string staging = m + "/.ckpt-5.staging-" + token + "-3";
        std::filesystem::create_directories(staging + "/ckpt-5_temp-" + token + "-4");
        QVERIFY(::symlink((f.outside + "/canary.txt").c_str(),
                          (staging + "/ckpt-5_temp-" + token + "-4/part-00000-of-00001.index").c_str()) == 0);
        QVERIFY(::symlink(f.outside.c_str(), (staging + "/escape").c_str()) == 0);
        auto report = collectGarbage(m, {.apply = true, .now = 0, .graceSeconds = 0});
        QVERIFY2(report.ok(), report.status().toString().c_str());
        QCOMPARE(report->removed, 1);  // the staging directory (nothing to finish: no COMMIT)
        QCOMPARE(f.outsideChanged(), QString());
        QVERIFY(!std::filesystem::exists(std::filesystem::symlink_status(staging)));
        QVERIFY(std::filesystem::is_symlink(m + "/ckpt-9_temp"));
        QVERIFY(std::filesystem::is_symlink(m + "/checkpoint.tmp-" + token + "-2"));
        QVERIFY(std::filesystem::is_symlink(dataFileName(m + "/ckpt-6", 0, 1)));
    }

    // Issue #29, finding 5: a catalog root holding links that lead out of
    // it (to /, to another run), loops, and checkpoint files that are links
    // to files elsewhere. The scan records only checkpoints inside the
    // root, reports what it left out, and finishes at once; asked to, it
    // follows the links that leave.
    void catalogRootsStayInside_data() {
        QTest::addColumn<QString>("trap");
        QTest::addColumn<int>("recorded");     // checkpoints the catalog holds afterwards
        QTest::addColumn<QString>("skipped");  // a fragment of one skipped line
        QTest::newRow("a symlink to / in the root") << "root link" << 1 << "a symbolic link to /, outside the root";
        QTest::newRow("a symlink to a run outside") << "run link" << 1 << "outside the root (not followed)";
        QTest::newRow("a symlink loop") << "loop" << 2 << "already walked through another path";
        QTest::newRow("checkpoint files that are links to outside") << "file links" << 1 << "outside the root (not read)";
        QTest::newRow("a link inside the root is followed once") << "inner link" << 2 << "already walked";
        // outside/ holds ckpt-1, ckpt-2 and a shard-like index of its own.
        QTest::newRow("links outside followed when asked") << "follow" << 4 << "";
    }
    void catalogRootsStayInside() {
        QFETCH(QString, trap);
        QFETCH(int, recorded);
        QFETCH(QString, skipped);
        Fixture f;
        QVERIFY(f.setUp());
        QVERIFY(saveNumbered(f.managed, 1, owned(10)).isOk());
        CatalogScanOptions options;
        if (trap == QLatin1String("root link")) {
            QVERIFY(::symlink("/", (f.managed + "/escape").c_str()) == 0);
        } else if (trap == QLatin1String("run link") || trap == QLatin1String("follow")) {
            QVERIFY(::symlink(f.outside.c_str(), (f.managed + "/sub").c_str()) == 0);
            options.followOutsideLinks = trap == QLatin1String("follow");
        } else if (trap == QLatin1String("loop")) {
            std::filesystem::create_directories(f.managed + "/a/b");
            QVERIFY(saveNumbered(f.managed + "/a/b", 1, owned(10)).isOk());
            QVERIFY(::symlink(f.managed.c_str(), (f.managed + "/a/b/up").c_str()) == 0);
            QVERIFY(::symlink((f.managed + "/a").c_str(), (f.managed + "/a/b/again").c_str()) == 0);
        } else if (trap == QLatin1String("file links")) {
            const std::string out1 = f.outside + "/ckpt-1", out2 = f.outside + "/ckpt-2";
            QVERIFY(::symlink(indexFileName(out1).c_str(), indexFileName(f.managed + "/ckpt-7").c_str()) == 0);
            QVERIFY(::symlink(dataFileName(out1, 0, 1).c_str(), dataFileName(f.managed + "/ckpt-7", 0, 1).c_str()) == 0);
            QVERIFY(std::filesystem::copy_file(indexFileName(out2), indexFileName(f.managed + "/ckpt-8")));
            QVERIFY(::symlink(dataFileName(out2, 0, 1).c_str(), dataFileName(f.managed + "/ckpt-8", 0, 1).c_str()) == 0);
        } else {
            std::filesystem::create_directories(f.managed + "/real");
            QVERIFY(saveNumbered(f.managed + "/real", 1, owned(10)).isOk());
            QVERIFY(::symlink((f.managed + "/real").c_str(), (f.managed + "/alias").c_str()) == 0);
        }
        auto catalog = Catalog::open(f.tmp.filePath(QStringLiteral("catalog.db")).toStdString());
        QVERIFY2(catalog.ok(), catalog.status().toString().c_str());
        QVERIFY((*catalog)->addRoot(f.managed).ok());
        QElapsedTimer timer;
        timer.start();
        auto summary = (*catalog)->scan(options);
        QVERIFY2(summary.ok(), summary.status().toString().c_str());
        QVERIFY2(timer.elapsed() < 10'000, "the scan walked far beyond its root");
        QCOMPARE(f.outsideChanged(), QString());
        auto rows = (*catalog)->checkpoints();
        QVERIFY(rows.ok());
        QStringList prefixes;
        for (const CatalogCheckpoint& c : *rows) prefixes << QString::fromStdString(c.prefix);
        QVERIFY2(static_cast<int>(rows->size()) == recorded, qPrintable(prefixes.join(QStringLiteral(", "))));
        const std::string inside = std::filesystem::canonical(f.managed).string() + "/";
        for (const CatalogCheckpoint& c : *rows) {
            const std::string real = std::filesystem::weakly_canonical(indexFileName(c.prefix)).string();
            if (!options.followOutsideLinks) QVERIFY2(real.rfind(inside, 0) == 0, real.c_str());
        }
        QStringList lines;
        for (const std::string& line : summary->skipped) lines << QString::fromStdString(line);
        QCOMPARE(summary->skippedCount, static_cast<int64_t>(lines.size()));
        if (skipped.isEmpty()) QVERIFY2(lines.isEmpty(), qPrintable(lines.join(QLatin1Char('\n'))));
        else QVERIFY2(lines.join(QLatin1Char('\n')).contains(skipped), qPrintable(lines.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TstContainment)
#include "tst_containment.moc"
