// ckpt catalog add|scan|list|search|forget|history on the real binary with a
// real catalog file (docs/cli.md): what a user does across two runs, the
// restores `ckpt restore` records, and the files a catalog must refuse
// without touching them.

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include "test_support.h"

using nlohmann::json;

namespace {

using Run = ckpt::testing::CliRun;

json parsed(const Run& run) {
    const json j = json::parse(run.out.toStdString(), nullptr, false);
    if (j.is_discarded()) qWarning("not JSON: %s / %s", run.out.constData(), run.err.constData());
    return j;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TstCliCatalog : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QString m_db;
    QString m_runs;

    Run catalog(QStringList args) {
        args.prepend(QStringLiteral("catalog"));
        args << QStringLiteral("--catalog") << m_db;
        return ckpt::testing::runCkpt(args);
    }

private slots:
    void initTestCase() {
        m_db = m_tmp.filePath(QStringLiteral("catalog.db"));
        m_runs = m_tmp.filePath(QStringLiteral("runs"));
        for (const char* run : {"a", "b"}) {
            const QString dir = m_runs + QLatin1Char('/') + QLatin1String(run);
            const Run train =
                ckpt::testing::runCkpt({QStringLiteral("demo-train"), dir, QStringLiteral("--steps"), QStringLiteral("120"),
                                        QStringLiteral("--save-every"), QStringLiteral("40")});
            QVERIFY2(train.exitCode == 0, train.err.constData());
        }
    }

    void addScansAndSearchFinds() {
        const Run add = catalog({QStringLiteral("add"), m_runs, QStringLiteral("--json")});
        QVERIFY2(add.exitCode == 0, add.err.constData());
        const json a = parsed(add);
        QCOMPARE(a["added"][0].get<std::string>(), QDir(m_runs).absolutePath().toStdString());
        QCOMPARE(a["scan"]["added"].get<int>(), 6);  // 3 saves in each of 2 runs
        QCOMPARE(a["scan"]["directories"].get<int>(), 2);

        const json list = parsed(catalog({QStringLiteral("list"), QStringLiteral("--json")}));
        QCOMPARE(list["roots"].size(), size_t{1});
        QCOMPARE(list["roots"][0]["checkpoints"].get<int>(), 6);
        QCOMPARE(list["checkpoints"].size(), size_t{6});
        QCOMPARE(list["checkpoints"][0]["step"].get<int>(), 40);
        QCOMPARE(list["checkpoints"][0]["health"].get<std::string>(), std::string("unverified"));

        // A substring with '/', '_' and '-', in every checkpoint.
        const Run found =
            catalog({QStringLiteral("search"), QStringLiteral("layer_with_weights-0/kernel"), QStringLiteral("--json")});
        QVERIFY2(found.exitCode == 0, found.err.constData());
        const json s = parsed(found);
        QCOMPARE(s["total_checkpoints"].get<int>(), 6);
        for (const json& hit : s["hits"])
            for (const json& m : hit["matches"])
                QVERIFY(m["key"].get<std::string>().find("layer_with_weights-0/kernel") != std::string::npos);
        // The variable and its two Adam slots, per checkpoint.
        QCOMPARE(s["hits"][0]["total_matches"].get<int>(), 3);

        // FTS5 syntax passes through; NOT drops the optimizer's slots.
        const json plain = parsed(catalog({QStringLiteral("search"), QStringLiteral("kernel NOT OPTIMIZER_SLOT"),
                                           QStringLiteral("--json"), QStringLiteral("--limit"), QStringLiteral("1")}));
        QCOMPARE(plain["hits"][0]["total_matches"].get<int>(), 2);
        QCOMPARE(plain["truncated"].get<bool>(), true);
        QCOMPARE(plain["hits"].size(), size_t{1});
        // Few rows are counted through their keys: exact even past --limit,
        // and said so; --exact-totals changes nothing then.
        QCOMPARE(plain["totals_exact"].get<bool>(), true);
        const json exact =
            parsed(catalog({QStringLiteral("search"), QStringLiteral("kernel NOT OPTIMIZER_SLOT"), QStringLiteral("--json"),
                            QStringLiteral("--limit"), QStringLiteral("1"), QStringLiteral("--exact-totals")}));
        QCOMPARE(exact["total_matches"], plain["total_matches"]);
        QCOMPARE(exact["total_checkpoints"], plain["total_checkpoints"]);
        QCOMPARE(exact["totals_exact"].get<bool>(), true);

        const Run bad = catalog({QStringLiteral("search"), QStringLiteral("\"unbalanced")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("\"unbalanced"), bad.err.constData());
    }

    void rescanSkipsUnchangedAndMarksMissing() {
        const json again = parsed(catalog({QStringLiteral("scan"), QStringLiteral("--json")}));
        QCOMPARE(again["scan"]["unchanged"].get<int>(), 6);
        QCOMPARE(again["scan"]["tensor_rows"].get<int>(), 0);

        const QDir b(m_runs + QStringLiteral("/b"));
        for (const QString& f : b.entryList({QStringLiteral("ckpt-2.*")}, QDir::Files)) QVERIFY(QFile::remove(b.filePath(f)));
        const json scan = parsed(catalog({QStringLiteral("scan"), QStringLiteral("--json")}));
        QCOMPARE(scan["scan"]["missing"].get<int>(), 1);
        const json list = parsed(catalog({QStringLiteral("list"), b.absolutePath(), QStringLiteral("--json")}));
        QCOMPARE(list["checkpoints"].size(), size_t{3});  // kept, marked
        QCOMPARE(list["checkpoints"][1]["health"].get<std::string>(), std::string("missing"));
    }

    // ckpt verify records its result for a catalogued checkpoint, so the
    // catalog's health is the latest known, whoever verified.
    void verifyRecordsInTheCatalog() {
        const QString prefix = m_runs + QStringLiteral("/a/ckpt-1");
        const Run verify = ckpt::testing::runCkpt({QStringLiteral("verify"), prefix, QStringLiteral("--catalog"), m_db});
        QVERIFY2(verify.exitCode == 0, verify.err.constData());
        const json list = parsed(catalog({QStringLiteral("list"), m_runs + QStringLiteral("/a"), QStringLiteral("--json")}));
        QCOMPARE(list["checkpoints"][0]["prefix"].get<std::string>(), prefix.toStdString());
        QCOMPARE(list["checkpoints"][0]["health"].get<std::string>(), std::string("healthy"));
        QCOMPARE(list["checkpoints"][1]["health"].get<std::string>(), std::string("unverified"));
    }

    void verifyFindsDamage() {
        const QString data = m_runs + QStringLiteral("/a/ckpt-3.data-00000-of-00001");
        QByteArray bytes = readAll(data);
        QVERIFY(bytes.size() > 100);
        bytes[100] = static_cast<char>(bytes[100] ^ 0x5A);
        QFile f(data);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        const Run scan = catalog({QStringLiteral("scan"), QStringLiteral("--verify"), QStringLiteral("--json")});
        QCOMPARE(scan.exitCode, 1);
        QCOMPARE(parsed(scan)["scan"]["damaged"].get<int>(), 1);
        const Run text = catalog({QStringLiteral("list"), m_runs + QStringLiteral("/a")});
        QVERIFY2(text.out.contains("D ") && text.out.contains("DAMAGED:"), text.out.constData());
    }

    void restoreIsRecorded() {
        const QString source = m_runs + QStringLiteral("/a/ckpt-1");
        const Run restore =
            ckpt::testing::runCkpt({QStringLiteral("restore"), source, QStringLiteral("--into"), source,
                                    QStringLiteral("--assert"), QStringLiteral("consumed"), QStringLiteral("--catalog"), m_db});
        QVERIFY2(restore.exitCode == 0, restore.err.constData());
        const json h = parsed(catalog({QStringLiteral("history"), QStringLiteral("--json")}));
        QCOMPARE(h["restores"].size(), size_t{1});
        const json& r = h["restores"][0];
        QCOMPARE(r["source"].get<std::string>(), source.toStdString());
        QCOMPARE(r["ok"].get<bool>(), true);
        QCOMPARE(r["tool"].get<std::string>(), std::string("ckpt"));
        QVERIFY(r["verdict"].get<std::string>().find("assert_consumed passed") != std::string::npos);
    }

    // The second preview of the same bytes, in another checkpoint of the
    // run (layer 0 is frozen after step 40 in the demo), needs no read.
    void previewsComeFromTheCache() {
        const QString key = QStringLiteral("model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE");
        auto stats = [&](const QString& prefix, QStringList extra = {}) {
            QStringList args = {QStringLiteral("stats"),     prefix, key, QStringLiteral("--json"),
                                QStringLiteral("--catalog"), m_db};
            args += extra;
            const Run run = ckpt::testing::runCkpt(args);
            if (run.exitCode != 0) qWarning("%s", run.err.constData());
            return parsed(run);
        };
        const json first = stats(m_runs + QStringLiteral("/b/ckpt-1"));
        const json again = stats(m_runs + QStringLiteral("/b/ckpt-1"));
        QCOMPARE(first["from_cache"].get<bool>(), false);
        QCOMPARE(again["from_cache"].get<bool>(), true);
        for (const char* field : {"count", "min", "max", "mean", "std", "absmax", "zeros"})
            QCOMPARE(again[field].dump(), first[field].dump());
        QCOMPARE(stats(m_runs + QStringLiteral("/b/ckpt-1"), {QStringLiteral("--no-cache")})["from_cache"].get<bool>(), false);
        const json hist = parsed(ckpt::testing::runCkpt({QStringLiteral("histogram"), m_runs + QStringLiteral("/b/ckpt-1"), key,
                                                         QStringLiteral("--bins"), QStringLiteral("8"), QStringLiteral("--json"),
                                                         QStringLiteral("--catalog"), m_db}));
        const json histAgain = parsed(ckpt::testing::runCkpt({QStringLiteral("histogram"), m_runs + QStringLiteral("/b/ckpt-1"),
                                                              key, QStringLiteral("--bins"), QStringLiteral("8"),
                                                              QStringLiteral("--json"), QStringLiteral("--catalog"), m_db}));
        QCOMPARE(histAgain["from_cache"].get<bool>(), true);
        QCOMPARE(histAgain["counts"].dump(), hist["counts"].dump());
        QCOMPARE(histAgain["edges"].dump(), hist["edges"].dump());
    }

    // ckpt diff: pairs compared before come from the cache, same figures.
    void diffFromTheCache() {
        const QStringList args = {
            QStringLiteral("diff"),   m_runs + QStringLiteral("/b/ckpt-1"), m_runs + QStringLiteral("/b/ckpt-3"),
            QStringLiteral("--json"), QStringLiteral("--catalog"),          m_db};
        json first = parsed(ckpt::testing::runCkpt(args));
        json again = parsed(ckpt::testing::runCkpt(args));
        QCOMPARE(first["from_cache"].get<int>(), 0);
        QVERIFY(again["from_cache"].get<int>() > 0);
        QCOMPARE(again["bytes_read"].get<int>(), 0);
        for (json* j : {&first, &again}) {
            j->erase("from_cache");
            j->erase("bytes_read");
        }
        QCOMPARE(again.dump(), first.dump());
    }

    void forgetLeavesFiles() {
        const Run forget = catalog({QStringLiteral("forget"), m_runs});
        QVERIFY2(forget.exitCode == 0, forget.err.constData());
        const json list = parsed(catalog({QStringLiteral("list"), QStringLiteral("--json")}));
        QVERIFY(list["roots"].empty());
        QVERIFY(list["checkpoints"].empty());
        QVERIFY(QFile::exists(m_runs + QStringLiteral("/a/ckpt-1.index")));
        QCOMPARE(catalog({QStringLiteral("forget"), m_runs}).exitCode, 1);  // NotFound, named
    }

    void refusesFilesItDoesNotOwn_data() {
        QTest::addColumn<QByteArray>("kind");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("text file") << QByteArray("text") << QStringLiteral("not a SQLite database");
        QTest::newRow("newer schema") << QByteArray("newer") << QStringLiteral("newer than this ckpt");
    }

    void refusesFilesItDoesNotOwn() {
        QFETCH(QByteArray, kind);
        QFETCH(QString, fragment);
        const QString path = m_tmp.filePath(QStringLiteral("refused-") + QString::fromLatin1(kind) + QStringLiteral(".db"));
        if (kind == "text") {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("roots,checkpoints\n");
        } else {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
            QCOMPARE(sqlite3_exec(db, "CREATE TABLE catalog_roots (x); PRAGMA user_version = 99;", nullptr, nullptr, nullptr),
                     SQLITE_OK);
            sqlite3_close(db);
        }
        const QByteArray before = readAll(path);
        const Run run =
            ckpt::testing::runCkpt({QStringLiteral("catalog"), QStringLiteral("list"), QStringLiteral("--catalog"), path});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(fragment.toUtf8()) && run.err.contains(path.toUtf8()), run.err.constData());
        QCOMPARE(readAll(path), before);
    }
};

QTEST_GUILESS_MAIN(TstCliCatalog)
#include "tst_cli_catalog.moc"
