// ckpt retention plan|apply run as the real binary on real checkpoint
// directories: text and JSON output, apply's deletions, exit codes, and
// policy errors that name their field (docs/cli.md).

#include <QtTest>

#include "../engine/schedule/retention_fixture.h"
#include "test_support.h"

using nlohmann::json;
using namespace retention_test;

namespace {

using Run = ckpt::testing::CliRun;

QString q(const std::string& s) { return QString::fromStdString(s); }

// Five checkpoints of run-a a day apart, one foreign, one of run-b.
void fill(CheckpointDir& d) {
    for (int i = 1; i <= 5; ++i) d.save("ckpt-" + std::to_string(i), i * 10, kNow - (6 - i) * kDay);
    d.save("imported", 7, kNow - 9 * kDay, std::nullopt);
    d.save("other", 8, kNow - 8 * kDay, "run-b");
}

Run retention(const QStringList& args) { return ckpt::testing::runCkpt(QStringList{QStringLiteral("retention")} + args); }

const QString kAt = QString::number(static_cast<qint64>(kNow));

}  // namespace

class TstCliRetention : public QObject {
    Q_OBJECT
private slots:
    void planText() {
        CheckpointDir d;
        fill(d);
        const auto before = d.files();
        Run r = retention({QStringLiteral("plan"), q(d.dir()), QStringLiteral("--keep-latest"), QStringLiteral("2"),
                           QStringLiteral("--owner"), QStringLiteral("run-a"), QStringLiteral("--at"), kAt});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QStringLiteral("delete  ckpt-1 ")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("no rule keeps it")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("latest 2, newest complete")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("foreign: no metadata")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("owned by run-b")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("keep 2 (")) && out.contains(QStringLiteral("delete 3 (")) &&
                     out.contains(QStringLiteral("leave alone 2 (")),
                 qPrintable(out));
        QCOMPARE(d.files(), before);  // a plan deletes nothing
    }

    void planJson() {
        CheckpointDir d;
        fill(d);
        // 2026-11-24T12:00:00Z is kNow: the same plan as --at in seconds.
        Run r = retention({QStringLiteral("plan"), q(d.dir()), QStringLiteral("--keep-within"), QStringLiteral("50h"),
                           QStringLiteral("--owner"), QStringLiteral("run-a"), QStringLiteral("--at"),
                           QStringLiteral("2026-11-24T12:00:00Z"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["at"].get<double>(), kNow);
        QCOMPARE(j["policy"]["keep_within"].get<std::string>(), std::string("50h"));
        std::map<std::string, std::string> verdicts;
        for (const json& c : j["checkpoints"]) verdicts[c["name"].get<std::string>()] = c["verdict"].get<std::string>();
        QCOMPARE(verdicts["ckpt-5"], std::string("keep"));
        QCOMPARE(verdicts["ckpt-4"], std::string("keep"));  // two days old
        QCOMPARE(verdicts["ckpt-3"], std::string("delete"));
        QCOMPARE(verdicts["imported"], std::string("leave"));
        QCOMPARE(j["totals"]["deleted"].get<int>(), 3);
        QCOMPARE(j["checkpoints"][0]["name"].get<std::string>(), std::string("imported"));  // step 7: numeric order
    }

    void policyFileAndApply() {
        CheckpointDir d;
        fill(d);
        d.writeFile("policy.json", R"({"name": "nightly", "retention": {"keep_latest": 1, "keep_tags": ["release"]}})");
        d.writeFile("README", "not a checkpoint");
        Run r = retention({QStringLiteral("apply"), q(d.dir()), QStringLiteral("--policy"), q(d.dir() + "/policy.json"),
                           QStringLiteral("--owner"), QStringLiteral("run-a"), QStringLiteral("--at"), kAt,
                           QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["applied"]["deleted"].size(), size_t{4});
        QVERIFY(j["applied"]["bytes_freed"].get<uint64_t>() > 0);
        const auto files = d.files();
        for (int i = 1; i <= 4; ++i) QVERIFY(!files.count("ckpt-" + std::to_string(i) + ".index"));
        for (const char* f : {"ckpt-5.index", "imported.index", "other.index", "README", "policy.json"})
            QVERIFY2(files.count(f), f);
        // The text form says what it freed.
        Run again = retention({QStringLiteral("apply"), q(d.dir()), QStringLiteral("--keep-latest"), QStringLiteral("1"),
                               QStringLiteral("--owner"), QStringLiteral("run-a"), QStringLiteral("--adopt")});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.out.contains("deleted 1 checkpoint(s), freed"), again.out.constData());  // "imported", adopted
        QVERIFY(!d.files().count("imported.index"));
        QVERIFY(d.files().count("other.index"));
    }

    void nothingOwnedSaysSo() {
        CheckpointDir d;
        fill(d);
        Run r = retention({QStringLiteral("plan"), q(d.dir()), QStringLiteral("--keep-latest"), QStringLiteral("1")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("hint: pass --owner RUN"), r.out.constData());
        QVERIFY(r.out.contains("delete 0 ("));
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("unknown policy field")
            << QStringList{QStringLiteral("--policy"), QStringLiteral("@bad")} << 2 << R"(unknown field "keep_lastest")";
        QTest::newRow("no policy") << QStringList{} << 2 << "give a policy";
        QTest::newRow("policy and flags") << QStringList{QStringLiteral("--policy"), QStringLiteral("@bad"),
                                                         QStringLiteral("--keep-latest"), QStringLiteral("1")}
                                          << 2 << "cannot be combined";
        QTest::newRow("zero latest") << QStringList{QStringLiteral("--keep-latest"), QStringLiteral("0")} << 2
                                     << R"("keep_latest" must be at least 1)";
        QTest::newRow("bad duration") << QStringList{QStringLiteral("--keep-within"), QStringLiteral("soon")} << 2
                                      << R"(duration "soon")";
        QTest::newRow("bad best") << QStringList{QStringLiteral("--keep-best"), QStringLiteral("loss:x")} << 2
                                  << "the count must be a positive integer";
        QTest::newRow("bad time") << QStringList{QStringLiteral("--keep-latest"), QStringLiteral("1"), QStringLiteral("--at"),
                                                 QStringLiteral("yesterday")}
                                  << 2 << "--at yesterday";
        QTest::newRow("missing policy file")
            << QStringList{QStringLiteral("--policy"), QStringLiteral("/nonexistent/p.json")} << 2 << "cannot read policy file";
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, fragment);
        CheckpointDir d;
        fill(d);
        d.writeFile("bad.json", R"({"keep_lastest": 3})");
        args.replaceInStrings(QStringLiteral("@bad"), q(d.dir() + "/bad.json"));
        const auto before = d.files();
        Run r = retention(QStringList{QStringLiteral("apply"), q(d.dir())} + args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(r.err).contains(fragment), r.err.constData());
        QCOMPARE(d.files(), before);
        Run asJson = retention(QStringList{QStringLiteral("plan"), q(d.dir()), QStringLiteral("--json")} + args);
        QCOMPARE(asJson.exitCode, exitCode);
        const json j = json::parse(asJson.out.toStdString());
        QCOMPARE(j["ok"].get<bool>(), false);
        QVERIFY(QString::fromStdString(j["error"]["message"].get<std::string>()).contains(fragment));
    }

    // ckpt list shows what retention judges by: owner, tags, metrics.
    void listShowsMetadata() {
        CheckpointDir d;
        d.save("ckpt-1", 10, kNow - kDay, "run-a", {{"val_loss", 0.25}}, {"release"});
        d.save("imported", 7, kNow - 2 * kDay, std::nullopt);
        d.save("damaged", 20, kNow);
        d.writeFile("damaged.info.json", R"({"tags": "release"})");
        Run text = ckpt::testing::runCkpt({QStringLiteral("list"), q(d.dir())});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("owner run-a  tags release  val_loss=0.25"), text.out.constData());
        QVERIFY2(text.out.contains("METADATA: DataLoss"), text.out.constData());
        Run asJson = ckpt::testing::runCkpt({QStringLiteral("list"), q(d.dir()), QStringLiteral("--json")});
        QCOMPARE(asJson.exitCode, 0);
        const json j = json::parse(asJson.out.toStdString());
        QVERIFY(j["checkpoints"][0]["metadata"].is_null());  // imported, step 7
        QCOMPARE(j["checkpoints"][1]["metadata"]["owner"].get<std::string>(), std::string("run-a"));
        QCOMPARE(j["checkpoints"][1]["metadata"]["metrics"]["val_loss"].get<double>(), 0.25);
        QCOMPARE(j["checkpoints"][1]["metadata"]["tags"][0].get<std::string>(), std::string("release"));
        QVERIFY(QString::fromStdString(j["checkpoints"][2]["metadata_error"].get<std::string>())
                    .contains(QStringLiteral("\"tags\"")));
    }

    void missingDirectory() {
        Run r = retention(
            {QStringLiteral("plan"), QStringLiteral("/nonexistent/runs"), QStringLiteral("--keep-latest"), QStringLiteral("1")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("NotFound"));
    }
};

QTEST_GUILESS_MAIN(TstCliRetention)
#include "tst_cli_retention.moc"
