// TensorFlow restores what ckpt writes: demo-trainer checkpoints written
// synchronously, asynchronously and split into many shards (with sliced
// tensors) are loaded by tf.train.load_checkpoint with identical values and
// restored by a matching tf.train.Checkpoint with assert_consumed().
// Needs CKPT_PYTHON (a Python with tensorflow; scripts/test.sh sets it).

#include "ckpt/bundle_reader.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/object_graph.h"

#include <QCryptographicHash>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include "test_support.h"

using namespace ckpt;
using nlohmann::json;

class TstInteropTf : public QObject {
    Q_OBJECT
private slots:
    void tensorflowRestores() {
        const QByteArray python = qgetenv("CKPT_PYTHON");
        if (python.isEmpty()) CKPT_MISSING_PYTHON("CKPT_PYTHON is not set: no Python with TensorFlow to check interop against");
        QTemporaryDir tmp;
        struct Case {
            const char* name;
            bool async;
            std::optional<int64_t> maxShardBytes;
        };
        const Case cases[] = {{"sync", false, std::nullopt}, {"async", true, std::nullopt}, {"sharded", false, 700}};
        QStringList prefixes;
        for (const Case& c : cases) {
            DemoTrainOptions o;
            o.directory = tmp.filePath(QString::fromLatin1(c.name)).toStdString();
            o.steps = 40;
            o.saveEvery = 20;
            o.async = c.async;
            o.maxShardBytes = c.maxShardBytes;
            auto run = runDemoTraining(o);
            QVERIFY2(run.ok(), run.status().toString().c_str());
            QVERIFY(run->finalLoss < run->firstLoss);
            prefixes << QString::fromStdString(*run->saves.back().savedPath);
        }
        {
            auto r = BundleReader::open(prefixes.last().toStdString());
            QVERIFY(r.ok());
            QVERIFY((*r)->header().numShards > 1);
        }
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(QString::fromLocal8Bit(python),
                QStringList{ckpt::testing::sourceDir() + QStringLiteral("/tests/interop/tf_restore_check.py")} + prefixes);
        QVERIFY(p.waitForFinished(240000));
        const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), prefixes.size());
        for (const QByteArray& line : lines) {
            const json result = json::parse(line.toStdString());
            QVERIFY2(result["ok"].get<bool>(), line.constData());
            auto r = BundleReader::open(result["prefix"].get<std::string>());
            QVERIFY(r.ok());
            int compared = 0;
            for (const TensorInfo& t : (*r)->tensors()) {
                if (t.key == kObjectGraphKey) continue;
                auto value = (*r)->read(t);
                QVERIFY(value.ok());
                const QByteArray ours = QCryptographicHash::hash(QByteArray(reinterpret_cast<const char*>(value->bytes.data()),
                                                                            static_cast<qsizetype>(value->bytes.size())),
                                                                 QCryptographicHash::Sha256)
                                            .toHex();
                QCOMPARE(QByteArray::fromStdString(result["sha256"][t.key].get<std::string>()), ours);
                ++compared;
            }
            QCOMPARE(compared, result["tensors"].get<int>());
        }
        QCOMPARE(p.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TstInteropTf)
#include "tst_interop_tf.moc"
