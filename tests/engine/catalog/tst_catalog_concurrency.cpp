// Several processes on one catalog file, as a user has them: the explorer
// and `ckpt catalog scan` scanning the same roots while the scheduler
// service records runs in the same file. Children are forked (no exec) and
// open their own connections after the fork. Then SIGKILL at random
// moments of scans that rewrite everything (forget, add, scan, verify):
// after each kill SQLite finds the file intact and every recorded
// checkpoint whole, and at the end a fresh scan gives exactly the rows a
// clean scan of the same files gives.

#include "ckpt/catalog.h"
#include "ckpt/schedule_store.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <cstdio>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog_support.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;

namespace {

// Directories x checkpoints x tensors: big enough that a scan takes a
// noticeable time, small enough to write in about a second.
bool writeRuns(const std::string& root, int dirs, int checkpoints, int tensors) {
    for (int d = 0; d < dirs; ++d)
        for (int c = 1; c <= checkpoints; ++c) {
            std::vector<std::string> keys;
            for (int t = 0; t < tensors; ++t)
                keys.push_back("run" + std::to_string(d) + "/block_" + std::to_string(t) + "/dense/kernel");
            const std::string prefix = root + "/run" + std::to_string(d) + "/ckpt-" + std::to_string(c);
            if (!writeKeyedCheckpoint(prefix, keys, static_cast<float>(d * 100 + c)).isOk()) return false;
        }
    return true;
}

// In a child: reports why on stderr and returns the exit code.
int fail(int code, const Status& status) {
    std::fprintf(stderr, "child %d: %s\n", static_cast<int>(::getpid()), status.toString().c_str());
    return code;
}

int scanner(const std::string& db, const std::string& root, int scans) {
    auto catalog = Catalog::open(db);
    if (!catalog.ok()) return fail(3, catalog.status());
    if (auto r = (*catalog)->addRoot(root); !r.ok()) return fail(4, r.status());
    for (int i = 0; i < scans; ++i) {
        CatalogScanOptions o;
        o.verify = i == scans - 1;
        if (auto s = (*catalog)->scan(o); !s.ok()) return fail(5, s.status());
        if (auto s = (*catalog)->search("block_1 kernel"); !s.ok()) return fail(6, s.status());
    }
    return 0;
}

int runRecorder(const std::string& db, int runs) {
    auto store = ScheduleStore::open(db);
    if (!store.ok()) return fail(3, store.status());
    auto id = (*store)->schedule("archive");
    if (!id.ok()) return fail(4, id.status());
    for (int i = 0; i < runs; ++i) {
        auto run = (*store)->beginRun(id->id, RunTrigger::Due, 1000.0 + i, ::getpid());
        if (!run.ok()) return fail(5, run.status());
        if (auto p = (*store)->setRunProgress(*run, 1, 2, "copying"); !p.isOk()) return fail(6, p);
        RunOutcome outcome;
        outcome.endedAt = 1000.5 + i;
        outcome.bytes = static_cast<uint64_t>(i);
        if (auto f = (*store)->finishRun(*run, outcome); !f.isOk()) return fail(7, f);
    }
    return 0;
}

// What a catalog holds, as comparable text: every checkpoint's facts that
// do not depend on when it was scanned, and every tensor row.
std::string contents(const std::string& db) {
    auto catalog = Catalog::open(db);
    if (!catalog.ok()) return catalog.status().toString();
    std::string out;
    const std::vector<CatalogCheckpoint> all = (*catalog)->checkpoints().value();
    for (const CatalogCheckpoint& c : all) {
        out += c.prefix + " step " + std::to_string(c.step.value_or(-1)) + " bytes " + std::to_string(c.bytes) + " tensors " +
               std::to_string(c.tensors) + (c.missing ? " missing" : "") + " " + c.error + "\n";
        const std::vector<CatalogTensor> rows = (*catalog)->tensors(c.id).value();
        for (const CatalogTensor& t : rows)
            out += "  " + t.key + " " + t.dtype + " " + t.shape + " " + std::to_string(t.crc32c) + "\n";
    }
    return out;
}

// Waits for 'pid' and returns its exit code, or 100 + the signal.
int reap(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

}  // namespace

class TstCatalogConcurrency : public QObject {
    Q_OBJECT
private slots:
    void concurrentCreation() {
        QTemporaryDir tmp;
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        std::vector<pid_t> children;
        for (int i = 0; i < 6; ++i) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                if (i % 2) {
                    auto store = ScheduleStore::open(db);
                    ::_exit(store.ok() ? 0 : fail(3, store.status()));
                }
                auto catalog = Catalog::open(db);
                ::_exit(catalog.ok() ? 0 : fail(3, catalog.status()));
            }
            children.push_back(pid);
        }
        for (pid_t pid : children) QCOMPARE(reap(pid), 0);
        QCOMPARE(queryInt(db, "PRAGMA user_version"), int64_t{Catalog::kSchemaVersion});
        QCOMPARE(integrityCheck(db), std::string("ok"));
    }

    void twoScannersAndTheScheduler() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        QVERIFY(writeRuns(root, 30, 4, 25));
        {
            auto store = ScheduleStore::open(db);
            QVERIFY2(store.ok(), store.status().toString().c_str());
            Schedule s;
            s.name = "archive";
            s.sourcePath = root;
            s.destination = tmp.filePath(QStringLiteral("archive")).toStdString();
            s.triggers.everySeconds = 60;
            QVERIFY((*store)->addSchedule(s).ok());
        }
        constexpr int kRuns = 300;
        QElapsedTimer timer;
        timer.start();
        std::vector<pid_t> children;
        for (int i = 0; i < 3; ++i) {
            const pid_t pid = ::fork();
            if (pid == 0) ::_exit(i < 2 ? scanner(db, root, 3) : runRecorder(db, kRuns));
            children.push_back(pid);
        }
        for (pid_t pid : children) QCOMPARE(reap(pid), 0);
        qInfo("two scanners and %d runs in %lld ms", kRuns, static_cast<long long>(timer.elapsed()));

        QCOMPARE(integrityCheck(db), std::string("ok"));
        QCOMPARE(queryText(db, "PRAGMA foreign_key_check"), std::string());
        auto store = ScheduleStore::open(db);
        QVERIFY(store.ok());
        auto runs = (*store)->runs(std::nullopt, 1000);
        QCOMPARE(runs->size(), size_t{kRuns});
        for (const ScheduleRun& r : *runs) QCOMPARE(r.result, RunResult::Ok);
        auto catalog = Catalog::open(db);
        QVERIFY(catalog.ok());
        QCOMPARE((*catalog)->roots()->size(), size_t{1});  // both added it: one root
        QCOMPARE((*catalog)->checkpoints()->size(), size_t{120});
        QCOMPARE(catalogMatchesIndex(**catalog), std::string());
        const std::vector<CatalogCheckpoint> all = (*catalog)->checkpoints().value();
        for (const CatalogCheckpoint& c : all) QCOMPARE(c.health(), CatalogHealth::Healthy);
        auto again = (*catalog)->scan({});
        QVERIFY(again.ok());
        QCOMPARE(again->unchanged, int64_t{120});
        QCOMPARE((*catalog)->search("block_1/dense kernel")->totalMatches, int64_t{120});
    }

    void killedScans() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        QVERIFY(writeRuns(root, 20, 4, 20));
        const unsigned seed = std::random_device{}();
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> delayUs(0, 250000);
        constexpr int kKills = 25;
        int64_t recorded = 0;
        QElapsedTimer timer;
        timer.start();
        for (int kill = 0; kill < kKills; ++kill) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                // Everything rewritten, over and over: forget the root, add it, scan (and verify).
                auto catalog = Catalog::open(db);
                if (!catalog.ok()) ::_exit(fail(3, catalog.status()));
                for (int i = 0;; ++i) {
                    (void)(*catalog)->forgetRoot(root);
                    if (!(*catalog)->addRoot(root).ok()) ::_exit(4);
                    CatalogScanOptions o;
                    o.verify = i % 2 == 1;
                    if (auto s = (*catalog)->scan(o); !s.ok()) ::_exit(fail(5, s.status()));
                }
            }
            ::usleep(static_cast<useconds_t>(delayUs(rng)));
            ::kill(pid, SIGKILL);
            QCOMPARE(reap(pid), 100 + SIGKILL);
            const std::string where = "seed " + std::to_string(seed) + ", kill " + std::to_string(kill) + ": ";
            QVERIFY2(integrityCheck(db) == "ok", (where + integrityCheck(db)).c_str());
            auto catalog = Catalog::open(db);
            QVERIFY2(catalog.ok(), (where + catalog.status().toString()).c_str());
            const std::string problem = catalogMatchesIndex(**catalog);
            QVERIFY2(problem.empty(), (where + problem).c_str());
            recorded += static_cast<int64_t>((*catalog)->checkpoints()->size());
        }
        qInfo("%d kills survived in %lld ms, %lld checkpoints recorded at the kills (seed %u)", kKills,
              static_cast<long long>(timer.elapsed()), static_cast<long long>(recorded), seed);

        // A fresh scan after the last kill gives what a clean scan gives.
        {
            auto catalog = Catalog::open(db);
            QVERIFY(catalog.ok() && (*catalog)->addRoot(root).ok());
            QVERIFY((*catalog)->scan({}).ok());
        }
        const std::string clean = tmp.filePath(QStringLiteral("clean.db")).toStdString();
        {
            auto catalog = Catalog::open(clean);
            QVERIFY(catalog.ok() && (*catalog)->addRoot(root).ok());
            QVERIFY((*catalog)->scan({}).ok());
        }
        const std::string afterKills = contents(db);
        QCOMPARE(QString::fromStdString(afterKills), QString::fromStdString(contents(clean)));
        QVERIFY(afterKills.find("ckpt-4") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TstCatalogConcurrency)
#include "tst_catalog_concurrency.moc"
