// `ckpt restore` and `ckpt spec` as scripts use them: exit codes, the
// requested assertion, JSON report fields, --out, spec export and bad input.

#include <QTemporaryDir>
#include <QtTest>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "test_support.h"

using nlohmann::json;

namespace {

using Run = ckpt::testing::CliRun;
Run ckptRun(const QStringList& args) { return ckpt::testing::runCkpt(args); }

// Drops the root's edge to its child 'name' (the object stays, unreachable).
void dropRootChild(json& spec, const std::string& name) {
    json& children = spec["objects"][0]["children"];
    for (size_t i = 0; i < children.size(); ++i)
        if (children[i]["name"] == name) {
            children.erase(i);
            return;
        }
}

}  // namespace

class TstCliRestore : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase() {
        if (ckpt::testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
        QVERIFY(m_dir.isValid());
    }

    void intoItself_data() {
        QTest::addColumn<QString>("dir");
        for (const QString& d : ckpt::testing::realBundleDirs()) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }
    void intoItself() {
        QFETCH(QString, dir);
        const QString spec = m_dir.filePath(QFileInfo(dir).fileName() + QStringLiteral(".json"));
        const Run s = ckptRun({QStringLiteral("spec"), dir});
        QCOMPARE(s.exitCode, 0);
        QVERIFY(ckpt::testing::writeAll(spec, s.out));
        for (const QString& target : {dir, spec}) {
            const Run r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), target, QStringLiteral("--assert"),
                                   QStringLiteral("consumed"), QStringLiteral("--json")});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const json j = json::parse(r.out.toStdString());
            QCOMPARE(j["ok"], true);
            QCOMPARE(j["assertions"]["assert_nontrivial_match"]["passed"], true);
            QCOMPARE(j["summary"]["unresolved_nodes"], 0);
        }
    }

    void removedLayerFailsConsumed() {
        const QString dir = ckpt::testing::realTestData("tfx_tuner_save_weights");
        Run s = ckptRun({QStringLiteral("spec"), dir});
        QCOMPARE(s.exitCode, 0);
        json spec = json::parse(s.out.toStdString());
        dropRootChild(spec, "optimizer");
        const QString path = m_dir.filePath(QStringLiteral("no_optimizer.json"));
        QVERIFY(ckpt::testing::writeAll(path, QByteArray::fromStdString(spec.dump())));
        Run r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), path, QStringLiteral("--assert"),
                         QStringLiteral("consumed")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("FailedPrecondition: Unresolved object in checkpoint (root).optimizer.iter"), r.err.constData());
        QVERIFY(r.out.contains("warning: Value in checkpoint could not be found in the restored object: (root).optimizer.iter"));
        r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), path, QStringLiteral("--assert"),
                     QStringLiteral("existing"), QStringLiteral("--expect-partial")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.out.contains("warning:"));
    }

    // --out into a spec without the optimizer and with a new variable: the
    // written checkpoint passes `ckpt verify`, the matched values are the
    // source's bytes, and the new variable keeps its initial value.
    void outWritesRestoredTarget() {
        const QString dir = ckpt::testing::realTestData("tfx_tuner_save_weights");
        Run s = ckptRun({QStringLiteral("spec"), dir});
        QCOMPARE(s.exitCode, 0);
        json spec = json::parse(s.out.toStdString());
        dropRootChild(spec, "optimizer");
        int nextId = 0;
        for (const json& o : spec["objects"]) nextId = std::max(nextId, o["id"].get<int>() + 1);
        spec["objects"].push_back({{"id", nextId},
                                   {"kind", "variable"},
                                   {"dtype", "float32"},
                                   {"shape", {2}},
                                   {"initial_value", {1.5, -2.5}},
                                   {"children", json::array()}});
        spec["objects"][0]["children"].push_back({{"name", "extra"}, {"id", nextId}});
        const QString specPath = m_dir.filePath(QStringLiteral("out_spec.json"));
        QVERIFY(ckpt::testing::writeAll(specPath, QByteArray::fromStdString(spec.dump())));

        // consumed fails (optimizer values unused, extra unbound): nothing is written.
        const QString refused = m_dir.filePath(QStringLiteral("refused/ckpt"));
        Run r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), specPath, QStringLiteral("--assert"),
                         QStringLiteral("consumed"), QStringLiteral("--out"), refused, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        json j = json::parse(r.out.toStdString());
        QCOMPARE(j["out"]["written"], false);
        QVERIFY(j["out"]["skipped"].is_string());
        QVERIFY(!QFileInfo::exists(refused + QStringLiteral(".index")));
        // --force writes it anyway; the failed assertion still exits 1.
        r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), specPath, QStringLiteral("--assert"),
                     QStringLiteral("consumed"), QStringLiteral("--out"), refused, QStringLiteral("--force")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("verify: ok"), r.out.constData());
        QVERIFY(QFileInfo::exists(refused + QStringLiteral(".index")));

        const QString outPrefix = m_dir.filePath(QStringLiteral("restored/ckpt"));
        r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), specPath, QStringLiteral("--assert"),
                     QStringLiteral("nontrivial"), QStringLiteral("--expect-partial"), QStringLiteral("--out"), outPrefix,
                     QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        j = json::parse(r.out.toStdString());
        QCOMPARE(j["out"]["written"], true);
        QCOMPARE(j["out"]["prefix"], outPrefix.toStdString());
        QCOMPARE(j["out"]["verify"]["ok"], true);
        QVERIFY(j["out"]["verify"]["tensors_checked"].get<int>() > 0);
        const Run v = ckptRun({QStringLiteral("verify"), outPrefix});
        QVERIFY2(v.exitCode == 0, (v.out + v.err).constData());

        auto src = ckpt::Checkpoint::open(dir.toStdString());
        QVERIFY2(src.ok(), src.status().toString().c_str());
        auto out = ckpt::BundleReader::open(outPrefix.toStdString());
        QVERIFY2(out.ok(), out.status().toString().c_str());
        int compared = 0;
        bool sawExtra = false;
        for (const ckpt::TensorInfo& t : (*out)->tensors()) {
            if (t.key == "_CHECKPOINTABLE_OBJECT_GRAPH") continue;
            QVERIFY2(t.key.rfind("optimizer/", 0) != 0, t.key.c_str());
            auto ours = (*out)->read(t);
            QVERIFY2(ours.ok(), ours.status().toString().c_str());
            if (t.key == "extra/.ATTRIBUTES/VARIABLE_VALUE") {
                sawExtra = true;
                QCOMPARE(ours->as<float>().size(), size_t(2));
                QCOMPARE(ours->as<float>()[0], 1.5f);
                QCOMPARE(ours->as<float>()[1], -2.5f);
                continue;
            }
            auto theirs = (*src)->bundle().read(t.key);
            QVERIFY2(theirs.ok(), theirs.status().toString().c_str());
            QVERIFY2(ours->bytes == theirs->bytes && ours->strings == theirs->strings, t.key.c_str());
            ++compared;
        }
        QVERIFY(sawExtra);
        QVERIFY(compared > 0);
    }

    void outNeedsValues() {
        const QString dir = ckpt::testing::realTestData("tfx_tuner_save_weights");
        const Run r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), dir, QStringLiteral("--match-only"),
                               QStringLiteral("--out"), m_dir.filePath(QStringLiteral("never/ckpt"))});
        QCOMPARE(r.exitCode, 2);
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("fragment");
        QTest::newRow("malformed spec") << QStringList{}
                                        << QByteArray(R"({"objects": [{"id": 0, "children": [{"name": "a", "id": 4}]}]})") << 2
                                        << QByteArray("$.objects[0].children[0].id: no object with id 4");
        QTest::newRow("map without =") << QStringList{QStringLiteral("--map"), QStringLiteral("encoder")} << QByteArray() << 2
                                       << QByteArray("is not OLD=NEW");
        QTest::newRow("colliding map") << QStringList{QStringLiteral("--map"), QStringLiteral("layer-0=layer-1")} << QByteArray()
                                       << 2 << QByteArray("both restore into \"layer-1\"");
        QTest::newRow("unknown assertion") << QStringList{QStringLiteral("--assert"), QStringLiteral("everything")}
                                           << QByteArray() << 2 << QByteArray("everything");
    }
    void badInput() {
        QFETCH(QStringList, extra);
        QFETCH(QByteArray, spec);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, fragment);
        const QString dir = ckpt::testing::realTestData("tfx_tuner_save_weights");
        QString target = dir;
        if (!spec.isEmpty()) {
            target = m_dir.filePath(QStringLiteral("bad.json"));
            QVERIFY(ckpt::testing::writeAll(target, spec));
        }
        const Run r = ckptRun(QStringList{QStringLiteral("restore"), dir, QStringLiteral("--into"), target} + extra);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(fragment), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstCliRestore)
#include "tst_cli_restore.moc"
