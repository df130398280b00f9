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
        QCOMPARE(*ScheduleStore::defaultPath(), std::string("/data/xdg/ckpt-explorer/schedules.db"));
        qunsetenv("XDG_DATA_HOME");
        QCOMPARE(*ScheduleStore::defaultPath(),
                 qEnvironmentVariable("HOME").toStdString() + "/.local/share/ckpt-explorer/schedules.db");
        if (!savedXdg.isNull()) qputenv("XDG_DATA_HOME", savedXdg);
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
