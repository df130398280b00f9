// SIGKILL at random moments of every operation that writes checkpoints:
// saves (sync, eager async, deferred async), reshards, retention applied
// by a manager, a scheduler archiving a directory; and of a catalog scan
// recording them. Each row of
// scenarios() is one operation: what to set up, what a child process does
// over and over until it is killed, and which directories and stores to
// check after each kill (numbered_checkpoints.h: every committed
// checkpoint verifies and restores, the state file names only complete
// checkpoints; a schedule store opens, is intact and has no run left
// `running`; a catalog is intact and records every checkpoint whole).
// Checkpoint surgery (average, merge, edit), import (arrays streamed from an npz into the
// save pipeline) and restore --out replace their
// result over and over: the sources stay intact, and the destination is
// always a complete checkpoint holding the old or the new values (never a
// mix), or absent only while a verified replacement waits to be swapped in
// (issue #29). A garbage collector killed while it finishes such swaps is
// one more row. After every kill, what was left is tallied, `ckpt gc`
// (collectGarbage, as if a day had passed) is applied, and the same checks
// must hold again with nothing removable left. A new operation is one more
// row.

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/catalog.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/garbage_collection.h"
#include "ckpt/convert.h"
#include "ckpt/model_spec.h"
#include "ckpt/npy.h"
#include "ckpt/reshard.h"
#include "ckpt/restore.h"
#include "ckpt/restored_write.h"
#include "ckpt/retention.h"
#include "ckpt/verify.h"
#include "ckpt/save.h"
#include "ckpt/schedule_store.h"
#include "ckpt/scheduler.h"
#include "ckpt/surgery.h"
#include "numbered_checkpoints.h"
#include "pipeline/staged_checkpoint.h"
#include "test_support.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <csignal>
#include <fstream>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ckpt;
using namespace ckpt::testing;

namespace {

constexpr int kVariables = 2;
constexpr int64_t kElements = 16 * 1024;  // 64 KiB per variable: a save takes a few milliseconds

struct Paths {
    std::string root;
    std::string dir() const { return root + "/run"; }
    std::string archive() const { return root + "/archive"; }
    std::string resharded() const { return root + "/resharded"; }
    std::string store() const { return root + "/schedules.db"; }
    std::string catalog() const { return root + "/catalog.db"; }
};

int64_t latestNumber(const std::string& dir) {
    auto latest = latestCheckpoint(dir);
    return latest.ok() && *latest ? checkpointNumber(**latest) : 0;
}

// Saves ckpt-(latest+1), ckpt-(latest+2), ... with 'options' until killed.
[[noreturn]] void saveForever(const std::string& dir, CheckpointManagerOptions options) {
    NumberedProgram p(kVariables, kElements);
    int64_t n = latestNumber(dir);
    p.setSaveCounter(n);
    auto m = CheckpointManager::create(p.root, dir, std::move(options));
    if (!m.ok()) ::_exit(3);
    for (;;) {
        p.fill(static_cast<float>(++n));
        if (!(*m)->save().ok()) ::_exit(4);
    }
}

CheckpointManagerOptions keepThree() {
    CheckpointManagerOptions o;
    o.maxToKeep = 3;
    return o;
}

// Retention instead of max_to_keep. Built here and passed as a temporary:
// gcc 12 at -O2 reports a false maybe-uninitialized on a copied local.
CheckpointManagerOptions keepLatestTwo() {
    CheckpointManagerOptions o;
    o.maxToKeep.reset();
    o.retention.emplace().keepLatest = 2;
    return o;
}

QString directoryProblem(const std::string& dir) {
    if (!QFileInfo::exists(QString::fromStdString(dir))) return {};
    return QString::fromStdString(checkDirectory(dir, kVariables, kElements));
}

// The store opens (the dead scheduler's lock is gone), SQLite finds it
// intact, and no run is left `running`.
QString storeIntegrity(const std::string& path) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return QStringLiteral("cannot open ") + QString::fromStdString(path);
    }
    std::string integrity;
    sqlite3_exec(
        db, "PRAGMA integrity_check",
        [](void* out, int, char** values, char**) {
            *static_cast<std::string*>(out) += values[0] ? values[0] : "";
            return 0;
        },
        &integrity, nullptr);
    sqlite3_close(db);
    if (integrity != "ok") return QStringLiteral("integrity_check: ") + QString::fromStdString(integrity);
    return {};
}

