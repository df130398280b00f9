// Interop: ckpt export / ckpt import with TensorFlow, numpy and safetensors
// as the judges (tests/interop/convert_check.py, run with $CKPT_PYTHON).
// Checkpoints TensorFlow writes (a trained model with a v1 Adam's slots, one
// variable per dtype) and the real corpus are exported by the CLI in both
// formats and both namings; safetensors.numpy.load_file and numpy.load must
// read every file with values equal to tf.train.load_checkpoint's, bit for
// bit, and the crc32c the metadata carries. Then files Python writes
// (save_file by object path, np.savez_compressed by key) are imported with a
// spec from `ckpt spec`, and TensorFlow restores the results with
// assert_consumed(). A checkpoint TensorFlow writes with local names that
// read as paths out of a directory exports with every name kept inside it
// (issue #29, finding 6): numpy, safetensors and zipfile's extraction judge.

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "test_support.h"

using nlohmann::json;

namespace {

// 'log' gets the merged output; false on a timeout or a non-zero exit.
bool runPython(const QString& mode, const QString& dir, QByteArray& log) {
    QProcess py;
    py.setProcessChannelMode(QProcess::MergedChannels);
    py.start(qEnvironmentVariable("CKPT_PYTHON"),
             {ckpt::testing::sourceDir() + QStringLiteral("/tests/interop/convert_check.py"), mode, dir});
    const bool finished = py.waitForFinished(600000);
    log = py.readAll();
    return finished && py.exitStatus() == QProcess::NormalExit && py.exitCode() == 0;
}

QString cliLog(const ckpt::testing::CliRun& r) { return QString::fromUtf8(r.out + r.err); }

}  // namespace

