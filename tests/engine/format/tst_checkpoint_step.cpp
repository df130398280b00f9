// readCheckpointStep (index lookups only) against checkpointStep (a fully
// opened BundleReader): the same step, source and number for the real
// corpus and for generated checkpoints of every kind of step key.

#include <QtTest>

#include <cstring>

#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint_step.h"
#include "test_support.h"

using namespace ckpt;

namespace {

template <typename T>
Tensor scalar(DataType dtype, T v) {
    Tensor t;
    t.dtype = dtype;
    t.bytes.resize(sizeof v);
    std::memcpy(t.bytes.data(), &v, sizeof v);
    return t;
}

struct NamedTensor {
    std::string key;
    Tensor value;
};

Status writeCheckpoint(const std::string& prefix, const std::vector<NamedTensor>& tensors) {
    CKPT_ASSIGN_OR_RETURN(auto w, BundleWriter::create(prefix));
    for (const NamedTensor& t : tensors) CKPT_RETURN_IF_ERROR(w->add(t.key, t.value));
    return w->finish();
}

// checkpointStep with an opened reader, the answer readCheckpointStep must give.
CheckpointStep stepViaReader(const std::string& prefix) {
    auto reader = BundleReader::open(prefix);
    return checkpointStep(prefix, reader.ok() ? reader->get() : nullptr);
}

void compareSteps(const CheckpointStep& got, const CheckpointStep& want) {
    QCOMPARE(got.number, want.number);
    QCOMPARE(got.step, want.step);
    QCOMPARE(got.source, want.source);
}

const std::string kStep = "step/.ATTRIBUTES/VARIABLE_VALUE";
const std::string kGlobalStep = "global_step/.ATTRIBUTES/VARIABLE_VALUE";
const std::string kIter = "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE";
const std::string kIterations = "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE";
const std::string kModelIterations = "model/optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE";
const std::string kTf1Step = "step";
const std::string kTf1GlobalStep = "global_step";
const std::string kWeights = "model/w/.ATTRIBUTES/VARIABLE_VALUE";

}  // namespace