QString storeProblem(const std::string& path) {
    if (QString e = storeIntegrity(path); !e.isEmpty()) return e;
    auto scheduler = Scheduler::open(path);
    if (!scheduler.ok()) return QString::fromStdString(scheduler.status().toString());
    auto running = (*scheduler)->store().runningRuns();
    if (!running.ok()) return QString::fromStdString(running.status().toString());
    if (!running->empty()) return QStringLiteral("a run is still running after the scheduler died");
    auto runs = (*scheduler)->store().runs(std::nullopt);
    if (!runs.ok()) return QString::fromStdString(runs.status().toString());
    return {};
}

// The catalog opens, SQLite finds it intact, and every checkpoint it
// records has all its tensor rows (a scan commits whole directories).
QString catalogProblem(const std::string& path) {
    // Killed before Catalog::open created the file (an early kill on a
    // loaded machine): nothing was written, so nothing can be damaged.
    if (!QFileInfo::exists(QString::fromStdString(path))) return {};
    if (QString e = storeIntegrity(path); !e.isEmpty()) return e;
    auto catalog = Catalog::open(path);
    if (!catalog.ok()) return QString::fromStdString(catalog.status().toString());
    const auto checkpoints = (*catalog)->checkpoints();
    if (!checkpoints.ok()) return QString::fromStdString(checkpoints.status().toString());
    for (const CatalogCheckpoint& c : *checkpoints) {
        auto rows = (*catalog)->tensors(c.id);
        if (!rows.ok() || static_cast<int64_t>(rows->size()) != c.tensors)
            return QString::fromStdString(c.prefix + ": its tensor rows are incomplete");
    }
    return {};
}

// Surgery over and over onto one destination (replacing the previous
// result): its directory only ever holds a complete, correct checkpoint.
[[noreturn]] void surgeryForever(const std::function<Status()>& once) {
    for (;;)
        if (!once().isOk()) ::_exit(4);
}

SurgeryOptions replacing() {
    SurgeryOptions o;
    o.overwrite = true;
    return o;
}

// 'result' (in a directory of its own) is absent or complete, holds its
// number and restores; nothing else in its directory has an index.
QString resultProblem(const std::string& result) {
    const std::string dir = result.substr(0, result.rfind('/'));
    if (!QFileInfo::exists(QString::fromStdString(dir))) return {};
    if (std::string e = checkDirectory(dir, kVariables, kElements); !e.empty()) return QString::fromStdString(e);
    if (!QFileInfo::exists(QString::fromStdString(indexFileName(result)))) return {};
    return QString::fromStdString(checkNumbered(result, kVariables, kElements));
}

// A destination replaced over and over ('dir'/'name', alone in 'dir'): a
// complete checkpoint whose variables all hold one of 'values' (old or
// new, never a mix), or no index while a verified replacement waits.
QString replacedProblem(const std::string& dir, const std::string& name, const std::vector<float>& values) {
    if (!QFileInfo::exists(QString::fromStdString(dir))) return {};
    const std::string prefix = dir + "/" + name;
    if (!QFileInfo::exists(QString::fromStdString(indexFileName(prefix)))) {
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(dir, ec))
            if (e.path().filename().string().starts_with(".") && pipeline::stagingCommitted(e.path().string())) return {};
        // Nothing was ever written yet, or nothing is left: only before the first swap.
        return QFileInfo::exists(QString::fromStdString(dir + "/.ever"))
                   ? QStringLiteral("%1 is gone and nothing can finish it").arg(QString::fromStdString(prefix))
                   : QString();
    }
    // Every checksum right and every value the same one: no mix of two writes.
    auto report = verifyBundle(prefix);
    if (!report.ok()) return QString::fromStdString(report.status().toString());
    if (!report->ok()) return QString::fromStdString(report->problems.front().message);
    auto reader = BundleReader::open(prefix);
    if (!reader.ok()) return QString::fromStdString(reader.status().toString());
    std::optional<float> held;
    for (int i = 0; i < kVariables; ++i) {
        auto t = (*reader)->read("v" + std::to_string(i) + "/.ATTRIBUTES/VARIABLE_VALUE");
        if (!t.ok()) return QString::fromStdString(t.status().toString());
        for (float f : t->as<float>()) {
            if (!held) held = f;
            if (f != *held) return QStringLiteral("%1 mixes %2 and %3").arg(QString::fromStdString(prefix)).arg(*held).arg(f);
        }
    }
    if (!held || std::find(values.begin(), values.end(), *held) == values.end())
        return QStringLiteral("%1 holds %2").arg(QString::fromStdString(prefix)).arg(held.value_or(-1));
    return {};
}

