// The ckpt CLI as scripts use it: JSON shapes of docs/cli.md, exit codes
// (0 ok, 1 checkpoint problem, 2 usage), one line per verify problem.

#include <QtTest>

#include "test_support.h"

using nlohmann::json;

namespace {

using Run = ckpt::testing::CliRun;
Run ckptRun(const QStringList& args) { return ckpt::testing::runCkpt(args); }

}  // namespace

class TstCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (ckpt::testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
    }

    void inspectJsonMatchesManifest_data() {
        QTest::addColumn<QString>("dir");
        for (const QString& d : ckpt::testing::realBundleDirs()) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }
    void inspectJsonMatchesManifest() {
        QFETCH(QString, dir);
        const Run r = ckptRun({QStringLiteral("inspect"), dir, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        const json m = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
        QCOMPARE(j["header"]["num_shards"], m["header"]["num_shards"]);
        QCOMPARE(j["header"]["endianness"], m["header"]["endianness"]);
        QCOMPARE(j["tensors"].size(), m["tensors"].size());
        for (size_t i = 0; i < j["tensors"].size(); ++i) {
            const json& ours = j["tensors"][i];
            const json& theirs = m["tensors"][i];
            QCOMPARE(ours["key"], theirs["key"]);
            QCOMPARE(ours["dtype"], theirs["dtype"]);
            QCOMPARE(ours["shape"], theirs["shape"]);
            QCOMPARE(ours["shard_id"], theirs["shard_id"]);
            QCOMPARE(ours["offset"], theirs["offset"]);
            QCOMPARE(ours["size"], theirs["size"]);
            QCOMPARE(ours["crc32c"].get<uint32_t>(),
                     static_cast<uint32_t>(std::stoul(theirs["crc32c"].get<std::string>(), nullptr, 16)));
            QVERIFY(ours["slices"].is_array());
        }
        if (m["object_graph"].is_null()) {
            QVERIFY(j["objects"].empty());
        } else {
            QCOMPARE(j["objects"].size(), m["object_graph"]["nodes"].size());
            for (size_t i = 0; i < j["objects"].size(); ++i) {
                QCOMPARE(j["objects"][i]["path"], m["object_graph"]["nodes"][i]["path"]);
                QCOMPARE(j["objects"][i]["attributes"].size(), m["object_graph"]["nodes"][i]["attributes"].size());
            }
        }
    }

    void verifyAndExitCodes() {
        Run ok = ckptRun({QStringLiteral("verify"), ckpt::testing::realTestData("t2t_transformer_2shards")});
        QCOMPARE(ok.exitCode, 0);
        QVERIFY(ok.out.startsWith("OK: "));

        QTemporaryDir tmp;
        QVERIFY(ckpt::testing::copyDirectory(ckpt::testing::realTestData("tfx_estimator_ckpt1000"), tmp.path()));
        const QString data = tmp.filePath(QStringLiteral("model.ckpt-1000.data-00000-of-00001"));
        QByteArray bytes = ckpt::testing::readAll(data);
        bytes[10] = static_cast<char>(bytes[10] ^ 0x40);
        bytes[100000] = static_cast<char>(bytes[100000] ^ 0x40);
        ckpt::testing::writeAll(data, bytes);
        Run bad = ckptRun({QStringLiteral("verify"), tmp.path()});
        QCOMPARE(bad.exitCode, 1);
        const QList<QByteArray> lines = bad.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);  // one precise line per damaged tensor
        for (const QByteArray& line : lines) {
            QVERIFY2(line.startsWith("DataLoss: checksum mismatch for"), line.constData());
            QVERIFY(line.contains("model.ckpt-1000.data-00000-of-00001"));
        }
        Run badJson = ckptRun({QStringLiteral("verify"), tmp.path(), QStringLiteral("--json")});
        QCOMPARE(badJson.exitCode, 1);
        const json j = json::parse(badJson.out.toStdString());
        QCOMPARE(j["ok"], false);
        QCOMPARE(j["problems"].size(), size_t{2});

        Run missing =
            ckptRun({QStringLiteral("inspect"), tmp.filePath(QStringLiteral("nothing-here")), QStringLiteral("--json")});
        QCOMPARE(missing.exitCode, 1);
        QCOMPARE(json::parse(missing.out.toStdString())["error"]["code"], "NotFound");
        QVERIFY(missing.err.contains("no checkpoint at"));

        QCOMPARE(ckptRun({QStringLiteral("inspect")}).exitCode, 2);
        QCOMPARE(ckptRun({QStringLiteral("frobnicate")}).exitCode, 2);
        QCOMPARE(ckptRun({QStringLiteral("cat"), ckpt::testing::realTestData("t2t_transformer_2shards"), QStringLiteral("x"),
                          QStringLiteral("--limit"), QStringLiteral("abc")})
                     .exitCode,
                 2);
        QCOMPARE(ckptRun({QStringLiteral("inspect"), QStringLiteral("--help")}).exitCode, 0);
    }

    void catValues() {
        Run r = ckptRun({QStringLiteral("cat"), ckpt::testing::realTestData("serving_half_plus_three"), QStringLiteral("a"),
                         QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        const json m =
            ckpt::testing::loadJson(ckpt::testing::realTestData("serving_half_plus_three") + QStringLiteral("/manifest.json"));
        QCOMPARE(j["dtype"], "DT_FLOAT");
        QCOMPARE(j["values"], m["tensors"][0]["values"]);

        Run limited = ckptRun({QStringLiteral("cat"), ckpt::testing::realTestData("tfx_estimator_ckpt1000"),
                               QStringLiteral("dnn/hiddenlayer_0/kernel"), QStringLiteral("--json"), QStringLiteral("--limit"),
                               QStringLiteral("5")});
        QCOMPARE(limited.exitCode, 0);
        const json l = json::parse(limited.out.toStdString());
        QCOMPARE(l["values"].size(), size_t{5});
        QCOMPARE(l["truncated"], true);

        Run missing =
            ckptRun({QStringLiteral("cat"), ckpt::testing::realTestData("serving_half_plus_three"), QStringLiteral("nope")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("no tensor \"nope\""));
    }

    void treeShowsSlotsAndKeys() {
        Run r = ckptRun({QStringLiteral("tree"), ckpt::testing::realTestData("tfx_tuner_save_weights")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("slot 'm' for (root).layer_with_weights-0.kernel"));
        QVERIFY(r.out.contains("DT_FLOAT [4, 8]"));
        QVERIFY(r.out.contains("alias of (root).layer_with_weights-0"));
        Run j =
            ckptRun({QStringLiteral("tree"), ckpt::testing::realTestData("t2t_transformer_2shards"), QStringLiteral("--json")});
        QCOMPARE(j.exitCode, 0);
        QCOMPARE(json::parse(j.out.toStdString())["style"], "name-based");
    }
};

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