class TstCheckpointStep : public QObject {
    Q_OBJECT
private slots:
    void realCorpusAgreesWithReader_data() {
        QTest::addColumn<QString>("dir");
        const QStringList dirs = ckpt::testing::realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : dirs) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }
    void realCorpusAgreesWithReader() {
        QFETCH(QString, dir);
        const std::string prefix =
            ckpt::testing::manifestPrefix(dir, ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json")));
        auto quick = readCheckpointStep(prefix);
        QVERIFY2(quick.ok(), quick.status().toString().c_str());
        compareSteps(*quick, stepViaReader(prefix));
    }

    void realEstimatorGlobalStep() {
        const QString dir = ckpt::testing::realTestDataDir();
        if (dir.isEmpty()) CKPT_MISSING_CORPUS();
        auto s = readCheckpointStep((dir + QStringLiteral("/tfx_estimator_ckpt1000/model.ckpt-1000")).toStdString());
        QVERIFY2(s.ok(), s.status().toString().c_str());
        QCOMPARE(s->step, std::optional<int64_t>(1000));
        QCOMPARE(s->source, std::string("global_step"));
    }

    void generatedKinds_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<QString>("source");
        QTest::newRow("int32 step") << 0 << qint64(200) << QString::fromStdString(kStep);
        QTest::newRow("int64 global_step beyond int32") << 1 << qint64(5'000'000'000) << QString::fromStdString(kGlobalStep);
        QTest::newRow("optimizer iter") << 2 << qint64(31) << QString::fromStdString(kIter);
        QTest::newRow("Keras 3 optimizer _iterations, int32") << 3 << qint64(-4) << QString::fromStdString(kIterations);
        QTest::newRow("step wins over the optimizer") << 4 << qint64(9) << QString::fromStdString(kStep);
        QTest::newRow("float step skipped") << 5 << qint64(12) << QString::fromStdString(kIter);
        QTest::newRow("non-scalar step skipped") << 6 << qint64(12) << QString::fromStdString(kIter);
        QTest::newRow("no step: the number") << 7 << qint64(7) << QStringLiteral("checkpoint number");
        QTest::newRow("TF1 step variable") << 8 << qint64(200) << QString::fromStdString(kTf1Step);
        QTest::newRow("TF1 global_step before TF1 step") << 9 << qint64(100) << QString::fromStdString(kTf1GlobalStep);
        QTest::newRow("compiled Keras model saved alone") << 10 << qint64(12) << QString::fromStdString(kModelIterations);
        QTest::newRow("a named step before the optimizer's count") << 11 << qint64(5) << QString::fromStdString(kTf1Step);
        QTest::newRow("save_counter is not a step") << 12 << qint64(7) << QStringLiteral("checkpoint number");
    }
    void generatedKinds() {
        QFETCH(int, kind);
        QFETCH(qint64, step);
        QFETCH(QString, source);
        std::vector<NamedTensor> tensors = {{kWeights, scalar(DataType::Float, 1.5f)}};
        Tensor vector = scalar(DataType::Int64, int64_t{3});
        vector.shape.dims = {1};
        switch (kind) {
        case 0: tensors.push_back({kStep, scalar(DataType::Int32, int32_t{200})}); break;
        case 1: tensors.push_back({kGlobalStep, scalar(DataType::Int64, int64_t{5'000'000'000})}); break;
        case 2: tensors.push_back({kIter, scalar(DataType::Int64, int64_t{31})}); break;
        case 3: tensors.push_back({kIterations, scalar(DataType::Int32, int32_t{-4})}); break;
        case 4:
            tensors.push_back({kStep, scalar(DataType::Int64, int64_t{9})});
            tensors.push_back({kIter, scalar(DataType::Int64, int64_t{12})});
            break;
        case 5:
            tensors.push_back({kStep, scalar(DataType::Float, 9.0f)});
            tensors.push_back({kIter, scalar(DataType::Int64, int64_t{12})});
            break;
        case 6:
            tensors.push_back({kStep, vector});
            tensors.push_back({kIter, scalar(DataType::Int64, int64_t{12})});
            break;
        case 8: tensors.push_back({kTf1Step, scalar(DataType::Int64, int64_t{200})}); break;
        case 9:
            tensors.push_back({kTf1Step, scalar(DataType::Int64, int64_t{200})});
            tensors.push_back({kTf1GlobalStep, scalar(DataType::Int64, int64_t{100})});
            break;
        case 10: tensors.push_back({kModelIterations, scalar(DataType::Int64, int64_t{12})}); break;
        case 11:
            tensors.push_back({kIterations, scalar(DataType::Int64, int64_t{12})});
            tensors.push_back({kTf1Step, scalar(DataType::Int64, int64_t{5})});
            break;
        case 12: tensors.push_back({"save_counter/.ATTRIBUTES/VARIABLE_VALUE", scalar(DataType::Int64, int64_t{3})}); break;
        default: break;
        }
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-7")).toStdString();
        const Status written = writeCheckpoint(prefix, tensors);
        QVERIFY2(written.isOk(), written.toString().c_str());
        auto quick = readCheckpointStep(prefix);
        QVERIFY2(quick.ok(), quick.status().toString().c_str());
        QCOMPARE(quick->step, std::optional<int64_t>(step));
        QCOMPARE(quick->source, source.toStdString());
        QCOMPARE(quick->number, std::optional<int64_t>(7));
        compareSteps(*quick, stepViaReader(prefix));
    }

    void noStepNoNumber() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("final")).toStdString();
        QVERIFY(writeCheckpoint(prefix, {{kWeights, scalar(DataType::Float, 1.5f)}}).isOk());
        auto quick = readCheckpointStep(prefix);
        QVERIFY2(quick.ok(), quick.status().toString().c_str());
        QCOMPARE(quick->step, std::nullopt);
        QCOMPARE(quick->source, std::string());
    }

    // A damaged step value is skipped like an unreadable one: the next key
    // (or the number) answers, as with checkpointStep.
    void corruptValueSkipped() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-3")).toStdString();
        QVERIFY(writeCheckpoint(prefix,
                                {{kStep, scalar(DataType::Int64, int64_t{100})}, {kIter, scalar(DataType::Int64, int64_t{50})}})
                    .isOk());
        int64_t offset = 0;
        {
            auto reader = BundleReader::open(prefix);
            QVERIFY(reader.ok());
            offset = (*reader)->find(kStep)->region.offset;
        }
        QFile data(QString::fromStdString(prefix + ".data-00000-of-00001"));
        QVERIFY(data.open(QIODevice::ReadWrite));
        QVERIFY(data.seek(offset));
        QVERIFY(data.write("\x65", 1) == 1);  // 100 -> 101, checksum no longer matches
        data.close();
        auto quick = readCheckpointStep(prefix);
        QVERIFY2(quick.ok(), quick.status().toString().c_str());
        QCOMPARE(quick->step, std::optional<int64_t>(50));
        QCOMPARE(quick->source, kIter);
        compareSteps(*quick, stepViaReader(prefix));

        // A data file too short for the value: skipped too, nothing read past its end.
        QVERIFY(QFile::resize(QString::fromStdString(prefix + ".data-00000-of-00001"), 4));
        auto truncated = readCheckpointStep(prefix);
        QVERIFY2(truncated.ok(), truncated.status().toString().c_str());
        QCOMPARE(truncated->source, std::string("checkpoint number"));
        QCOMPARE(truncated->step, std::optional<int64_t>(3));
    }

    void unreadableIndexIsAnError() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-1")).toStdString();
        auto missing = readCheckpointStep(prefix);
        QVERIFY(!missing.ok());
        QCOMPARE(missing.status().code(), StatusCode::NotFound);
        QVERIFY(ckpt::testing::writeAll(QString::fromStdString(prefix + ".index"), QByteArray(100, 'x')));
        auto garbage = readCheckpointStep(prefix);
        QVERIFY(!garbage.ok());
        QCOMPARE(garbage.status().code(), StatusCode::DataLoss);

        // A damaged data block of the index: its checksum is verified on the lookup.
        QVERIFY(QFile::remove(QString::fromStdString(prefix + ".index")));
        QVERIFY(writeCheckpoint(prefix, {{kStep, scalar(DataType::Int64, int64_t{100})}}).isOk());
        QByteArray index = ckpt::testing::readAll(QString::fromStdString(prefix + ".index"));
        index[4] = static_cast<char>(index[4] ^ 0x40);  // inside the first entries, before the block trailer
        QVERIFY(ckpt::testing::writeAll(QString::fromStdString(prefix + ".index"), index));
        auto damaged = readCheckpointStep(prefix);
        QVERIFY(!damaged.ok());
        QCOMPARE(damaged.status().code(), StatusCode::DataLoss);
        QVERIFY2(damaged.status().message().find("checksum") != std::string::npos, damaged.status().toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TstCheckpointStep)
#include "tst_checkpoint_step.moc"