// Values k everywhere from the run's ckpt-k, restored into a fresh program
// and written over one destination with --overwrite.
Status restoreOut(const Paths& p, int k) {
    const std::string source = p.dir() + "/ckpt-" + std::to_string(k);
    NumberedProgram prog(kVariables, kElements);
    (void)saveCounter(*prog.root);
    auto status = restoreCheckpoint(source, prog.root);
    if (!status.ok()) return status.status();
    RestoredWriteOptions o;
    o.overwrite = true;
    o.sources = {source};
    o.requiredAssertion = Assertion::Consumed;
    const RestoredWrite w = writeRestoredVerified(*status, p.root + "/restored/ckpt-7", o);
    return w.ok() ? okStatus() : (w.error.isOk() ? w.restoreFailure : w.error);
}

QString surgeryProblem(const Paths& p, const std::string& result) {
    if (QString e = directoryProblem(p.dir()); !e.isEmpty()) return QStringLiteral("a source: ") + e;
    return resultProblem(result);
}

struct Scenario {
    const char* name;
    int kills;
    int maxDelayUs;                              // each kill lands 0..this after the fork
    std::function<bool(const Paths&)> prepare;   // in the parent, once
    std::function<void(const Paths&)> child;     // never returns; _exit(non-zero) on an error
    std::function<QString(const Paths&)> check;  // after each kill
    // How far the operation got (the newest committed number), to show the kills landed mid-work.
    std::function<int64_t(const Paths&)> progress = [](const Paths& p) { return latestNumber(p.dir()); };
};

