// ckpt stats / histogram / preview as scripts use them: JSON shapes of
// docs/cli.md, every real tensor previewed, exit codes for bad requests
// (2) and for a corrupt tensor (1, with the checksum error).

#include <QtTest>

#include "test_support.h"

using nlohmann::json;

namespace {

using Run = ckpt::testing::CliRun;
Run ckptRun(const QStringList& args) { return ckpt::testing::runCkpt(args); }

}  // namespace

class TstCliPreview : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (ckpt::testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
    }

    // `stats --all --json` for every real bundle; every tensor with numbers
    // also renders a PNG and a histogram.
    void everyRealTensor_data() {
        QTest::addColumn<QString>("dir");
        for (const QString& d : ckpt::testing::realBundleDirs()) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }
    void everyRealTensor() {
        QFETCH(QString, dir);
        const Run all = ckptRun({QStringLiteral("stats"), dir, QStringLiteral("--all"), QStringLiteral("--json"),
                                 QStringLiteral("--device"), QStringLiteral("cpu")});
        QVERIFY2(all.exitCode == 0, all.err.constData());
        const json j = json::parse(all.out.toStdString());
        QVERIFY(j["prefix"].is_string());
        QTemporaryDir tmp;
        int previewed = 0;
        for (const json& t : j["tensors"]) {
            if (t.contains("error")) {
                QCOMPARE(t["error"]["code"].get<std::string>(), std::string("Unimplemented"));
                continue;
            }
            for (const char* field : {"count", "finite", "zeros", "nan", "pos_inf", "neg_inf", "min", "max", "mean", "std",
                                      "absmax", "device", "values"}) {
                QVERIFY2(t.contains(field), field);
            }
            QCOMPARE(t["device"].get<std::string>(), std::string("cpu"));
            if (t["count"].get<int64_t>() == 0) continue;
            const QString key = QString::fromStdString(t["key"].get<std::string>());
            const QString png = tmp.filePath(QStringLiteral("t%1.png").arg(previewed++));
            const Run pr = ckptRun({QStringLiteral("preview"), dir, key, QStringLiteral("--png"), png, QStringLiteral("--json")});
            QVERIFY2(pr.exitCode == 0, pr.err.constData());
            QVERIFY(ckpt::testing::readAll(png).startsWith("\x89PNG"));
        }
        QVERIFY(previewed > 0);
    }

    void statsAndHistogramJson() {
        const QString dir = ckpt::testing::realTestData("tfx_keras_adam_savedmodel");
        const QString key = QStringLiteral("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE");
        const Run s = ckptRun({QStringLiteral("stats"), dir, key, QStringLiteral("--json")});
        QVERIFY2(s.exitCode == 0, s.err.constData());
        const json st = json::parse(s.out.toStdString());
        QCOMPARE(st["key"].get<std::string>(), key.toStdString());
        QCOMPARE(st["dtype"].get<std::string>(), std::string("DT_FLOAT"));
        const Run h = ckptRun(
            {QStringLiteral("histogram"), dir, key, QStringLiteral("--bins"), QStringLiteral("8"), QStringLiteral("--json")});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        const json hj = json::parse(h.out.toStdString());
        QCOMPARE(hj["counts"].size(), size_t{8});
        QCOMPARE(hj["edges"].size(), size_t{9});
        int64_t total = 0;
        for (const json& c : hj["counts"]) total += c.get<int64_t>();
        QCOMPARE(total, st["finite"].get<int64_t>());
        QCOMPARE(hj["lo"].get<double>(), st["min"].get<double>());
        const Run text = ckptRun({QStringLiteral("histogram"), dir, key, QStringLiteral("--log")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("(log scale)"));
        const Run v = ckptRun({QStringLiteral("stats"), dir, key, QStringLiteral("--verbose")});
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.err.contains("computed on"));
    }

    void badRequests_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("fragment");
        const QString dir = ckpt::testing::realTestData("tfx_keras_adam_savedmodel");
        const QString key = QStringLiteral("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE");
        const QString png = QStringLiteral("/tmp/ckpt-preview-never-written.png");
        QTest::newRow("slice index out of range") << QStringList{QStringLiteral("preview"),
                                                                 dir,
                                                                 key,
                                                                 QStringLiteral("--png"),
                                                                 png,
                                                                 QStringLiteral("--axes"),
                                                                 QStringLiteral("1,1"),
                                                                 QStringLiteral("--index"),
                                                                 QStringLiteral("0=99")}
                                                  << 2 << "";
        QTest::newRow("axis that does not exist")
            << QStringList{QStringLiteral("preview"), dir, key, QStringLiteral("--png"), png, QStringLiteral("--axes"),
                           QStringLiteral("0,7")}
            << 2 << "does not exist";
        QTest::newRow("size 0") << QStringList{QStringLiteral("preview"), dir, key,
                                               QStringLiteral("--png"),   png, QStringLiteral("--size"),
                                               QStringLiteral("0x10")}
                                << 2 << "at least 1x1";
        QTest::newRow("malformed size") << QStringList{QStringLiteral("preview"), dir, key,
                                                       QStringLiteral("--png"),   png, QStringLiteral("--size"),
                                                       QStringLiteral("big")}
                                        << 2 << "WxH";
        QTest::newRow("unknown colormap") << QStringList{QStringLiteral("preview"), dir, key,
                                                         QStringLiteral("--png"),   png, QStringLiteral("--colormap"),
                                                         QStringLiteral("jet")}
                                          << 2 << "unknown colormap";
        QTest::newRow("zero bins") << QStringList{QStringLiteral("histogram"), dir, key, QStringLiteral("--bins"),
                                                  QStringLiteral("0")}
                                   << 2 << "bins must be";
        QTest::newRow("unknown device") << QStringList{QStringLiteral("stats"), dir, key, QStringLiteral("--device"),
                                                       QStringLiteral("tpu")}
                                        << 2 << "";
        QTest::newRow("key and --all") << QStringList{QStringLiteral("stats"), dir, key, QStringLiteral("--all")} << 2
                                       << "either KEY or --all";
        QTest::newRow("unknown key") << QStringList{QStringLiteral("stats"), dir, QStringLiteral("no/such/key")} << 1 << "";
    }
    void badRequests() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, fragment);
        const Run r = ckptRun(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(fragment.toUtf8()), r.err.constData());
    }

    void corruptTensorRefused() {
        QTemporaryDir tmp;
        const QString dir = ckpt::testing::realTestData("tfx_estimator_ckpt1000");
        QVERIFY(ckpt::testing::copyDirectory(dir, tmp.path()));
        const json m = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
        const std::string prefix = ckpt::testing::manifestPrefix(tmp.path(), m);
        // Flip a byte inside the largest tensor (its region per inspect --json).
        const Run ins = ckptRun({QStringLiteral("inspect"), QString::fromStdString(prefix), QStringLiteral("--json")});
        QCOMPARE(ins.exitCode, 0);
        json best;
        const json listing = json::parse(ins.out.toStdString());
        for (const json& t : listing["tensors"]) {
            if (t["slices"].empty() && (best.is_null() || t["size"].get<int64_t>() > best["size"].get<int64_t>())) best = t;
        }
        QVERIFY(!best.is_null());
        const QString data =
            QString::fromStdString(prefix) + QStringLiteral(".data-%1-of-%2")
                                                 .arg(best["shard_id"].get<int>(), 5, 10, QLatin1Char('0'))
                                                 .arg(m["header"]["num_shards"].get<int>(), 5, 10, QLatin1Char('0'));
        QByteArray bytes = ckpt::testing::readAll(data);
        QVERIFY(!bytes.isEmpty());
        const qsizetype at = static_cast<qsizetype>(best["offset"].get<int64_t>() + 3);
        bytes[at] = static_cast<char>(bytes[at] ^ 0x10);
        QVERIFY(ckpt::testing::writeAll(data, bytes));
        const QString key = QString::fromStdString(best["key"].get<std::string>());
        for (const QString& cmd : {QStringLiteral("stats"), QStringLiteral("histogram")}) {
            const Run r = ckptRun({cmd, QString::fromStdString(prefix), key, QStringLiteral("--json")});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("checksum"), r.err.constData());
            QCOMPARE(json::parse(r.out.toStdString())["error"]["code"].get<std::string>(), std::string("DataLoss"));
        }
        const Run p = ckptRun({QStringLiteral("preview"), QString::fromStdString(prefix), key, QStringLiteral("--png"),
                               tmp.filePath(QStringLiteral("x.png"))});
        QCOMPARE(p.exitCode, 1);
        QVERIFY(p.err.contains("checksum"));
        const Run all =
            ckptRun({QStringLiteral("stats"), QString::fromStdString(prefix), QStringLiteral("--all"), QStringLiteral("--json")});
        QCOMPARE(all.exitCode, 1);
        QVERIFY(all.out.contains("DataLoss"));
    }
};

QTEST_GUILESS_MAIN(TstCliPreview)
#include "tst_cli_preview.moc"