class TstConvertInterop : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase() {
        if (qEnvironmentVariable("CKPT_PYTHON").isEmpty())
            CKPT_MISSING_PYTHON(
                "CKPT_PYTHON is not set: these checks need a Python with tensorflow, numpy and safetensors "
                "(scripts/test.sh sets it; locally e.g. CKPT_PYTHON=/work/main/.venv/bin/python)");
        QVERIFY(m_dir.isValid());
        QByteArray log;
        QVERIFY2(runPython(QStringLiteral("make"), m_dir.path(), log), log.right(4000).constData());
    }

    void exportsReadByNumpyAndSafetensors() {
        json exports = json::array();
        auto exportOne = [&](const QString& prefix, const QString& file, const QString& format, const QString& names,
                             bool weightsOnly) {
            QStringList args{QStringLiteral("export"),  prefix, path(file),
                             QStringLiteral("--names"), names,  QStringLiteral("--skip-unsupported")};
            if (weightsOnly) args << QStringLiteral("--weights-only");
            const auto run = ckpt::testing::runCkpt(args);
            if (run.exitCode != 0) return cliLog(run);
            exports.push_back({{"file", path(file).toStdString()},
                               {"prefix", prefix.toStdString()},
                               {"format", format.toStdString()},
                               {"names", names.toStdString()},
                               {"weights_only", weightsOnly}});
            return QString();
        };
        for (const QString& ckpt : {QStringLiteral("train"), QStringLiteral("dtypes")})
            for (const QString& format : {QStringLiteral("safetensors"), QStringLiteral("npz")})
                for (const QString& names : {QStringLiteral("paths"), QStringLiteral("keys")}) {
                    const QString file = ckpt + QLatin1Char('_') + names + QLatin1Char('.') + format;
                    QCOMPARE(exportOne(path(ckpt + QStringLiteral("/ckpt")), file, format, names, false), QString());
                }
        QCOMPARE(exportOne(path(QStringLiteral("train/ckpt")), QStringLiteral("train_weights.npz"), QStringLiteral("npz"),
                           QStringLiteral("paths"), true),
                 QString());
        // Names that would leave a directory: the values still equal TF's.
        for (const QString& format : {QStringLiteral("safetensors"), QStringLiteral("npz")})
            QCOMPARE(exportOne(path(QStringLiteral("hostile/ckpt")), QStringLiteral("hostile.") + format, format,
                               QStringLiteral("paths"), false),
                     QString());
        // The real corpus, exported the same way.
        const QStringList real = ckpt::testing::realBundleDirs();
        if (real.isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& dir : real) {
            const json manifest = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
            const QString prefix = QString::fromStdString(ckpt::testing::manifestPrefix(dir, manifest));
            const QString name = QStringLiteral("real_") + QFileInfo(dir).fileName();
            QCOMPARE(exportOne(prefix, name + QStringLiteral(".safetensors"), QStringLiteral("safetensors"),
                               QStringLiteral("paths"), false),
                     QString());
            QCOMPARE(exportOne(prefix, name + QStringLiteral(".npz"), QStringLiteral("npz"), QStringLiteral("keys"), false),
                     QString());
        }
        QVERIFY(ckpt::testing::writeAll(path(QStringLiteral("exports.json")), QByteArray::fromStdString(exports.dump(1))));
        QByteArray log;
        QVERIFY2(runPython(QStringLiteral("check-export"), m_dir.path(), log), log.right(4000).constData());
        QCOMPARE(log.count("\nok ") + (log.startsWith("ok ") ? 1 : 0), static_cast<qsizetype>(exports.size()));
    }

    void importsRestoredByTensorFlow() {
        // check-export ran first: make-import names arrays by its object paths.
        QByteArray log;
        QVERIFY2(runPython(QStringLiteral("make-import"), m_dir.path(), log), log.right(4000).constData());
        const auto spec = ckpt::testing::runCkpt({QStringLiteral("spec"), path(QStringLiteral("train/ckpt"))});
        QVERIFY2(spec.exitCode == 0, qPrintable(cliLog(spec)));
        QVERIFY(ckpt::testing::writeAll(path(QStringLiteral("spec.json")), spec.out));
        const auto a = ckpt::testing::runCkpt({QStringLiteral("import"), path(QStringLiteral("in_paths.safetensors")),
                                               path(QStringLiteral("imported_a/ckpt")), QStringLiteral("--spec"),
                                               path(QStringLiteral("spec.json"))});
        QVERIFY2(a.exitCode == 0, qPrintable(cliLog(a)));
        const auto b = ckpt::testing::runCkpt({QStringLiteral("import"), path(QStringLiteral("in_keys.npz")),
                                               path(QStringLiteral("imported_b/ckpt")), QStringLiteral("--spec"),
                                               path(QStringLiteral("spec.json")), QStringLiteral("--shards"), QStringLiteral("2"),
                                               QStringLiteral("--json")});
        QVERIFY2(b.exitCode == 0, qPrintable(cliLog(b)));
        QCOMPARE(json::parse(b.out.toStdString())["shards"], 2);
        const json imports = json::array({{{"file", path(QStringLiteral("in_paths.safetensors")).toStdString()},
                                           {"prefix", path(QStringLiteral("imported_a/ckpt")).toStdString()}},
                                          {{"file", path(QStringLiteral("in_keys.npz")).toStdString()},
                                           {"prefix", path(QStringLiteral("imported_b/ckpt")).toStdString()}}});
        QVERIFY(ckpt::testing::writeAll(path(QStringLiteral("imports.json")), QByteArray::fromStdString(imports.dump())));
        QVERIFY2(runPython(QStringLiteral("check-import"), m_dir.path(), log), log.right(4000).constData());
        QCOMPARE(log.count("assert_consumed()"), 2);
    }

    // The hostile names' exports: every member and array name stays inside
    // a directory, zipfile extracts only inside, the CLI says what it renamed.
    void hostileNamesStayInside() {
        const auto r = ckpt::testing::runCkpt(
            {QStringLiteral("export"), path(QStringLiteral("hostile/ckpt")), path(QStringLiteral("hostile_again.npz"))});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("could leave an extraction directory"), r.out.constData());
        const json files = {path(QStringLiteral("hostile.npz")).toStdString(),
                            path(QStringLiteral("hostile.safetensors")).toStdString(),
                            path(QStringLiteral("hostile_again.npz")).toStdString()};
        QVERIFY(ckpt::testing::writeAll(path(QStringLiteral("contained.json")), QByteArray::fromStdString(files.dump())));
        QByteArray log;
        QVERIFY2(runPython(QStringLiteral("check-contained"), m_dir.path(), log), log.right(4000).constData());
        QCOMPARE(log.count("ok "), qsizetype{3});
    }

    // A spec that does not fit the arrays: the CLI names each problem and
    // writes nothing.
    void importMismatchNamed() {
        const auto r = ckpt::testing::runCkpt({QStringLiteral("import"), path(QStringLiteral("dtypes_paths.safetensors")),
                                               path(QStringLiteral("mismatch/ckpt")), QStringLiteral("--spec"),
                                               path(QStringLiteral("spec.json"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("no array for model.dense.kernel"), r.err.constData());
        QVERIFY2(r.err.contains("array holder.v_float32 matches no variable"), r.err.constData());
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("mismatch/ckpt.index"))));
    }
};

QTEST_GUILESS_MAIN(TstConvertInterop)
#include "tst_convert_interop.moc"