std::vector<Scenario> scenarios() {
    const auto checkRun = [](const Paths& p) { return directoryProblem(p.dir()); };
    const auto nothing = [](const Paths&) { return true; };
    std::vector<Scenario> out;
    out.push_back({"save sync", 40, 30000, nothing, [](const Paths& p) { saveForever(p.dir(), keepThree()); }, checkRun});
    out.push_back({"save eager async", 40, 30000, nothing,
                   [](const Paths& p) {
                       CheckpointManagerOptions o = keepThree();
                       o.async = true;
                       saveForever(p.dir(), o);
                   },
                   checkRun});
    out.push_back({"save deferred async", 40, 30000, nothing,
                   [](const Paths& p) {
                       CheckpointManagerOptions o = keepThree();
                       o.async = true;
                       o.asyncSnapshot = CheckpointManagerOptions::Snapshot::Deferred;
                       saveForever(p.dir(), o);
                   },
                   checkRun});
    out.push_back({"retention apply (manager keep_latest 2)", 40, 30000, nothing,
                   [](const Paths& p) { saveForever(p.dir(), keepLatestTwo()); }, checkRun});
    // The same destination over and over with 1, 2 and 3 shards: each
    // reshard replaces the previous one's files.
    out.push_back({"reshard", 40, 30000,
                   [](const Paths& p) {
                       NumberedProgram prog(4, kElements / 2);
                       prog.fill(1);
                       (void)saveCounter(*prog.root);  // as a manager's save has it
                       return writeCheckpoint(*prog.root, p.dir() + "/ckpt-1", SaveOptions{}).ok();
                   },
                   [](const Paths& p) {
                       for (int i = 0;; ++i) {
                           ReshardOptions o;
                           o.save.policy = std::make_shared<FixedShardCountPolicy>(1 + i % 3);
                           o.overwrite = true;
                           if (!reshardCheckpoint(p.dir() + "/ckpt-1", p.resharded() + "/ckpt-1", o).ok()) ::_exit(4);
                       }
                   },
                   [](const Paths& p) -> QString {
                       for (const std::string& prefix : {p.dir() + "/ckpt-1", p.resharded() + "/ckpt-1"}) {
                           if (!QFileInfo::exists(QString::fromStdString(indexFileName(prefix)))) continue;
                           if (std::string e = checkNumbered(prefix, 4, kElements / 2); !e.empty())
                               return QString::fromStdString(e);
                       }
                       return {};
                   },
                   [](const Paths& p) -> int64_t {
                       auto reader = BundleReader::open(p.resharded() + "/ckpt-1");
                       return reader.ok() ? (*reader)->header().numShards : 0;
                   }});
    // A scheduler archiving the run's newest checkpoint (keep_latest 2)
    // while the same child saves the next one into the run.
    out.push_back({"scheduled directory archive", 40, 60000,
                   [](const Paths& p) {
                       Schedule s;
                       s.name = "archive";
                       s.source = ScheduleSource::Directory;
                       s.sourcePath = p.dir();
                       s.destination = p.archive();
                       s.triggers.everySeconds = 60;
                       s.retention.keepLatest = 2;
                       auto store = ScheduleStore::open(p.store());
                       return ::mkdir(p.dir().c_str(), 0755) == 0 && store.ok() && (*store)->addSchedule(s).ok();
                   },
                   [](const Paths& p) {
                       NumberedProgram prog(kVariables, kElements);
                       int64_t n = latestNumber(p.dir());
                       prog.setSaveCounter(n);
                       auto m = CheckpointManager::create(prog.root, p.dir(), keepThree());
                       auto scheduler = Scheduler::open(p.store());
                       if (!m.ok() || !scheduler.ok()) ::_exit(3);
                       for (;;) {
                           prog.fill(static_cast<float>(++n));
                           if (!(*m)->save().ok()) ::_exit(4);
                           auto run = (*scheduler)->runNow("archive");
                           if (!run.ok() || run->result == RunResult::Failed) ::_exit(5);
                       }
                   },
                   [](const Paths& p) -> QString {
                       for (const std::string& dir : {p.dir(), p.archive()})
                           if (QString e = directoryProblem(dir); !e.isEmpty()) return e;
                       return storeProblem(p.store());
                   },
                   [](const Paths& p) { return latestNumber(p.archive()); }});
    // A catalog rewriting everything it knows of the run, over and over:
    // forget the root, add it, scan (every other time verifying).
    out.push_back({"catalog scan", 40, 30000,
                   [](const Paths& p) {
                       NumberedProgram prog(kVariables, kElements);
                       auto m = CheckpointManager::create(prog.root, p.dir(), keepThree());
                       for (int n = 1; m.ok() && n <= 3; ++n) {
                           prog.fill(static_cast<float>(n));
                           if (!(*m)->save().ok()) return false;
                       }
                       return m.ok();
                   },
                   [](const Paths& p) {
                       auto catalog = Catalog::open(p.catalog());
                       if (!catalog.ok()) ::_exit(3);
                       for (int i = 0;; ++i) {
                           (void)(*catalog)->forgetRoot(p.dir());
                           CatalogScanOptions o;
                           o.verify = i % 2 == 1;
                           if (!(*catalog)->addRoot(p.dir()).ok() || !(*catalog)->scan(o).ok()) ::_exit(4);
                       }
                   },
                   [](const Paths& p) { return catalogProblem(p.catalog()); },
                   [](const Paths& p) -> int64_t {
                       auto catalog = Catalog::open(p.catalog());
                       return catalog.ok() ? static_cast<int64_t>((*catalog)->checkpoints()->size()) : -1;
                   }});
    // The run's ckpt-1..3 (values 1, 2, 3) averaged: 2 everywhere, the
    // result named ckpt-2 so that checkNumbered expects 2.
    const auto threeSaves = [](const Paths& p) {
        NumberedProgram prog(kVariables, kElements);
        auto m = CheckpointManager::create(prog.root, p.dir(), keepThree());
        for (int n = 1; m.ok() && n <= 3; ++n) {
            prog.fill(static_cast<float>(n));
            if (!(*m)->save().ok()) return false;
        }
        return m.ok();
    };
    out.push_back({"surgery average", 40, 30000, threeSaves,
                   [](const Paths& p) {
                       const std::vector<std::string> sources = {p.dir() + "/ckpt-1", p.dir() + "/ckpt-2", p.dir() + "/ckpt-3"};
                       surgeryForever([&] {
                           return averageCheckpoints(sources, p.root + "/averaged/ckpt-2", AverageSpec{}, replacing()).status();
                       });
                   },
                   [](const Paths& p) { return surgeryProblem(p, p.root + "/averaged/ckpt-2"); },
                   [](const Paths& p) -> int64_t {
                       return QFileInfo::exists(QString::fromStdString(p.root + "/averaged/ckpt-2.index")) ? 2 : 0;
                   }});
    // ckpt-3 with its save_counter replaced (--set from a .npy): v0 and v1 still hold 3.
    out.push_back({"surgery edit", 40, 30000,
                   [threeSaves](const Paths& p) {
                       const int64_t counter = 41;
                       std::string npy = npyPreamble(npyDescr(DataType::Int64), TensorShape{});
                       npy.append(reinterpret_cast<const char*>(&counter), sizeof counter);
                       std::ofstream(p.root + "/counter.npy", std::ios::binary) << npy;
                       return threeSaves(p);
                   },
                   [](const Paths& p) {
                       surgeryForever([&]() -> Status {
                           auto source = Checkpoint::open(p.dir() + "/ckpt-3");
                           if (!source.ok()) return source.status();
                           EditSpec spec;
                           spec.sets = {{"save_counter", p.root + "/counter.npy"}};
                           auto plan = planEdit(**source, spec);
                           if (!plan.ok()) return plan.status();
                           return applyEdit(*plan, p.root + "/edited/ckpt-3", replacing()).status();
                       });
                   },
                   [](const Paths& p) { return surgeryProblem(p, p.root + "/edited/ckpt-3"); },
                   [](const Paths& p) -> int64_t {
                       return QFileInfo::exists(QString::fromStdString(p.root + "/edited/ckpt-3.index")) ? 3 : 0;
                   }});
    // v0 and v1 (2 everywhere) from two bundles with their own graphs, the
    // first with the save_counter a restore into the numbered program expects.
    out.push_back({"surgery merge", 40, 30000,
                   [](const Paths& p) {
                       for (int i = 0; i < kVariables; ++i) {
                           auto root = Trackable::makeObject();
                           auto v = Variable::make(DataType::Float, TensorShape{{kElements}});
                           auto* f = reinterpret_cast<float*>(v->mutableValue().bytes.data());
                           std::fill(f, f + kElements, 2.0f);
                           if (!root->addChild("v" + std::to_string(i), v).isOk()) return false;
                           if (i == 0 && !saveCounter(*root).ok()) return false;
                           if (!writeCheckpoint(*root, p.dir() + "/part-" + std::to_string(i), SaveOptions{}).ok()) return false;
                       }
                       return true;
                   },
                   [](const Paths& p) {
                       const std::vector<std::string> sources = {p.dir() + "/part-0", p.dir() + "/part-1"};
                       surgeryForever([&] { return mergeCheckpoints(sources, p.root + "/merged/ckpt-2", replacing()).status(); });
                   },
                   [](const Paths& p) -> QString {
                       for (int i = 0; i < kVariables; ++i) {
                           auto reader = BundleReader::open(p.dir() + "/part-" + std::to_string(i));
                           if (!reader.ok()) return QString::fromStdString(reader.status().toString());
                       }
                       return resultProblem(p.root + "/merged/ckpt-2");
                   },
                   [](const Paths& p) -> int64_t {
                       return QFileInfo::exists(QString::fromStdString(p.root + "/merged/ckpt-2.index")) ? 2 : 0;
                   }});
    // restore --out replacing its output over and over with ckpt-1, -2, -3's values.
    out.push_back({"restore --out --overwrite", 40, 30000, threeSaves,
                   [](const Paths& p) {
                       for (int i = 0;; ++i) {
                           if (!restoreOut(p, 1 + i % 3).isOk()) ::_exit(4);
                           if (i == 0) std::ofstream(p.root + "/restored/.ever");
                       }
                   },
                   [](const Paths& p) -> QString {
                       if (QString e = directoryProblem(p.dir()); !e.isEmpty()) return QStringLiteral("a source: ") + e;
                       return replacedProblem(p.root + "/restored", "ckpt-7", {1, 2, 3});
                   },
                   [](const Paths& p) -> int64_t {
                       return QFileInfo::exists(QString::fromStdString(p.root + "/restored/ckpt-7.index")) ? 7 : 0;
                   }});
    // A collector finishing or undoing replacements that were themselves
    // killed: each round a grandchild replaces out/ckpt-7 and is killed at a
    // random moment, then the child collects. Kills land in either.
    out.push_back({"gc finishing killed replacements", 40, 60000,
                   [threeSaves](const Paths& p) {
                       if (!threeSaves(p)) return false;
                       SurgeryOptions o;
                       if (!saveCheckpointAs(p.dir() + "/ckpt-1", p.root + "/out/ckpt-7", o).ok()) return false;
                       std::ofstream(p.root + "/out/.ever");
                       return true;
                   },
                   [](const Paths& p) {
                       ::setpgid(0, 0);  // the parent's kill reaches a grandchild too
                       std::mt19937 rng(static_cast<unsigned>(::getpid()));
                       for (int i = 0;; ++i) {
                           const pid_t pid = ::fork();
                           if (pid == 0) {
                               SurgeryOptions o;
                               o.overwrite = true;
                               o.save.policy = std::make_shared<FixedShardCountPolicy>(1 + i % 2);
                               const std::string source = p.dir() + "/ckpt-" + std::to_string(1 + i % 3);
                               (void)saveCheckpointAs(source, p.root + "/out/ckpt-7", o);
                               ::_exit(0);
                           }
                           ::usleep(std::uniform_int_distribution<useconds_t>(0, 4000)(rng));
                           ::kill(pid, SIGKILL);
                           ::waitpid(pid, nullptr, 0);
                           auto report = collectGarbage(p.root + "/out", {.apply = true});
                           if (!report.ok() || !report->errors.empty()) ::_exit(4);
                       }
                   },
                   [](const Paths& p) -> QString {
                       if (QString e = directoryProblem(p.dir()); !e.isEmpty()) return QStringLiteral("a source: ") + e;
                       return replacedProblem(p.root + "/out", "ckpt-7", {1, 2, 3});
                   },
                   [](const Paths& p) -> int64_t {
                       return QFileInfo::exists(QString::fromStdString(p.root + "/out/ckpt-7.index")) ? 7 : 0;
                   }});
    // ckpt-2's arrays exported to an npz, imported over and over (streamed
    // member by member into the pipeline, then compared back).
    out.push_back(
        {"import streaming", 40, 30000,
         [](const Paths& p) {
             NumberedProgram prog(kVariables, kElements);
             prog.setSaveCounter(1);
             prog.fill(2.0f);
             auto m = CheckpointManager::create(prog.root, p.dir(), keepThree());
             if (!m.ok() || !(*m)->save().ok()) return false;
             ExportOptions o;
             o.format = ArrayFormat::Npz;
             if (!exportCheckpoint(p.dir() + "/ckpt-2", p.root + "/in.npz", o).ok()) return false;
             std::ofstream(p.root + "/spec.json") << modelSpecJson(*prog.root);
             return true;
         },
         [](const Paths& p) {
             ImportOptions o;
             o.overwrite = true;
             surgeryForever([&] {
                 return importArrays(p.root + "/in.npz", p.root + "/imported/ckpt-2", p.root + "/spec.json", o).status();
             });
         },
         [](const Paths& p) { return surgeryProblem(p, p.root + "/imported/ckpt-2"); },
         [](const Paths& p) -> int64_t {
             return QFileInfo::exists(QString::fromStdString(p.root + "/imported/ckpt-2.index")) ? 2 : 0;
         }});
    return out;
}

