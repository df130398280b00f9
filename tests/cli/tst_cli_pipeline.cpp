// The save-side commands: demo-train, latest, list, reshard (docs/cli.md).

#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"

using nlohmann::json;

namespace {

using Run = ckpt::testing::CliRun;
Run ckptCli(const QStringList& args) { return ckpt::testing::runCkpt(args); }

}  // namespace

class TstCliPipeline : public QObject {
    Q_OBJECT
private slots:
    void demoTrainListLatestReshard() {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("demo"));
        Run train = ckptCli({QStringLiteral("demo-train"), dir, QStringLiteral("--steps"), QStringLiteral("60"),
                             QStringLiteral("--save-every"), QStringLiteral("20"), QStringLiteral("--max-to-keep"),
                             QStringLiteral("2"), QStringLiteral("--json")});
        QCOMPARE(train.exitCode, 0);
        const json t = json::parse(train.out.toStdString());
        QVERIFY(t["final_loss"].get<double>() < t["first_loss"].get<double>());
        QCOMPARE(t["saves"].size(), size_t{3});

        Run latest = ckptCli({QStringLiteral("latest"), dir});
        QCOMPARE(latest.exitCode, 0);
        QCOMPARE(latest.out.trimmed(), (dir + QStringLiteral("/ckpt-3")).toUtf8());

        Run list = ckptCli({QStringLiteral("list"), dir, QStringLiteral("--json")});
        QCOMPARE(list.exitCode, 0);
        const json l = json::parse(list.out.toStdString());
        QCOMPARE(l["checkpoints"].size(), size_t{2});  // max-to-keep 2
        QCOMPARE(l["checkpoints"][1]["latest"].get<bool>(), true);
        // ckpt-2 was the second save, at training step 40 (the demo stores `step`).
        QCOMPARE(l["checkpoints"][0]["number"].get<int>(), 2);
        QCOMPARE(l["checkpoints"][0]["step"].get<int>(), 40);
        QCOMPARE(l["checkpoints"][0]["step_source"].get<std::string>(), std::string("step/.ATTRIBUTES/VARIABLE_VALUE"));
        QCOMPARE(l["checkpoints"][0]["tensors"].get<int>(), 20);

        const QString dst = tmp.filePath(QStringLiteral("resharded/ckpt-3"));
        Run reshard = ckptCli(
            {QStringLiteral("reshard"), dir, dst, QStringLiteral("--shards"), QStringLiteral("3"), QStringLiteral("--json")});
        QCOMPARE(reshard.exitCode, 0);
        QCOMPARE(json::parse(reshard.out.toStdString())["shards"].get<int>(), 3);
        Run verify = ckptCli({QStringLiteral("verify"), dst});
        QCOMPARE(verify.exitCode, 0);

        Run usage = ckptCli({QStringLiteral("reshard"), dir, dst});
        QCOMPARE(usage.exitCode, 2);
        Run none = ckptCli({QStringLiteral("latest"), tmp.path()});
        QCOMPARE(none.exitCode, 1);
    }
};

QTEST_GUILESS_MAIN(TstCliPipeline)
#include "tst_cli_pipeline.moc"
