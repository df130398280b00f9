// The schedule store on real SQLite files: round trips, the schema version,
// files it must refuse and leave byte for byte as they were, and the
// validation messages a user reads while typing a schedule.

#include "ckpt/schedule.h"
#include "ckpt/schedule_store.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <unistd.h>

#include <filesystem>

#include "test_support.h"

using namespace ckpt;
using ckpt::testing::readAll;
using ckpt::testing::writeAll;

Q_DECLARE_METATYPE(StatusCode)

namespace {

Schedule directorySchedule(const std::string& name, const std::string& source, const std::string& destination) {
    Schedule s;
    s.name = name;
    s.source = ScheduleSource::Directory;
    s.sourcePath = source;
    s.destination = destination;
    s.triggers.everySeconds = 3600;
    s.retention.keepLatest = 3;
    return s;
}

// A SQLite file written directly, as another program (or a newer ckpt) would.
void writeSqlite(const QString& path, const char* sql) {
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toLocal8Bit().constData(), &db), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
    QVERIFY2(rc == SQLITE_OK, error ? error : "");
    sqlite3_close(db);
}

int64_t pragma(const QString& path, const char* sql) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.toLocal8Bit().constData(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
    const int64_t value = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

}  // namespace

class TstScheduleStore : public QObject {
    Q_OBJECT
private slots:
    void roundTrip() {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath(QStringLiteral("schedules.db")).toStdString();
        auto store = ScheduleStore::open(path);
        QVERIFY2(store.ok(), store.status().toString().c_str());

        Schedule s = directorySchedule("nightly", "/runs/a", "/archive/a");
        s.sharding.shardCount = 4;
        s.retention.calendar.daily = 7;
        s.retention.keepTags = {"pin"};
        s.async = true;
        s.createdAt = 1795521600.0;
        auto id = (*store)->addSchedule(s);
        QVERIFY2(id.ok(), id.status().toString().c_str());
        Schedule demo;
        demo.name = "demo-1";
        demo.source = ScheduleSource::DemoTrainer;
        demo.destination = "/tmp/demo";
        demo.triggers.everySeconds = 600;
        demo.triggers.everySteps = 50;
        demo.sharding.maxShardBytes = 1 << 20;
        demo.enabled = false;
        demo.demoSteps = 300;
        QVERIFY((*store)->addSchedule(demo).ok());

        auto again = (*store)->addSchedule(s);
        QCOMPARE(again.status().code(), StatusCode::AlreadyExists);
        QVERIFY(again.status().message().find("\"nightly\" already exists") != std::string::npos);

        auto read = (*store)->schedule("nightly");
        QVERIFY2(read.ok(), read.status().toString().c_str());
        QCOMPARE(read->id, *id);
        s.id = *id;
        QCOMPARE(scheduleToJson(*read), scheduleToJson(s));
        auto all = (*store)->schedules();
        QCOMPARE(all->size(), size_t{2});
        QCOMPARE(all->at(0).name, std::string("demo-1"));  // by name
        QCOMPARE(all->at(0).enabled, false);
        QCOMPARE(*all->at(0).sharding.maxShardBytes, int64_t{1 << 20});
        QCOMPARE(*all->at(0).triggers.everySteps, int64_t{50});

        // The JSON form round-trips too (the CLI's --json and the UI's copy).
        auto parsed = parseSchedule(scheduleToJson(s), "test");
        QVERIFY2(parsed.ok(), parsed.status().toString().c_str());
        QCOMPARE(scheduleToJson(*parsed), scheduleToJson(s));

        // Runs: begin, finish, newest first, joined with the schedule's name.
        auto run1 = (*store)->beginRun(*id, RunTrigger::Due, 100.0, 4242);
        QVERIFY(run1.ok());
        RunOutcome outcome;
        outcome.result = RunResult::Ok;
        outcome.endedAt = 103.5;
        outcome.bytes = 12345;
        outcome.checkpoint = "/archive/a/ckpt-3";
        outcome.sourceFingerprint = "100:deadbeef";
        QVERIFY((*store)->finishRun(*run1, outcome).isOk());
        QCOMPARE((*store)->finishRun(*run1, outcome).code(), StatusCode::FailedPrecondition);  // already ended
        auto run2 = (*store)->beginRun(*id, RunTrigger::CatchUp, 200.0, 4243);
        QVERIFY(run2.ok());
        auto runs = (*store)->runs(*id);
        QCOMPARE(runs->size(), size_t{2});
        QCOMPARE(runs->at(0).id, *run2);
        QCOMPARE(runs->at(0).result, RunResult::Running);
        QCOMPARE(runs->at(0).trigger, RunTrigger::CatchUp);
        QVERIFY(!runs->at(0).endedAt);
        QCOMPARE(runs->at(1).scheduleName, std::string("nightly"));
        QCOMPARE(runs->at(1).bytes, uint64_t{12345});
        QCOMPARE(runs->at(1).seconds(), 3.5);
        QCOMPARE(runs->at(1).pid, int64_t{4242});
        QCOMPARE((*store)->runningRuns()->size(), size_t{1});
        auto archived = (*store)->lastRunWithSource(*id, "100:deadbeef");
        QVERIFY(archived.ok() && *archived);
        QCOMPARE((*archived)->checkpoint, std::string("/archive/a/ckpt-3"));

        // A program registering itself twice keeps one row and its id.
        Schedule program;
        program.name = "trainer";
        program.source = ScheduleSource::Program;
        program.sourcePath = "/usr/bin/train";
        program.destination = "/runs/b";
        program.triggers.everySteps = 100;
        auto p1 = (*store)->upsertSchedule(program);
        program.triggers.everySteps = 200;
        auto p2 = (*store)->upsertSchedule(program);
        QVERIFY(p1.ok() && p2.ok());
        QCOMPARE(*p1, *p2);
        QCOMPARE(*(*store)->schedule("trainer")->triggers.everySteps, int64_t{200});

        // Removing a schedule removes its runs (foreign keys are on).
        QVERIFY((*store)->removeSchedule("nightly").isOk());
        QCOMPARE((*store)->removeSchedule("nightly").code(), StatusCode::NotFound);
        QCOMPARE((*store)->runs(std::nullopt)->size(), size_t{0});

        // A second handle (another process would do the same) sees it all.
        auto other = ScheduleStore::open(path);
        QVERIFY(other.ok());
        QCOMPARE((*other)->schedules()->size(), size_t{2});
    }