// What the kill left in 'root' and the directories directly in it, by
// kind, as `ckpt gc` lists it a day later (every writer is dead by then).
std::map<std::string, int> leftovers(const std::string& root, bool apply, QString* errors) {
    std::map<std::string, int> kinds;
    std::vector<std::string> dirs{root};
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(root, ec))
        if (e.is_directory(ec) && !e.is_symlink(ec)) dirs.push_back(e.path().string());
    for (const std::string& dir : dirs) {
        GarbageOptions o;
        o.apply = apply;
        o.graceSeconds = 0;
        auto report = collectGarbage(dir, o);
        if (!report.ok()) {
            if (errors) *errors += QString::fromStdString(report.status().toString());
            continue;
        }
        for (const std::string& e : report->errors)
            if (errors) *errors += QString::fromStdString(e) + QLatin1Char(' ');
        for (const GarbageItem& g : report->items) ++kinds[std::string(garbageKindName(g.kind)) + (g.removable ? "" : " (kept)")];
    }
    return kinds;
}

}  // namespace

class TstCrashKills : public QObject {
    Q_OBJECT
private slots:
    void killed_data() {
        QTest::addColumn<int>("row");
        const auto rows = scenarios();
        for (size_t i = 0; i < rows.size(); ++i) QTest::newRow(rows[i].name) << static_cast<int>(i);
    }

