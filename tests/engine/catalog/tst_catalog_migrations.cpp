// The catalog's file is the schedule store's file: schema versions 1 and 2
// are the schedule tables, 3 adds the catalog's, 4 the state-file problem
// of each checkpoint, 5 replaces the trigram index with the word index.
// Frozen fixtures (fixtures/schema-v1.sql to schema-v3.sql, and
// schema-v3-keys.sql: version 3 with a scanned checkpoint's keys) build
// files exactly as older releases left them; opened by either Catalog or
// ScheduleStore first, they must reach the current version with every
// schedule, run, request and catalog row intact, the same tables and
// columns a fresh file has, and a working catalog that finds the keys an
// older version recorded.
// Files neither may take (a newer schema, not SQLite, damaged, another
// program's) are refused naming the file and keep every byte.

#include "ckpt/catalog.h"
#include "ckpt/schedule_store.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <filesystem>

#include "catalog_support.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;

Q_DECLARE_METATYPE(StatusCode)

namespace {

std::string fixture(const char* name) {
    return (sourceDir() + QStringLiteral("/tests/engine/catalog/fixtures/") + QLatin1String(name)).toStdString();
}

// The fixture's SQL run into a new file in WAL mode, as the release that
// wrote it left its files.
bool buildFromFixture(const std::string& sqlPath, const std::string& dbPath) {
    const std::string sql = fileBytes(sqlPath);
    if (sql.empty()) return false;
    const std::string error = execSql(dbPath, "PRAGMA journal_mode = WAL;" + sql);
    if (!error.empty()) qWarning("%s: %s", sqlPath.c_str(), error.c_str());
    return error.empty();
}

// "table(col type notnull default pk, ...)" for every table and the names of
// every index: what the schema is, independent of how it was reached
// (ALTER TABLE leaves other CREATE text than a fresh CREATE).
std::string schemaShape(const std::string& db) {
    return queryText(db,
                     "SELECT m.name, p.name, p.type, p.\"notnull\", coalesce(p.dflt_value, ''), p.pk "
                     "FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' "
                     "ORDER BY m.name, p.cid") +
           "\n" +
           queryText(db,
                     "SELECT type, name, tbl_name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') "
                     "AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name");
}

bool openCatalog(const std::string& path) {
    auto catalog = Catalog::open(path);
    if (!catalog.ok()) qWarning("Catalog::open: %s", catalog.status().toString().c_str());
    return catalog.ok();
}

bool openStore(const std::string& path) {
    auto store = ScheduleStore::open(path);
    if (!store.ok()) qWarning("ScheduleStore::open: %s", store.status().toString().c_str());
    return store.ok();
}

}  // namespace

