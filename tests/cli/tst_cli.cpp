// The ckpt CLI as scripts use it: JSON shapes of docs/cli.md, exit codes
// (0 ok, 1 checkpoint problem, 2 usage), one line per verify problem.

#include <QTemporaryDir>
#include <QtTest>

#include "ckpt/bundle_writer.h"
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
        // One precise line per damaged tensor; then the state file TensorFlow
        // left, which still names model.ckpt-0 and -999 (not shipped).
        const QList<QByteArray> lines = bad.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        for (const QByteArray& line : lines.mid(0, 2)) {
            QVERIFY2(line.startsWith("DataLoss: checksum mismatch for"), line.constData());
            QVERIFY(line.contains("model.ckpt-1000.data-00000-of-00001"));
        }
        for (const QByteArray& line : lines.mid(2))
            QVERIFY2(line.startsWith("DataLoss: the state file") && line.contains("which has no index"), line.constData());
        Run badJson = ckptRun({QStringLiteral("verify"), tmp.path(), QStringLiteral("--json")});
        QCOMPARE(badJson.exitCode, 1);
        const json j = json::parse(badJson.out.toStdString());
        QCOMPARE(j["ok"], false);
        QCOMPARE(j["problems"].size(), size_t{4});

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

    // String elements round-trip: UTF-8 as text, anything else as base64,
    // so the byte 0x80 and the four characters \x80 never print alike.
    void catStringsRoundTrip() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("strings")).toStdString();
        ckpt::Tensor t;
        t.dtype = ckpt::DataType::String;
        t.strings = {
            "\x80",      "\\x80", "", "caf\xc3\xa9", std::string("\0nul", 4), "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
            "ab\xe2\x82"};
        t.shape.dims = {static_cast<int64_t>(t.strings.size())};
        {
            auto w = ckpt::BundleWriter::create(prefix);
            QVERIFY(w.ok());
            QVERIFY((*w)->add("s", t).isOk());
            QVERIFY((*w)->finish().isOk());
        }
        const Run r =
            ckptRun({QStringLiteral("cat"), QString::fromStdString(prefix), QStringLiteral("s"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const json values = json::parse(r.out.toStdString())["values"];
        const json expected = json::array({{{"base64", "gA=="}},
                                           "\\x80",
                                           "",
                                           "caf\u00e9",
                                           std::string("\0nul", 4),
                                           {{"base64", "wIA="}},
                                           {{"base64", "7aCA"}},
                                           {{"base64", "9JCAgA=="}},
                                           {{"base64", "YWLigg=="}}});
        QCOMPARE(values.dump(), expected.dump());
    }

    // A repeatable option takes one value per occurrence: before the paths
    // (`--weights 1,3 DST SRC SRC`, `--weights=1,3 ...`) it must not read
    // DST and the sources as more weights (CLI11's default did: exit 2).
    void repeatableOptionBeforePositionals() {
        QTemporaryDir tmp;
        const QString src = ckpt::testing::realTestData("tfx_tuner_save_weights");
        const QList<QStringList> spellings = {
            {QStringLiteral("--weights"), QStringLiteral("1,3")},
            {QStringLiteral("--weights=1,3")},
            {QStringLiteral("--weights"), QStringLiteral("1"), QStringLiteral("--weights"), QStringLiteral("3")}};
        for (int i = 0; i < spellings.size(); ++i) {
            const QString dst = tmp.filePath(QStringLiteral("avg-%1").arg(i));
            const Run r = ckptRun(QStringList{QStringLiteral("merge"), QStringLiteral("--average")} + spellings[i] +
                                  QStringList{dst, src, src, QStringLiteral("--json")});
            QVERIFY2(r.exitCode == 0, (spellings[i].join(u' ') + QStringLiteral(": ") + QString::fromUtf8(r.err)).toUtf8());
            const json j = json::parse(r.out.toStdString());
            QCOMPARE(j["sources"].size(), size_t(2));
            QVERIFY2(j["notes"][0].get<std::string>().find("weights 0.25,0.75") != std::string::npos, r.out.constData());
        }
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