    void killed() {
        QFETCH(int, row);
        const Scenario scenario = scenarios()[static_cast<size_t>(row)];
        const QString scratch = QFileInfo(QStringLiteral("/dev/shm")).isWritable()
                                    ? QStringLiteral("/dev/shm/ckpt-kills-XXXXXX")
                                    : QDir::tempPath() + QStringLiteral("/ckpt-kills-XXXXXX");
        QTemporaryDir tmp(scratch);
        QVERIFY(tmp.isValid());
        const Paths paths{tmp.path().toStdString()};
        QVERIFY(scenario.prepare(paths));
        const unsigned seed = std::random_device{}();
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> delayUs(0, scenario.maxDelayUs);
        QElapsedTimer timer;
        timer.start();
        int kills = 0, exitedEarly = 0, leftBehind = 0;
        std::map<std::string, int> tally;
        for (; kills < scenario.kills; ++kills) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                scenario.child(paths);
                ::_exit(2);
            }
            ::usleep(static_cast<useconds_t>(delayUs(rng)));
            ::kill(-pid, SIGKILL);  // a child that made its own group (and its children)
            ::kill(pid, SIGKILL);
            int status = 0;
            ::waitpid(pid, &status, 0);
            if (!WIFSIGNALED(status)) {
                ++exitedEarly;
                QVERIFY2(false, qPrintable(QStringLiteral("seed %1, kill %2: the child exited with %3 before it was killed")
                                               .arg(seed)
                                               .arg(kills)
                                               .arg(WIFEXITED(status) ? WEXITSTATUS(status) : -1)));
            }
            const QString problem = scenario.check(paths);
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("seed %1, kill %2: %3").arg(seed).arg(kills).arg(problem)));
            // What the kill left, then `ckpt gc --apply`: the same checks hold, nothing removable stays.
            const std::map<std::string, int> left = leftovers(paths.root, false, nullptr);
            leftBehind += left.empty() ? 0 : 1;
            for (const auto& [kind, n] : left) tally[kind] += n;
            // A killed grandchild may take a moment to die: gc again until it has.
            QString gcErrors;
            for (int tries = 0; tries < 40 && !leftovers(paths.root, true, &gcErrors).empty(); ++tries) ::usleep(50000);
            QVERIFY2(gcErrors.isEmpty(),
                     qPrintable(QStringLiteral("seed %1, kill %2: gc: %3").arg(seed).arg(kills).arg(gcErrors)));
            const QString after = scenario.check(paths);
            QVERIFY2(after.isEmpty(),
                     qPrintable(QStringLiteral("seed %1, kill %2, after gc: %3").arg(seed).arg(kills).arg(after)));
            // Every writer is dead (killed, perhaps not yet reaped): nothing may stay.
            for (const auto& [kind, n] : leftovers(paths.root, false, nullptr))
                QVERIFY2(false, qPrintable(QStringLiteral("seed %1, kill %2: gc left %3 %4")
                                               .arg(seed)
                                               .arg(kills)
                                               .arg(n)
                                               .arg(QString::fromStdString(kind))));
        }
        std::string left;
        for (const auto& [kind, n] : tally) left += (left.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
        qInfo("%s: %d kills survived in %lld ms, reached %lld (seed %u); %d left something: %s", scenario.name, kills,
              static_cast<long long>(timer.elapsed()), static_cast<long long>(scenario.progress(paths)), seed, leftBehind,
              left.empty() ? "nothing" : left.c_str());
        QCOMPARE(exitedEarly, 0);
    }
};

QTEST_GUILESS_MAIN(TstCrashKills)
#include "tst_crash_kills.moc"