class TstCatalogMigrations : public QObject {
    Q_OBJECT
private slots:
    void migrates_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<bool>("catalogFirst");
        QTest::addColumn<int>("version");
        QTest::newRow("v1, Catalog::open first") << QStringLiteral("schema-v1.sql") << true << 1;
        QTest::newRow("v1, ScheduleStore::open first") << QStringLiteral("schema-v1.sql") << false << 1;
        QTest::newRow("v2, Catalog::open first") << QStringLiteral("schema-v2.sql") << true << 2;
        QTest::newRow("v2, ScheduleStore::open first") << QStringLiteral("schema-v2.sql") << false << 2;
        QTest::newRow("v3, Catalog::open first") << QStringLiteral("schema-v3.sql") << true << 3;
        QTest::newRow("v3, ScheduleStore::open first") << QStringLiteral("schema-v3.sql") << false << 3;
        QTest::newRow("v3 with keys, Catalog::open first") << QStringLiteral("schema-v3-keys.sql") << true << 3;
        QTest::newRow("v3 with keys, ScheduleStore::open first") << QStringLiteral("schema-v3-keys.sql") << false << 3;
    }

    void migrates() {
        QFETCH(QString, fixture);
        QFETCH(bool, catalogFirst);
        QFETCH(int, version);
        QTemporaryDir tmp;
        const std::string path = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        QVERIFY(buildFromFixture(::fixture(fixture.toUtf8().constData()), path));
        QCOMPARE(queryInt(path, "PRAGMA user_version"), int64_t{version});
        QCOMPARE(queryText(path, "PRAGMA journal_mode"), std::string("wal"));

        // Whichever opens it first migrates it, all the way to the current version.
        QVERIFY(catalogFirst ? openCatalog(path) : openStore(path));
        QCOMPARE(queryInt(path, "PRAGMA user_version"), int64_t{Catalog::kSchemaVersion});
        QVERIFY(catalogFirst ? openStore(path) : openCatalog(path));
        QCOMPARE(integrityCheck(path), std::string("ok"));
        QCOMPARE(queryText(path, "PRAGMA foreign_key_check"), std::string());

        // The schema reached is the schema a new file gets.
        const std::string fresh = tmp.filePath(QStringLiteral("fresh.db")).toStdString();
        QVERIFY(openCatalog(fresh));
        QCOMPARE(QString::fromStdString(schemaShape(path)), QString::fromStdString(schemaShape(fresh)));

        // Every schedule, run and request survived with its values.
        auto store = ScheduleStore::open(path);
        QVERIFY2(store.ok(), store.status().toString().c_str());
        auto schedules = (*store)->schedules();
        QVERIFY2(schedules.ok(), schedules.status().toString().c_str());
        QCOMPARE(schedules->size(), size_t{2});
        const Schedule& demo = schedules->at(0);  // by name
        const Schedule& nightly = schedules->at(1);
        QCOMPARE(demo.name, std::string("demo-1"));
        QCOMPARE(demo.source, ScheduleSource::DemoTrainer);
        QCOMPARE(demo.destination, std::string("/tmp/demo"));
        QCOMPARE(*demo.triggers.everySteps, int64_t{50});
        QCOMPARE(*demo.triggers.everySeconds, 600.0);
        QCOMPARE(*demo.sharding.maxShardBytes, int64_t{1048576});
        QVERIFY(!demo.sharding.shardCount);
        QCOMPARE(demo.async, true);
        QCOMPARE(demo.enabled, false);
        QCOMPARE(demo.demoSteps, int64_t{300});
        QCOMPARE(demo.createdAt, 1795525200.5);
        QCOMPARE(nightly.id, int64_t{1});
        QCOMPARE(nightly.source, ScheduleSource::Directory);
        QCOMPARE(nightly.sourcePath, std::string("/runs/a"));
        QCOMPARE(*nightly.triggers.everySeconds, 86400.0);
        QCOMPARE(*nightly.retention.keepLatest, 7);
        QCOMPARE(nightly.retention.keepTags, std::vector<std::string>{"pin"});
        QCOMPARE(*nightly.sharding.shardCount, 4);
        QCOMPARE(nightly.createdAt, 1795521600.0);

        auto runs = (*store)->runs(std::nullopt);
        QVERIFY2(runs.ok(), runs.status().toString().c_str());
        QCOMPARE(runs->size(), size_t{3});
        const ScheduleRun& r3 = runs->at(0);  // newest first
        const ScheduleRun& r2 = runs->at(1);
        const ScheduleRun& r1 = runs->at(2);
        QCOMPARE(r1.id, int64_t{1});
        QCOMPARE(r1.scheduleName, std::string("nightly"));
        QCOMPARE(r1.trigger, RunTrigger::Due);
        QCOMPARE(r1.result, RunResult::Ok);
        QCOMPARE(r1.startedAt, 100.0);
        QCOMPARE(*r1.endedAt, 103.5);
        QCOMPARE(r1.bytes, uint64_t{12345});
        QCOMPARE(r1.checkpoint, std::string("/archive/a/ckpt-3"));
        QCOMPARE(r1.note, std::string("kept 3"));
        QCOMPARE(r1.pid, int64_t{4242});
        QCOMPARE(r1.sourceCheckpoint, std::string("/runs/a/ckpt-3"));
        QCOMPARE(r1.sourceFingerprint, std::string("100:deadbeef"));
        QCOMPARE(r2.trigger, RunTrigger::CatchUp);
        QCOMPARE(r2.result, RunResult::Failed);
        QCOMPARE(r2.error, std::string("disk full"));
        QCOMPARE(*r2.endedAt, 201.25);
        QCOMPARE(r3.scheduleName, std::string("demo-1"));
        QCOMPARE(r3.trigger, RunTrigger::RunNow);
        QCOMPARE(r3.result, RunResult::Interrupted);
        QVERIFY(!r3.endedAt);
        QCOMPARE(r3.bytes, uint64_t{99});
        // Version 1 had no progress columns: they start at their defaults.
        QCOMPARE(r1.progressDone, int64_t{version == 1 ? 0 : 7});
        QCOMPARE(r2.progressTotal, int64_t{version == 1 ? 0 : 4096});
        QCOMPARE(r3.progressPhase, std::string(version == 1 ? "" : "training"));

        auto requests = (*store)->requests(std::nullopt, false);
        QVERIFY2(requests.ok(), requests.status().toString().c_str());
        QCOMPARE(requests->size(), size_t{version == 1 ? 0u : 2u});
        if (version >= 2) {
            const ScheduleRequest& cancel = requests->at(0);  // newest first
            const ScheduleRequest& run = requests->at(1);
            QCOMPARE(cancel.kind, RequestKind::Cancel);
            QCOMPARE(cancel.scheduleName, std::string("nightly"));
            QVERIFY(cancel.pending());
            QCOMPARE(run.kind, RequestKind::Run);
            QCOMPARE(*run.runId, int64_t{3});
            QCOMPARE(*run.takenAt, 299.5);
            QCOMPARE(run.takenBy, int64_t{4244});
        }

        if (fixture == QLatin1String("schema-v3.sql")) {
            // The catalog's rows of version 3 survive, their state-file problem empty.
            auto catalog = Catalog::open(path);
            QVERIFY2(catalog.ok(), catalog.status().toString().c_str());
            auto row = (*catalog)->checkpoint("/runs/a/ckpt-3");
            QVERIFY2(row.ok(), row.status().toString().c_str());
            QCOMPARE(row->tensors, int64_t{2});
            QCOMPARE(row->stateProblem, std::string());
            QCOMPARE(row->health(), CatalogHealth::Healthy);
            QCOMPARE((*catalog)->tensors(row->id)->size(), size_t{2});
            QCOMPARE((*catalog)->restores()->size(), size_t{1});
        }
        // A version 3 catalog's keys are found through the new index, and its
        // words listed, as a scan would have listed them.
        if (fixture == QLatin1String("schema-v3-keys.sql")) {
            auto old = Catalog::open(path);
            QVERIFY2(old.ok(), old.status().toString().c_str());
            auto layer = (*old)->search("layer_0/query");
            QVERIFY2(layer.ok(), layer.status().toString().c_str());
            QCOMPARE(layer->totalMatches, int64_t{2});
            QCOMPARE(layer->hits.size(), size_t{1});
            QCOMPARE(layer->hits[0].checkpoint.prefix, std::string("/runs/old/bert/ckpt-7"));
            QCOMPARE(layer->hits[0].matches[0].key, std::string("encoder/layer_0/query/bias/.ATTRIBUTES/VARIABLE_VALUE"));
            QCOMPARE(layer->hits[0].matches[0].shape, std::string("[4]"));
            auto counter = (*old)->search("key:counter");
            QVERIFY2(counter.ok(), counter.status().toString().c_str());
            QCOMPARE(counter->totalMatches, int64_t{1});
            QCOMPARE(queryInt(path,
                              "SELECT count(*) FROM catalog_words WHERE word IN ('encoder', 'layer_0', 'query', "
                              "'kernel', 'bias', 'attributes', 'variable_value', 'save_counter', 'root')"),
                     int64_t{9});
            QCOMPARE(queryInt(path, "SELECT count(*) FROM sqlite_master WHERE name = 'catalog_key_text'"), int64_t{0});
            // Version 7's word index keeps no column sizes, and holds every key.
            QCOMPARE(queryInt(path, "SELECT count(*) FROM sqlite_master WHERE name = 'catalog_key_words_docsize'"), int64_t{0});
            QCOMPARE(queryInt(path, "SELECT count(*) FROM catalog_key_words WHERE catalog_key_words MATCH 'variable_value'"),
                     queryInt(path, "SELECT count(*) FROM catalog_keys WHERE key LIKE '%VARIABLE_VALUE'"));
            QCOMPARE(queryText(path, "INSERT INTO catalog_key_words (catalog_key_words) VALUES ('integrity-check')", false),
                     std::string());
        }

        // Both still write: a run, and the catalog's own rows.
        auto run = (*store)->beginRun(nightly.id, RunTrigger::RunNow, 500.0, 4245);
        QVERIFY2(run.ok(), run.status().toString().c_str());
        const std::string runs2 = tmp.filePath(QStringLiteral("runs")).toStdString();
        QVERIFY(writeKeyedCheckpoint(runs2 + "/ckpt-1", {"dense/kernel", "dense/bias"}, 1).isOk());
        auto catalog = Catalog::open(path);
        QVERIFY2(catalog.ok(), catalog.status().toString().c_str());
        QVERIFY((*catalog)->addRoot(runs2).ok());
        auto scanned = (*catalog)->scan({});
        QVERIFY2(scanned.ok(), scanned.status().toString().c_str());
        QCOMPARE(scanned->added, int64_t{1});
        auto found = (*catalog)->search("kernel");
        QVERIFY2(found.ok(), found.status().toString().c_str());
        // Version 3's fixtures also hold a (now missing) checkpoint with a kernel.
        QCOMPARE(found->totalMatches, int64_t{version == 3 ? 2 : 1});
        QCOMPARE((*store)->runs(std::nullopt)->size(), size_t{4});
        // Removing a schedule still cascades to its runs (foreign keys on).
        QVERIFY((*store)->removeSchedule("nightly").isOk());
        QCOMPARE(queryInt(path, "SELECT count(*) FROM schedule_runs"), int64_t{1});
        QCOMPARE(integrityCheck(path), std::string("ok"));
    }

    void emptyFileBecomesACatalog() {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        QVERIFY(writeBytes(path, ""));
        QVERIFY(openCatalog(path));
        QCOMPARE(queryInt(path, "PRAGMA user_version"), int64_t{Catalog::kSchemaVersion});
        QVERIFY(openStore(path));
    }

    void refuses_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<StatusCode>("code");  // Ok: any error will do
        QTest::newRow("newer schema (99)") << QStringLiteral("newer") << StatusCode::FailedPrecondition;
        QTest::newRow("not SQLite") << QStringLiteral("text") << StatusCode::DataLoss;
        QTest::newRow("truncated SQLite") << QStringLiteral("truncated") << StatusCode::DataLoss;
        QTest::newRow("corrupt schema page") << QStringLiteral("corrupt") << StatusCode::DataLoss;
        QTest::newRow("another program's database") << QStringLiteral("foreign") << StatusCode::Ok;
    }

    void refuses() {
        QFETCH(QString, kind);
        QFETCH(StatusCode, code);
        QTemporaryDir tmp;
        const std::string path = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        if (kind == QLatin1String("newer")) {
            QVERIFY(buildFromFixture(fixture("schema-v2.sql"), path));
            QCOMPARE(execSql(path, "PRAGMA user_version = 99"), std::string());
        } else if (kind == QLatin1String("text")) {
            QVERIFY(writeBytes(path, "name,step\nckpt-1,100\n" + std::string(4096, 'x')));
        } else if (kind == QLatin1String("foreign")) {
            QCOMPARE(
                execSql(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'mine');"),
                std::string());
        } else {
            QVERIFY(buildFromFixture(fixture("schema-v2.sql"), path));
            std::string bytes = fileBytes(path);
            QVERIFY(bytes.size() >= 8192);
            if (kind == QLatin1String("truncated")) {
                bytes.resize(1000);  // the header survives; page 1's cells (at its end) do not
            } else {
                // Page 1's b-tree header and cell pointers (after the 100-byte file header).
                for (size_t i = 100; i < 160; ++i) bytes[i] = static_cast<char>(0xA5);
            }
            QVERIFY(writeBytes(path, bytes));
        }
        const std::string before = fileBytes(path);
        QVERIFY(!before.empty());
        const auto dirBefore = std::distance(std::filesystem::directory_iterator(tmp.path().toStdString()), {});

        auto catalog = Catalog::open(path);
        QVERIFY2(!catalog.ok(), "Catalog::open accepted the file");
        if (code != StatusCode::Ok) QCOMPARE(catalog.status().code(), code);
        QVERIFY2(catalog.status().message().find(path) != std::string::npos, catalog.status().toString().c_str());
        QVERIFY2(fileBytes(path) == before, "Catalog::open changed the refused file");

        auto store = ScheduleStore::open(path);
        QVERIFY2(!store.ok(), "ScheduleStore::open accepted the file");
        if (code != StatusCode::Ok) QCOMPARE(store.status().code(), code);
        QVERIFY2(store.status().message().find(path) != std::string::npos, store.status().toString().c_str());
        QVERIFY2(fileBytes(path) == before, "ScheduleStore::open changed the refused file");
        // No journal or WAL left beside it either.
        QCOMPARE(std::distance(std::filesystem::directory_iterator(tmp.path().toStdString()), {}), dirBefore);
        qInfo("%s", catalog.status().toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TstCatalogMigrations)
#include "tst_catalog_migrations.moc"
