// `ckpt restore` and `ckpt spec` as scripts use them: exit codes, the
// requested assertion, JSON report fields, spec export and bad input.

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"

using nlohmann::json;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run ckptRun(const QStringList& args) {
    QProcess p;
    p.start(ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"), args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

} // namespace

class TstCliRestore : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString real(const char* name) { return ckpt::testing::realTestDataDir() + QLatin1Char('/') + QLatin1String(name); }

private slots:
    void initTestCase() {
        if (ckpt::testing::realTestDataDir().isEmpty()) QSKIP(ckpt::testing::missingCorpusMessage());
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
        const QString dir = real("tfx_tuner_save_weights");
        Run s = ckptRun({QStringLiteral("spec"), dir});
        QCOMPARE(s.exitCode, 0);
        json spec = json::parse(s.out.toStdString());
        // Drop the optimizer edge from the root.
        json& children = spec["objects"][0]["children"];
        for (size_t i = 0; i < children.size(); ++i)
            if (children[i]["name"] == "optimizer") {
                children.erase(i);
                break;
            }
        const QString path = m_dir.filePath(QStringLiteral("no_optimizer.json"));
        QVERIFY(ckpt::testing::writeAll(path, QByteArray::fromStdString(spec.dump())));
        Run r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), path, QStringLiteral("--assert"), QStringLiteral("consumed")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("FailedPrecondition: Unresolved object in checkpoint (root).optimizer.iter"), r.err.constData());
        QVERIFY(r.out.contains("warning: Value in checkpoint could not be found in the restored object: (root).optimizer.iter"));
        r = ckptRun({QStringLiteral("restore"), dir, QStringLiteral("--into"), path, QStringLiteral("--assert"), QStringLiteral("existing"),
                     QStringLiteral("--expect-partial")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.out.contains("warning:"));
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("fragment");
        QTest::newRow("malformed spec") << QStringList{} << QByteArray(R"({"objects": [{"id": 0, "children": [{"name": "a", "id": 4}]}]})")
                                        << 2 << QByteArray("$.objects[0].children[0].id: no object with id 4");
        QTest::newRow("map without =") << QStringList{QStringLiteral("--map"), QStringLiteral("encoder")} << QByteArray()
                                       << 2 << QByteArray("is not OLD=NEW");
        QTest::newRow("colliding map") << QStringList{QStringLiteral("--map"), QStringLiteral("layer-0=layer-1")} << QByteArray()
                                       << 2 << QByteArray("both restore into \"layer-1\"");
        QTest::newRow("unknown assertion") << QStringList{QStringLiteral("--assert"), QStringLiteral("everything")} << QByteArray()
                                           << 2 << QByteArray("everything");
    }
    void badInput() {
        QFETCH(QStringList, extra);
        QFETCH(QByteArray, spec);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, fragment);
        const QString dir = real("tfx_tuner_save_weights");
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
