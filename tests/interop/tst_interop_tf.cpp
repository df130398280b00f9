// TensorFlow restores what ckpt writes: demo-trainer checkpoints written
// synchronously, asynchronously and split into many shards (with sliced
// tensors) are loaded by tf.train.load_checkpoint with identical values and
// restored by a matching tf.train.Checkpoint with assert_consumed(); the
// `checkpoint` state files our writers leave are read by TensorFlow's
// get_checkpoint_state, latest_checkpoint and CheckpointManager.
// Needs CKPT_PYTHON (a Python with tensorflow; scripts/test.sh sets it).

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/object_graph.h"
#include "ckpt/retention.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
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

    // TensorFlow reads the state files our writers leave (issue #29): one a
    // CheckpointManager rewrote after retention deleted some of its
    // checkpoints, one repaired by retention after checkpoints were deleted
    // by hand. get_checkpoint_state, latest_checkpoint and a
    // tf.train.CheckpointManager see exactly the checkpoints on disk, and
    // TensorFlow's manager goes on saving into the directory.
    void tensorflowReadsOurStateFiles() {
        const QByteArray python = qgetenv("CKPT_PYTHON");
        if (python.isEmpty()) CKPT_MISSING_PYTHON("CKPT_PYTHON is not set: no Python with TensorFlow to check interop against");
        QTemporaryDir tmp;
        const std::string managed = tmp.filePath(QStringLiteral("managed")).toStdString();
        const std::string repaired = tmp.filePath(QStringLiteral("repaired")).toStdString();
        for (const std::string& dir : {managed, repaired}) {
            DemoTrainOptions o;
            o.directory = dir;
            o.steps = 50;
            o.saveEvery = 10;  // ckpt-1..5
            o.owner = "demo";
            QVERIFY(runDemoTraining(o).ok());
        }
        // Retention in "another process" deletes the oldest; the run's manager then saves on.
        RetentionPolicy keep;
        keep.keepLatest = 2;
        auto plan = planDirectoryRetention(managed, keep, {.now = 4e9, .owner = "demo", .adoptForeign = false});
        QVERIFY(plan.ok());
        QVERIFY(applyRetention(*plan).ok());
        {
            DemoTrainOptions o;
            o.directory = managed;
            o.steps = 60;
            o.saveEvery = 60;
            o.owner = "demo";
            QVERIFY(runDemoTraining(o).ok());
        }
        // Two checkpoints deleted by hand, the latest among them; retention repairs the file.
        QVERIFY(deleteCheckpointFiles(repaired, "ckpt-2").isOk());
        QVERIFY(deleteCheckpointFiles(repaired, "ckpt-5").isOk());
        RetentionPolicy everything;
        everything.keepLatest = 100;
        plan = planDirectoryRetention(repaired, everything, {.now = 4e9, .owner = "demo", .adoptForeign = false});
        QVERIFY(plan.ok());
        QVERIFY(applyRetention(*plan).ok());

        // Ours, before TensorFlow touches them: true, and what TensorFlow must read.
        std::map<std::string, CheckpointState> ours;
        for (const std::string& dir : {managed, repaired}) {
            auto state = readCheckpointState(dir);
            QVERIFY(state.ok() && *state);
            QVERIFY(stateEntriesWithoutIndex(dir, **state).empty());
            QVERIFY((*state)->allModelCheckpointPaths.size() >= 2);
            ours[dir] = **state;
        }
        QCOMPARE(ours[repaired].modelCheckpointPath, std::string("ckpt-4"));

        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(QString::fromLocal8Bit(python),
                {ckpt::testing::sourceDir() + QStringLiteral("/tests/interop/state_file_check.py"),
                 QString::fromStdString(managed), QString::fromStdString(repaired)});
        QVERIFY(p.waitForFinished(240000));
        QCOMPARE(p.exitCode(), 0);
        const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        for (const QByteArray& line : lines) {
            const json tf = json::parse(line.toStdString());
            const std::string dir = tf["dir"];
            const CheckpointState& state = ours[dir];
            const auto name = [](const std::string& path) { return path.substr(path.rfind('/') + 1); };
            QCOMPARE(name(tf["model_checkpoint_path"]), state.modelCheckpointPath);
            std::vector<std::string> listed;
            for (const json& path : tf["all_model_checkpoint_paths"]) listed.push_back(name(path.get<std::string>()));
            QCOMPARE(listed, state.allModelCheckpointPaths);
            QCOMPARE(tf["timestamps"].get<size_t>(), state.allModelCheckpointTimestamps.size());
            QCOMPARE(tf["latest_checkpoint"].get<std::string>(), dir + "/" + state.modelCheckpointPath);
            // TensorFlow's manager recovers only checkpoints that exist, the latest among them.
            const std::vector<std::string> recovered = tf["manager_checkpoints"];
            QVERIFY2(!recovered.empty(), line.constData());
            QCOMPARE(recovered.back(), dir + "/" + state.modelCheckpointPath);
            for (const std::string& path : recovered)
                QVERIFY2(QFile::exists(QString::fromStdString(path + ".index")), line.constData());
            // ...and writes the file on.
            QCOMPARE(tf["after_latest"].get<std::string>(), tf["saved"].get<std::string>());
        }
    }
};

QTEST_GUILESS_MAIN(TstInteropTf)
#include "tst_interop_tf.moc"
