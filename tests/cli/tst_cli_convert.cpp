// ckpt export / ckpt import as users run them (docs/cli.md): format from
// the extension, exit codes, refused destinations, --overwrite, JSON, and a
// round trip of a demo run through both formats back into a checkpoint
// whose values equal the source's. TensorFlow's side: tst_convert_interop.

#include <QTemporaryDir>
#include <QtTest>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "test_support.h"

using nlohmann::json;
using Run = ckpt::testing::CliRun;

class TstCliConvert : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_demo;

    QString path(const QString& name) const { return m_tmp.filePath(name); }
    static Run ckptCli(const QStringList& args) { return ckpt::testing::runCkpt(args); }

private slots:
    void initTestCase() {
        m_demo = path(QStringLiteral("demo"));
        Run train = ckptCli({QStringLiteral("demo-train"), m_demo, QStringLiteral("--steps"), QStringLiteral("20"),
                             QStringLiteral("--save-every"), QStringLiteral("10")});
        QCOMPARE(train.exitCode, 0);
    }

    void formatAndDestinations() {
        Run unknown = ckptCli({QStringLiteral("export"), m_demo, path(QStringLiteral("model.bin"))});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("--format"));
        Run inside = ckptCli({QStringLiteral("export"), m_demo, m_demo + QStringLiteral("/model.safetensors")});
        QCOMPARE(inside.exitCode, 2);
        QVERIFY2(inside.err.contains("inside a source"), inside.err.constData());

        const QString out = path(QStringLiteral("model.bin"));
        Run first = ckptCli(
            {QStringLiteral("export"), m_demo, out, QStringLiteral("--format"), QStringLiteral("npz"), QStringLiteral("--json")});
        QCOMPARE(first.exitCode, 0);
        const json j = json::parse(first.out.toStdString());
        QCOMPARE(j["format"], "npz");
        QVERIFY(j["tensors"].get<int>() > 0);
        Run again = ckptCli(
            {QStringLiteral("export"), m_demo, out, QStringLiteral("--format"), QStringLiteral("npz"), QStringLiteral("--json")});
        QCOMPARE(again.exitCode, 1);
        QCOMPARE(json::parse(again.out.toStdString())["error"]["code"], "AlreadyExists");
        Run replaced = ckptCli({QStringLiteral("export"), m_demo, out, QStringLiteral("--format"), QStringLiteral("npz"),
                                QStringLiteral("--overwrite")});
        QCOMPARE(replaced.exitCode, 0);
    }

    void roundTrip_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("names");
        QTest::newRow("safetensors by object path") << QStringLiteral("rt.safetensors") << QStringLiteral("paths");
        QTest::newRow("npz by key") << QStringLiteral("rt.npz") << QStringLiteral("keys");
    }
    void roundTrip() {
        QFETCH(QString, file);
        QFETCH(QString, names);
        Run ex = ckptCli({QStringLiteral("export"), m_demo, path(file), QStringLiteral("--names"), names});
        QVERIFY2(ex.exitCode == 0, ex.err.constData());
        QVERIFY(ex.out.contains("read back and identical"));
        Run spec = ckptCli({QStringLiteral("spec"), m_demo});
        QCOMPARE(spec.exitCode, 0);
        QVERIFY(ckpt::testing::writeAll(path(QStringLiteral("spec.json")), spec.out));
        const QString dst = path(file + QStringLiteral("_ckpt/ckpt"));
        Run im = ckptCli({QStringLiteral("import"), path(file), dst, QStringLiteral("--spec"), path(QStringLiteral("spec.json")),
                          QStringLiteral("--json")});
        QVERIFY2(im.exitCode == 0, im.err.constData());
        QCOMPARE(json::parse(im.out.toStdString())["ok"], true);
        auto src = ckpt::Checkpoint::open(m_demo.toStdString());
        auto back = ckpt::BundleReader::open(dst.toStdString());
        QVERIFY(src.ok() && back.ok());
        for (const ckpt::TensorInfo& t : (*src)->bundle().tensors()) {
            if (t.key == ckpt::kObjectGraphKey) continue;
            auto a = (*src)->bundle().read(t);
            auto b = (*back)->read(t.key);
            QVERIFY2(a.ok() && b.ok() && a->bytes == b->bytes, t.key.c_str());
        }
        // The destination is now taken; the input is never a destination.
        Run twice =
            ckptCli({QStringLiteral("import"), path(file), dst, QStringLiteral("--spec"), path(QStringLiteral("spec.json"))});
        QCOMPARE(twice.exitCode, 1);
        Run onto = ckptCli(
            {QStringLiteral("import"), path(file), path(file), QStringLiteral("--spec"), path(QStringLiteral("spec.json"))});
        QCOMPARE(onto.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TstCliConvert)
#include "tst_cli_convert.moc"