    void schemaVersion() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("schedules.db"));
        QVERIFY(ScheduleStore::open(path.toStdString()).ok());
        QCOMPARE(pragma(path, "PRAGMA user_version"), int64_t{ScheduleStore::kSchemaVersion});
        QCOMPARE(pragma(path, "SELECT count(*) FROM sqlite_master WHERE name IN ('schedules', 'schedule_runs')"), int64_t{2});
        sqlite3* db = nullptr;
        sqlite3_open(path.toLocal8Bit().constData(), &db);
        sqlite3_stmt* stmt = nullptr;
        sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr);
        QCOMPARE(sqlite3_step(stmt), SQLITE_ROW);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))), QByteArray("wal"));
        sqlite3_finalize(stmt);
        sqlite3_close(db);

        // An empty file (touch) is an empty database: it becomes a store.
        const QString empty = tmp.filePath(QStringLiteral("empty.db"));
        QVERIFY(writeAll(empty, QByteArray()));
        QVERIFY(ScheduleStore::open(empty.toStdString()).ok());
        QCOMPARE(pragma(empty, "PRAGMA user_version"), int64_t{ScheduleStore::kSchemaVersion});
    }

    // A store written by the version 1 build (issue #15): migrated on open,
    // its schedules and runs kept, and the requests and progress usable.
    void migratesVersion1() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("schedules.db"));
        writeSqlite(path, R"sql(
CREATE TABLE schedules (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
  source_kind TEXT NOT NULL CHECK (source_kind IN ('directory', 'demo', 'program')), source_path TEXT NOT NULL,
  destination TEXT NOT NULL, triggers TEXT NOT NULL, retention TEXT NOT NULL, max_shard_bytes INTEGER,
  shard_count INTEGER, async INTEGER NOT NULL, enabled INTEGER NOT NULL, demo_steps INTEGER NOT NULL, created_at REAL NOT NULL);
CREATE TABLE schedule_runs (id INTEGER PRIMARY KEY,
  schedule_id INTEGER NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  trigger TEXT NOT NULL CHECK (trigger IN ('due', 'catch-up', 'run-now')), started_at REAL NOT NULL, ended_at REAL,
  result TEXT NOT NULL CHECK (result IN ('running', 'ok', 'failed', 'interrupted', 'skipped')),
  bytes INTEGER NOT NULL DEFAULT 0, checkpoint TEXT NOT NULL DEFAULT '', error TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT '', pid INTEGER NOT NULL, source_checkpoint TEXT NOT NULL DEFAULT '',
  source_fingerprint TEXT NOT NULL DEFAULT '');
CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule_id, started_at);
CREATE INDEX schedule_runs_by_result ON schedule_runs (result);
INSERT INTO schedules VALUES (1, 'nightly', 'directory', '/runs/a', '/archive/a', '{"every_seconds": 3600}', '{}',
  NULL, NULL, 0, 1, 200, 1795521600.0);
