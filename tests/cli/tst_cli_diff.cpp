// `ckpt diff` and `ckpt history` as scripts use them: exit codes (0 equal,
// 1 different, 2 trouble), the JSON shapes of docs/cli.md, --name-status
// and --csv, on a demo run and on the real corpus.

#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"

using nlohmann::json;

namespace {

using Run = ckpt::testing::CliRun;
Run ckptRun(const QStringList& args) { return ckpt::testing::runCkpt(args); }

}  // namespace

class TstCliDiff : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString run() const { return m_dir.filePath(QStringLiteral("run")); }
    QString ckptAt(int n) const { return run() + QStringLiteral("/ckpt-") + QString::number(n); }

private slots:
    void initTestCase() {
        const Run r = ckptRun({QStringLiteral("demo-train"), run()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void selfDiffIsEqual() {
        const Run r = ckptRun({QStringLiteral("diff"), ckptAt(5), ckptAt(5), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QVERIFY(j["equal"].get<bool>());
        QCOMPARE(j["paired_by"].get<std::string>(), std::string("object_path"));
        QCOMPARE(j["bytes_read"].get<int64_t>(), 0);
        QVERIFY(j["entries"].empty());  // unchanged rows only with --all
        const Run quiet = ckptRun({QStringLiteral("diff"), QStringLiteral("-q"), ckptAt(5), ckptAt(5)});
        QCOMPARE(quiet.exitCode, 0);
        QVERIFY(quiet.out.isEmpty());
    }

    void differencesExitOneWithFigures() {
        const Run r = ckptRun({QStringLiteral("diff"), ckptAt(1), ckptAt(2), QStringLiteral("--json"), QStringLiteral("--all")});
        QCOMPARE(r.exitCode, 1);
        const json j = json::parse(r.out.toStdString());
        QVERIFY(!j["equal"].get<bool>());
        bool sawKernel = false;
        for (const json& e : j["entries"]) {
            QVERIFY(e.contains("status") && e.contains("path") && e.contains("a") && e.contains("b"));
            if (e["path"] == "(root).model.layer_with_weights-0.kernel") {
                sawKernel = true;
                QCOMPARE(e["status"].get<std::string>(), std::string("M"));
                const json& v = e["values"];
                QVERIFY(v["mismatches"].get<int64_t>() > 0);
                QVERIFY(v["rel_l2"].get<double>() > 0);
                QCOMPARE(v["max_abs_index"].size(), size_t{2});  // [row, column]
                QVERIFY(!v["first_mismatches"].empty());
            }
        }
        QVERIFY(sawKernel);
        const Run names = ckptRun({QStringLiteral("diff"), QStringLiteral("--name-status"), ckptAt(1), ckptAt(2)});
        QCOMPARE(names.exitCode, 1);
        QVERIFY(names.out.contains("M\t(root).model.layer_with_weights-0.kernel\n"));
    }

    void frozenLayerIsUnchangedInTheFineTune() {
        // The demo freezes layer 0 halfway: between its last two checkpoints
        // only layer 1 (and the counters) move.
        const Run r =
            ckptRun({QStringLiteral("diff"), ckptAt(4), ckptAt(5), QStringLiteral("--weights-only"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const json j = json::parse(r.out.toStdString());
        for (const json& e : j["entries"])
            QVERIFY2(e["path"].get<std::string>().find("layer_with_weights-0") == std::string::npos, e.dump().c_str());
        QVERIFY(j["counts"]["modified"].get<int64_t>() >= 2);
    }

    void troubleExitsTwoNamingTheSide() {
        const Run r = ckptRun({QStringLiteral("diff"), ckptAt(1), m_dir.filePath(QStringLiteral("missing"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("B ("), r.err.constData());
        const Run usage = ckptRun({QStringLiteral("diff"), ckptAt(1)});
        QCOMPARE(usage.exitCode, 2);
    }

    void historyOfTheRun() {
        const Run r = ckptRun({QStringLiteral("history"), run(), QStringLiteral("--json"), QStringLiteral("--weights-only")});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["checkpoints"].size(), size_t{5});
        QCOMPARE(j["variables"].size(), size_t{4});  // 2 kernels, 2 biases
        for (const json& v : j["variables"]) QCOMPARE(v["points"].size(), size_t{5});
        QCOMPARE(j["summary"]["global_norm"].size(), size_t{5});
        const Run csv = ckptRun({QStringLiteral("history"), run(), QStringLiteral("--csv"), QStringLiteral("--keys"),
                                 QStringLiteral("(root).model.layer_with_weights-1.kernel")});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY(csv.out.startsWith("path,key,checkpoint,step,present,unchanged,norm,rel_change"));
        QCOMPARE(csv.out.count('\n'), 1 + 5);
    }

    void historyNeedsTwoCheckpoints() {
        const Run r = ckptRun({QStringLiteral("history"), ckptAt(5)});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("two or more"));
    }

    void realCheckpoints() {
        if (ckpt::testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
        // A sharded name-based bundle against itself: equal from checksums.
        const Run self = ckptRun({QStringLiteral("diff"), ckpt::testing::realTestData("t2t_transformer_2shards"),
                                  ckpt::testing::realTestData("t2t_transformer_2shards"), QStringLiteral("--json")});
        QCOMPARE(self.exitCode, 0);
        QVERIFY(json::parse(self.out.toStdString())["equal"].get<bool>());
        // Two unrelated models, one name-based: paired by key, exit 1.
        const Run mixed = ckptRun({QStringLiteral("diff"), ckpt::testing::realTestData("tfx_estimator_ckpt1000"),
                                   ckpt::testing::realTestData("tfx_keras_adam_savedmodel"), QStringLiteral("--json")});
        QCOMPARE(mixed.exitCode, 1);
        const json j = json::parse(mixed.out.toStdString());
        QCOMPARE(j["paired_by"].get<std::string>(), std::string("checkpoint_key"));
        QVERIFY(j["counts"]["added"].get<int64_t>() > 0 && j["counts"]["deleted"].get<int64_t>() > 0);
    }
};

QTEST_GUILESS_MAIN(TstCliDiff)
#include "tst_cli_diff.moc"