INSERT INTO schedule_runs (id, schedule_id, trigger, started_at, ended_at, result, bytes, checkpoint, pid)
  VALUES (7, 1, 'due', 1795521600.0, 1795521601.5, 'ok', 4096, '/archive/a/ckpt-1', 4242);
PRAGMA user_version = 1;
)sql");
        auto store = ScheduleStore::open(path.toStdString());
        QVERIFY2(store.ok(), store.status().toString().c_str());
        QCOMPARE(pragma(path, "PRAGMA user_version"), int64_t{ScheduleStore::kSchemaVersion});
        QCOMPARE((*store)->schedule("nightly")->triggers.everySeconds.value_or(0), 3600.0);
        auto run = (*store)->run(7);
        QVERIFY2(run.ok(), run.status().toString().c_str());
        QCOMPARE(run->checkpoint, std::string("/archive/a/ckpt-1"));
        QCOMPARE(run->bytes, uint64_t{4096});
        QCOMPARE(run->progressTotal, int64_t{0});
        QVERIFY((*store)->requestRun(1, 1795521700.0, 99).ok());
        QCOMPARE((*store)->requests(std::nullopt, true)->size(), size_t{1});
        // Opening again changes nothing.
        store->reset();
        QVERIFY(ScheduleStore::open(path.toStdString()).ok());
        QCOMPARE(pragma(path, "SELECT count(*) FROM schedule_requests"), int64_t{1});
    }

    void requestsServedOnce() {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath(QStringLiteral("schedules.db")).toStdString();
        auto client = ScheduleStore::open(path);
        auto service = ScheduleStore::open(path);   // another connection, as another process
        auto service2 = ScheduleStore::open(path);  // a second taker must get nothing twice
        QVERIFY(client.ok() && service.ok() && service2.ok());
        const int64_t a = *(*client)->addSchedule(directorySchedule("a", "/runs/a", "/archive/a"));
        const int64_t b = *(*client)->addSchedule(directorySchedule("b", "/runs/b", "/archive/b"));
        const int64_t q1 = *(*client)->requestRun(a, 10.0, 101);
        const int64_t q2 = *(*client)->requestRun(b, 11.0, 102);
        const int64_t q3 = *(*client)->requestRun(a, 12.0, 103);
        QCOMPARE((*client)->requestRun(999, 13.0, 104).status().code(), StatusCode::NotFound);
        QVERIFY(*(*service)->hasPendingRunRequests());
        QCOMPARE((*client)->requests(a, true)->size(), size_t{2});

        auto taken = (*service)->takeRunRequests(20.0, 555);
        QVERIFY2(taken.ok(), taken.status().toString().c_str());
        QCOMPARE(taken->size(), size_t{3});
        QCOMPARE(taken->at(0).id, q1);  // oldest first
        QCOMPARE(taken->at(1).scheduleName, std::string("b"));
        QCOMPARE(taken->at(2).pid, int64_t{103});
        QVERIFY(taken->at(0).takenAt);
        QCOMPARE((*service2)->takeRunRequests(21.0, 556)->size(), size_t{0});
        QVERIFY(!*(*service)->hasPendingRunRequests());
        QVERIFY(!*(*client)->withdrawRequest(q2, 22.0, "too late"));  // taken: not withdrawn
        QVERIFY((*service)->settleRequests({q2}, std::nullopt, "not run in this test").isOk());
        QCOMPARE((*client)->request(q2)->error, std::string("not run in this test"));

        // Taken, not begun: a cancel waits for the run that is about to start.
        auto early = (*client)->requestCancel(a, 23.0, 101);
        QVERIFY2(early.ok(), early.status().toString().c_str());
        QVERIFY(early->requestId && !early->runId);
        const int64_t runA = *(*service)->beginRun(a, RunTrigger::RunNow, 24.0, 555);
        QVERIFY((*service)->settleRequests({q1, q3}, runA, "").isOk());
        QCOMPARE(*(*client)->request(q3)->runId, runA);
        auto cancel = (*service)->takeCancelRequest(a, runA, 25.0, 555);
        QVERIFY(cancel.ok() && *cancel);
        QCOMPARE((*cancel)->id, *early->requestId);
        QCOMPARE(*(*cancel)->runId, runA);
        QVERIFY(!*(*service)->takeCancelRequest(a, runA, 26.0, 555));  // once

        // A running run: the cancel names it; progress is seen by the client.
        auto sent = (*client)->requestCancel(a, 27.0, 101);
        QVERIFY(sent.ok());
        QCOMPARE(*sent->runId, runA);
        QVERIFY((*service)->setRunProgress(runA, 42, 100, "copying ckpt-3").isOk());
        auto seen = (*client)->run(runA);
        QCOMPARE(seen->progressDone, int64_t{42});
        QCOMPARE(seen->progressTotal, int64_t{100});
        QCOMPARE(seen->progressPhase, std::string("copying ckpt-3"));
        QCOMPARE((*client)->runningRuns()->at(0).progressDone, int64_t{42});
        RunOutcome outcome;
        outcome.result = RunResult::Interrupted;
        outcome.endedAt = 28.0;
        QVERIFY((*service)->finishRun(runA, outcome).isOk());
        QVERIFY((*service)->setRunProgress(runA, 99, 100, "late").isOk());  // an ended run keeps its last progress
        QCOMPARE((*client)->run(runA)->progressDone, int64_t{42});
        // A cancel that came too late never stops a later run.
        QVERIFY((*service)->expireCancelRequests(a, runA, 29.0, 555).isOk());
        const int64_t later = *(*service)->beginRun(a, RunTrigger::Due, 30.0, 555);
        QVERIFY(!*(*service)->takeCancelRequest(a, later, 31.0, 555));

        // Nothing running or queued: nothing to cancel.
        QVERIFY((*service)->finishRun(later, outcome).isOk());
        auto nothing = (*client)->requestCancel(b, 32.0, 101);
        QCOMPARE(nothing.status().code(), StatusCode::FailedPrecondition);
        QVERIFY2(nothing.status().message().find("has no run in progress") != std::string::npos,
                 nothing.status().message().c_str());
        // A pending request is withdrawn by a cancel and never taken.
        const int64_t q4 = *(*client)->requestRun(b, 33.0, 102);
        auto withdrawn = (*client)->requestCancel(b, 34.0, 102);
        QCOMPARE(withdrawn->withdrawn, 1);
        QVERIFY(!withdrawn->requestId);
        QCOMPARE((*client)->request(q4)->error, std::string("cancelled before it started"));
        QCOMPARE((*service)->takeRunRequests(35.0, 555)->size(), size_t{0});
        const int64_t q5 = *(*client)->requestRun(b, 36.0, 102);
        QVERIFY(*(*client)->withdrawRequest(q5, 37.0, "the service stopped"));
        QCOMPARE((*service)->takeRunRequests(38.0, 555)->size(), size_t{0});
        // Pruning deletes settled requests only.
        const int64_t q6 = *(*client)->requestRun(b, 39.0, 102);
        QVERIFY((*service)->pruneRequests(36.5).isOk());  // before q5 was withdrawn (37)
        QCOMPARE((*client)->request(q4).status().code(), StatusCode::NotFound);
        QVERIFY((*client)->request(q5).ok());
        QVERIFY((*service)->pruneRequests(1e12).isOk());
        QCOMPARE((*client)->requests(std::nullopt, false)->size(), size_t{1});
        QVERIFY((*client)->request(q6)->pending());
        // Removing a schedule removes its requests.
        QVERIFY((*client)->removeSchedule("b").isOk());
        QCOMPARE((*client)->request(q6).status().code(), StatusCode::NotFound);
        QVERIFY((*client)->removeSchedule("a").isOk());
    }

    void refusedUnchanged_data() {
        QTest::addColumn<QByteArray>("kind");
        QTest::addColumn<StatusCode>("code");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("newer schema") << QByteArray("newer") << StatusCode::FailedPrecondition
                                      << QStringLiteral("schema version 99, newer than");
        QTest::newRow("not a database") << QByteArray("text") << StatusCode::DataLoss
                                        << QStringLiteral("is not a SQLite database");
        QTest::newRow("damaged first page") << QByteArray("damaged") << StatusCode::DataLoss << QStringLiteral("not changed");
        QTest::newRow("another program's database")
            << QByteArray("foreign") << StatusCode::FailedPrecondition << QStringLiteral("another program");
        QTest::newRow("version without the tables")
            << QByteArray("tableless") << StatusCode::DataLoss << QStringLiteral("not its tables");
    }

    void refusedUnchanged() {
        QFETCH(QByteArray, kind);
        QFETCH(StatusCode, code);
        QFETCH(QString, fragment);
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("schedules.db"));
        if (kind == "newer") {
            writeSqlite(path, "CREATE TABLE schedules (id INTEGER PRIMARY KEY, future_column BLOB); PRAGMA user_version = 99;");
        } else if (kind == "text") {
            QVERIFY(writeAll(path, QByteArray("name,source\nnightly,/runs/a\n")));
        } else if (kind == "damaged") {
            QVERIFY(ScheduleStore::open(path.toStdString()).ok());
            QByteArray bytes = readAll(path);
            QVERIFY(bytes.size() > 4096);
            // Keep the 100-byte header (magic, version), wipe the schema page.
            for (int i = 100; i < 4096; ++i) bytes[i] = char(0xA5);
            QVERIFY(writeAll(path, bytes));
        } else if (kind == "foreign") {
            writeSqlite(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT);");
        } else {
            writeSqlite(path, "CREATE TABLE something (id INTEGER); PRAGMA user_version = 1;");
        }
        const QByteArray before = readAll(path);
        auto store = ScheduleStore::open(path.toStdString());
        QVERIFY(!store.ok());
        QCOMPARE(store.status().code(), code);
        const QString message = QString::fromStdString(store.status().message());
        QVERIFY2(message.contains(fragment), qPrintable(message));
        QVERIFY2(message.contains(path), qPrintable(message));  // names the file
        QCOMPARE(readAll(path), before);                        // byte for byte
    }

    void missingDirectory() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("nowhere/schedules.db"));
        auto store = ScheduleStore::open(path.toStdString());
        QCOMPARE(store.status().code(), StatusCode::NotFound);
        QVERIFY(QString::fromStdString(store.status().message()).contains(tmp.filePath(QStringLiteral("nowhere"))));
        QVERIFY(!QFile::exists(path));
        QVERIFY(ScheduleStore::open(path.toStdString(), {.createDirectory = true}).ok());
        QVERIFY(QFile::exists(path));
    }

    void defaultPath() {
        const QByteArray savedXdg = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", "/data/xdg");
        QCOMPARE(*ScheduleStore::defaultPath(), std::string("/data/xdg/ckpt-explorer/catalog.db"));
        qunsetenv("XDG_DATA_HOME");
        QCOMPARE(*ScheduleStore::defaultPath(),
                 qEnvironmentVariable("HOME").toStdString() + "/.local/share/ckpt-explorer/catalog.db");
        if (!savedXdg.isNull()) qputenv("XDG_DATA_HOME", savedXdg);
    }

    // The catalog adopted the schedule store: a catalog.db that does not
    // exist yet starts as a copy of the schedules.db beside it, which stays
    // as it was.
    void adoptsTheScheduleStoreBesideIt() {
        QTemporaryDir tmp;
        const QString legacy = tmp.filePath(QStringLiteral("schedules.db"));
        {
            auto store = ScheduleStore::open(legacy.toStdString());
            QVERIFY(store.ok());
            QVERIFY((*store)->addSchedule(directorySchedule("nightly", "/runs/a", "/archive/a")).ok());
        }
        const QByteArray before = readAll(legacy);
        auto adopted = ScheduleStore::open(tmp.filePath(QStringLiteral("catalog.db")).toStdString());
        QVERIFY2(adopted.ok(), adopted.status().toString().c_str());
        QVERIFY((*adopted)->schedule("nightly").ok());
        QCOMPARE(readAll(legacy), before);
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("catalog.db.adopting"))));
    }

    void validation_data() {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("fragment");  // empty: valid
        QTest::newRow("valid directory schedule") << ""
                                                  << "";
        QTest::newRow("valid demo schedule") << "demo"
                                             << "";
        QTest::newRow("empty name") << "name="
                                    << "needs a name";
        QTest::newRow("name with a slash") << "name=a/b"
                                           << "only letters, digits";
        QTest::newRow("name starting with a dash") << "name=-x"
                                                   << "must not start with";
        QTest::newRow("no interval") << "no interval"
                                     << "needs an interval";
        QTest::newRow("zero interval") << "every=0"
                                       << "must be positive, got 0 s";
        QTest::newRow("negative interval") << "every=-60"
                                           << "must be positive, got -60 s";
        QTest::newRow("sub-second interval") << "every=0.2"
                                             << "shorter than";
        QTest::newRow("step trigger on a directory") << "every_steps"
                                                     << "every_steps has no meaning";
        QTest::newRow("demo trigger after the last step") << "demo at_step=500"
                                                          << "would never fire";
        QTest::newRow("demo every N beyond the run") << "demo every_steps=1000"
                                                     << "never fires in a 200-step";
        QTest::newRow("destination is the source") << "dest=source"
                                                   << "is the source directory itself";
        QTest::newRow("destination inside the source") << "dest=source/archive"
                                                       << "is inside the source";
        QTest::newRow("destination inside the source via ..") << "dest=other/../source/x"
                                                              << "is inside the source";
        QTest::newRow("destination inside the source via a symlink") << "dest=link/x"
                                                                     << "is inside the source";
        QTest::newRow("source inside the destination") << "dest=."
                                                       << "is inside the destination";
        QTest::newRow("source missing") << "source=missing"
                                        << "does not exist";
        QTest::newRow("destination under a file") << "dest=file/x"
                                                  << "is not a directory";
        QTest::newRow("destination is a file") << "dest=file"
                                               << "exists and is not a directory";
        QTest::newRow("both shard options") << "shards"
                                            << "not both";
        QTest::newRow("bad retention") << "keep_latest=0"
                                       << "keep_latest";
    }

    void validation() {
        QFETCH(QString, edit);
        QFETCH(QString, fragment);
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString();
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("source")));
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("other")));
        QVERIFY(writeAll(tmp.filePath(QStringLiteral("file")), "x"));
        std::filesystem::create_directory_symlink(root + "/source", root + "/link");

        Schedule s = directorySchedule("nightly", root + "/source", root + "/archive/a");
        if (edit.startsWith(QLatin1String("demo"))) {
            s.source = ScheduleSource::DemoTrainer;
            s.sourcePath.clear();
            if (edit.contains(QLatin1String("at_step="))) s.triggers.atSteps = {edit.section(u'=', 1).toLongLong()};
            if (edit.contains(QLatin1String("every_steps="))) s.triggers.everySteps = edit.section(u'=', 1).toLongLong();
        } else if (edit.startsWith(QLatin1String("name="))) {
            s.name = edit.mid(5).toStdString();
        } else if (edit == QLatin1String("no interval")) {
            s.triggers.everySeconds.reset();
        } else if (edit.startsWith(QLatin1String("every="))) {
            s.triggers.everySeconds = edit.mid(6).toDouble();
        } else if (edit == QLatin1String("every_steps")) {
            s.triggers.everySteps = 100;
        } else if (edit.startsWith(QLatin1String("dest="))) {
            const QString d = edit.mid(5);
            s.destination = d == QLatin1String(".") ? root : root + "/" + d.toStdString();
        } else if (edit.startsWith(QLatin1String("source="))) {
            s.sourcePath = root + "/" + edit.mid(7).toStdString();
        } else if (edit == QLatin1String("shards")) {
            s.sharding.shardCount = 2;
            s.sharding.maxShardBytes = 1000;
        } else if (edit == QLatin1String("keep_latest=0")) {
            s.retention.keepLatest = 0;
        }
        const Status st = validateSchedule(s);
        if (fragment.isEmpty()) {
            QVERIFY2(st.isOk(), st.toString().c_str());
            return;
        }
        QCOMPARE(st.code(), StatusCode::InvalidArgument);
        QVERIFY2(QString::fromStdString(st.message()).contains(fragment), st.message().c_str());
        // Validation reads, never creates.
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("archive"))));
    }

    void parseErrors_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("not JSON") << QByteArray("{") << "not valid JSON";
        QTest::newRow("unknown field") << QByteArray(R"({"name": "a", "destinaton": "/x"})") << "unknown field \"destinaton\"";
        QTest::newRow("name of the wrong type")
            << QByteArray(R"({"name": 3})") << "field \"name\" must be a string, got an integer";
        QTest::newRow("unknown source kind") << QByteArray(R"({"source": "ftp"})") << "field \"source\" must be";
        QTest::newRow("sharding typo") << QByteArray(R"({"sharding": {"max_bytes": 1}})") << "sharding.max_bytes";
        QTest::newRow("bad nested retention") << QByteArray(R"({"retention": {"keep_latest": "x"}})") << "keep_latest";
    }

    void parseErrors() {
        QFETCH(QByteArray, json);
        QFETCH(QString, fragment);
        auto s = parseSchedule(json.toStdString(), "schedule.json");
        QVERIFY(!s.ok());
        QCOMPARE(s.status().code(), StatusCode::InvalidArgument);
        QVERIFY2(QString::fromStdString(s.status().message()).contains(fragment), s.status().message().c_str());
        QVERIFY(QString::fromStdString(s.status().message()).contains(QStringLiteral("schedule.json")));
    }
};

QTEST_GUILESS_MAIN(TstScheduleStore)
#include "tst_schedule_store.moc"
