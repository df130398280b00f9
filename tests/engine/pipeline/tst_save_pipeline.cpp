// The save pipeline: object graph layout, sharding policies, merge, state
// file, checkpoint manager bookkeeping and async saves.

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/object_graph.h"
#include "ckpt/reshard.h"
#include "ckpt/save.h"
#include "ckpt/verify.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <map>
#include <unistd.h>

using namespace ckpt;

namespace {

Tensor floats(TensorShape shape, float start) {
    Tensor t;
    t.dtype = DataType::Float;
    t.shape = std::move(shape);
    t.bytes.resize(static_cast<size_t>(t.numElements()) * 4);
    for (int64_t i = 0; i < t.numElements(); ++i) {
        const float v = start + static_cast<float>(i);
        std::memcpy(t.bytes.data() + i * 4, &v, 4);
    }
    return t;
}

QStringList filesIn(const QString& dir) { return QDir(dir).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot); }

std::shared_ptr<Trackable> smallGraph() {
    auto root = Trackable::makeObject();
    auto net = Trackable::makeObject();
    auto w = Variable::fromTensor(floats(TensorShape{{6, 4}}, 0));
    auto b = Variable::fromTensor(floats(TensorShape{{4}}, 100));
    (void)net->addChild("w", w);
    (void)net->addChild("b", b);
    (void)root->addChild("net", net);
    (void)root->addChild("a.l/i", w);  // BFS reaches w here first; the name needs escaping
    auto opt = Optimizer::make();
    (void)root->addChild("opt", opt);
    opt->createSlot(*w, "m");
    opt->createSlot(*b, "m");
    opt->createSlot(*w, "v");
    (void)root->addChild("empty", Trackable::makeObject());
    return root;
}

}  // namespace

class TstSavePipeline : public QObject {
    Q_OBJECT
private slots:
    void objectGraphLayout() {
        auto root = smallGraph();
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("g")).toStdString();
        auto stats = writeCheckpoint(*root, prefix, SaveOptions{});
        QVERIFY2(stats.ok(), stats.status().toString().c_str());
        auto ckpt = Checkpoint::open(prefix);
        QVERIFY2(ckpt.ok(), ckpt.status().toString().c_str());
        const ObjectGraph* g = (*ckpt)->objectGraph();
        QVERIFY(g);
        // BFS: root, net, w (via "a.l/i"), opt, empty, b; then slots.
        QCOMPARE(g->node(1).keyPath, std::string("net"));
        QCOMPARE(g->node(2).keyPath, std::string("a..l.Si"));  // first BFS path wins over net/w
        QCOMPARE(g->node(3).keyPath, std::string("opt"));
        QCOMPARE(g->node(4).keyPath, std::string("empty"));
        QCOMPARE(g->node(5).keyPath, std::string("net/b"));
        QCOMPARE(g->size(), 9);  // 6 BFS nodes + 3 slots
        const ObjectNode& opt = g->node(3);
        QCOMPARE(opt.slotVariables.size(), size_t{3});
        // Slot order: per slot name, variables in BFS order.
        QCOMPARE(opt.slotVariables[0].slotName, std::string("m"));
        QCOMPARE(opt.slotVariables[0].originalVariableNodeId, 2);
        QCOMPARE(opt.slotVariables[1].originalVariableNodeId, 5);
        QCOMPARE(opt.slotVariables[2].slotName, std::string("v"));
        QCOMPARE(g->node(6).attributes[0].checkpointKey, std::string("a..l.Si/.OPTIMIZER_SLOT/opt/m/.ATTRIBUTES/VARIABLE_VALUE"));
        QCOMPARE(g->node(4).hasCheckpointValues, std::optional<bool>(false));
        QCOMPARE(g->node(3).hasCheckpointValues, std::optional<bool>(true));
        QCOMPARE(g->node(0).hasCheckpointValues, std::optional<bool>(true));
        // Data order: node order, graph tensor last.
        const BundleReader& r = (*ckpt)->bundle();
        QVERIFY(r.find("a..l.Si/.ATTRIBUTES/VARIABLE_VALUE")->region.offset <
                r.find("net/b/.ATTRIBUTES/VARIABLE_VALUE")->region.offset);
        QCOMPARE(r.find(std::string(kObjectGraphKey))->region.offset + r.find(std::string(kObjectGraphKey))->region.size,
                 static_cast<int64_t>(*r.dataFileSize(0)));
        QVERIFY(!platform_exists(prefix + "_temp"));
    }

    void replicatedVariable() {
        auto root = Trackable::makeObject();
        auto v = Variable::make(DataType::Float, TensorShape{{3}}, 3);
        (void)root->addChild("v", v);
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("r")).toStdString();
        QVERIFY(writeCheckpoint(*root, prefix, SaveOptions{}).ok());
        auto r = BundleReader::open(prefix);
        QVERIFY(r.ok());
        QVERIFY((*r)->find("v/.ATTRIBUTES/VARIABLE_VALUE"));
        QVERIFY((*r)->find("v/.ATTRIBUTES/parallel_component_1"));
        QVERIFY((*r)->find("v/.ATTRIBUTES/parallel_component_2"));
    }

    void taskGrouping_data() {
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("task");
        QTest::newRow("local") << ""
                               << "";
        QTest::newRow("gpu on task 1") << "/job:worker/replica:0/task:1/device:GPU:3"
                                       << "/job:worker/replica:0/task:1/device:CPU:0";
        QTest::newRow("bare device") << "/device:GPU:0"
                                     << "";
    }
    void taskGrouping() {
        QFETCH(QString, device);
        QFETCH(QString, task);
        QCOMPARE(QString::fromStdString(taskOfDevice(device.toStdString())), task);
    }

    void twoTasksTwoShards() {
        auto root = Trackable::makeObject();
        auto a = Variable::fromTensor(floats(TensorShape{{4}}, 0));
        auto b = Variable::fromTensor(floats(TensorShape{{4}}, 9));
        b->setDevice("/job:worker/replica:0/task:1/device:CPU:0");
        (void)root->addChild("a", a);
        (void)root->addChild("b", b);
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("t")).toStdString();
        auto stats = writeCheckpoint(*root, prefix, SaveOptions{});
        QVERIFY(stats.ok());
        QCOMPARE(stats->shards, 2);
        auto r = BundleReader::open(prefix);
        QVERIFY(r.ok());
        QCOMPARE((*r)->header().numShards, 2);
        QCOMPARE((*r)->find("b/.ATTRIBUTES/VARIABLE_VALUE")->region.shardId, 1);
        QVERIFY(verifyBundle(prefix)->ok());
    }

    void maxShardSize_data() {
        QTest::addColumn<qint64>("maxBytes");
        QTest::addColumn<int>("minShards");
        QTest::newRow("everything fits") << qint64(1 << 20) << 1;
        QTest::newRow("row splits") << qint64(40) << 3;
        QTest::newRow("tiny shards") << qint64(4) << 10;
    }
    void maxShardSize() {
        QFETCH(qint64, maxBytes);
        QFETCH(int, minShards);
        auto root = smallGraph();
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("s")).toStdString();
        SaveOptions o;
        o.policy = std::make_shared<MaxShardSizePolicy>(maxBytes);
        auto stats = writeCheckpoint(*root, prefix, o);
        QVERIFY2(stats.ok(), stats.status().toString().c_str());
        QVERIFY2(stats->shards >= minShards, std::to_string(stats->shards).c_str());
        auto r = BundleReader::open(prefix);
        QVERIFY(r.ok());
        for (int32_t s = 0; s < (*r)->header().numShards; ++s) {
            const uint64_t size = *(*r)->dataFileSize(s);
            // Only the graph tensor or a single piece that cannot be cut
            // smaller (an "oversized" shard) may exceed the limit.
            if (size > static_cast<uint64_t>(maxBytes)) {
                int entries = 0;
                for (const TensorInfo& t : (*r)->tensors()) {
                    if (!t.isPartitioned()) entries += t.region.shardId == s;
                    for (const StoredSlice& sl : t.slices) entries += sl.region.shardId == s;
                }
                const bool hasGraph = (*r)->find(std::string(kObjectGraphKey))->region.shardId == s;
                QVERIFY2(hasGraph || entries == 1,
                         ("shard " + std::to_string(s) + " has " + std::to_string(size) + " bytes").c_str());
            }
        }
        auto w = (*r)->read("a..l.Si/.ATTRIBUTES/VARIABLE_VALUE");
        QVERIFY2(w.ok(), w.status().toString().c_str());
        QVERIFY(w->bytes == floats(TensorShape{{6, 4}}, 0).bytes);
        QVERIFY(verifyBundle(prefix)->ok());
    }

    // The demo's fine-tune phase: from the freeze step on, layer 0 and its
    // Adam slots are stored byte for byte alike, while layer 1 moves.
    void demoFineTuneFreezesLayer0() {
        QTemporaryDir tmp;
        DemoTrainOptions d;
        d.directory = tmp.filePath(QStringLiteral("demo")).toStdString();
        d.steps = 40;  // freezes from step 21 (halfway)
        d.saveEvery = 10;
        d.maxToKeep = 4;
        auto run = runDemoTraining(d);
        QVERIFY2(run.ok(), run.status().toString().c_str());
        QVERIFY(run->finalLoss < run->firstLoss);
        // key -> masked crc32c per checkpoint (steps 10, 20, 30, 40).
        std::vector<std::map<std::string, uint32_t>> crcs;
        for (int n = 1; n <= 4; ++n) {
            auto r = BundleReader::open(d.directory + "/ckpt-" + std::to_string(n));
            QVERIFY2(r.ok(), r.status().toString().c_str());
            crcs.emplace_back();
            for (const TensorInfo& t : (*r)->tensors()) crcs.back()[t.key] = t.region.maskedCrc32c;
        }
        int layer0 = 0, layer1 = 0;
        for (const auto& [key, crc] : crcs[0]) {
            const bool isLayer0 = key.rfind("model/layer_with_weights-0/", 0) == 0;
            const bool isLayer1 = key.rfind("model/layer_with_weights-1/", 0) == 0;
            if (!isLayer0 && !isLayer1) continue;
            (isLayer0 ? layer0 : layer1)++;
            // Every layer trains between steps 10 and 20.
            QVERIFY2(crcs[1].at(key) != crc, key.c_str());
            for (size_t i = 2; i < crcs.size(); ++i) {
                if (isLayer0) QVERIFY2(crcs[i].at(key) == crcs[i - 1].at(key), key.c_str());
                else QVERIFY2(crcs[i].at(key) != crcs[i - 1].at(key), key.c_str());
            }
        }
        QCOMPARE(layer0, 6);  // kernel, bias and their slots m and v
        QCOMPARE(layer1, 6);

        // No fine-tune phase: layer 0 keeps moving.
        d.directory = tmp.filePath(QStringLiteral("nofreeze")).toStdString();
        d.freezeFirstLayerFrom = d.steps + 1;
        QVERIFY(runDemoTraining(d).ok());
        auto r3 = BundleReader::open(d.directory + "/ckpt-3");
        auto r4 = BundleReader::open(d.directory + "/ckpt-4");
        QVERIFY(r3.ok() && r4.ok());
        const std::string kernel0 = "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE";
        auto crcOf = [&](const BundleReader& r) {
            for (const TensorInfo& t : r.tensors())
                if (t.key == kernel0) return t.region.maskedCrc32c;
            return uint32_t{0};
        };
        QVERIFY(crcOf(**r3) != crcOf(**r4));

        d.freezeFirstLayerFrom = 0;
        QCOMPARE(runDemoTraining(d).status().code(), StatusCode::InvalidArgument);
    }

    void reshardKeepsValues_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("4 shards") << 0;
        QTest::newRow("max 100 bytes") << 1;
        QTest::newRow("back to by-task") << 2;
    }
    void reshardKeepsValues() {
        QFETCH(int, mode);
        QTemporaryDir tmp;
        DemoTrainOptions d;
        d.directory = tmp.filePath(QStringLiteral("src")).toStdString();
        d.steps = 3;
        d.saveEvery = 3;
        QVERIFY(runDemoTraining(d).ok());
        const std::string src = d.directory + "/ckpt-1";
        SaveOptions o;
        if (mode == 0) o.policy = std::make_shared<FixedShardCountPolicy>(4);
        if (mode >= 1) o.policy = std::make_shared<MaxShardSizePolicy>(100);
        std::string from = src;
        const std::string dst = tmp.filePath(QStringLiteral("dst/ckpt-1")).toStdString();
        auto stats = reshardCheckpoint(from, dst, o);
        QVERIFY2(stats.ok(), stats.status().toString().c_str());
        if (mode == 2) {
            const std::string back = tmp.filePath(QStringLiteral("back/ckpt-1")).toStdString();
            QVERIFY(reshardCheckpoint(dst, back, SaveOptions{}).ok());
            QCOMPARE(QFile(QString::fromStdString(back + ".data-00000-of-00001")).size(),
                     QFile(QString::fromStdString(src + ".data-00000-of-00001")).size());
            from = back;
        } else {
            from = dst;
        }
        auto a = BundleReader::open(src);
        auto b = BundleReader::open(from);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE((*b)->tensors().size(), (*a)->tensors().size());
        for (const TensorInfo& t : (*a)->tensors()) {
            auto va = (*a)->read(t);
            auto vb = (*b)->read(t.key);
            QVERIFY2(vb.ok(), vb.status().toString().c_str());
            QVERIFY(va->bytes == vb->bytes);
            QVERIFY(va->strings == vb->strings);
        }
    }

    void staleTempDirCleaned() {
        QTemporaryDir tmp;
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("ckpt-7_temp")));
        QFile f(tmp.filePath(QStringLiteral("ckpt-7_temp/part-00000-of-00001.data-00000-of-00001")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("partial");
        f.close();
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("notours_temp")));
        QFile keep(tmp.filePath(QStringLiteral("notours_temp/keep.txt")));
        QVERIFY(keep.open(QIODevice::WriteOnly));
        keep.close();
        auto root = smallGraph();
        QVERIFY(writeCheckpoint(*root, tmp.filePath(QStringLiteral("ckpt-8")).toStdString(), SaveOptions{}).ok());
        QVERIFY(!QDir(tmp.filePath(QStringLiteral("ckpt-7_temp"))).exists());
        QVERIFY(QFile::exists(tmp.filePath(QStringLiteral("notours_temp/keep.txt"))));
    }

    void saveNumbersAndStateFile() {
        auto root = smallGraph();
        QTemporaryDir tmp;
        const std::string base = tmp.filePath(QStringLiteral("sub/dir/ckpt")).toStdString();  // parents created
        auto p1 = saveCheckpoint(*root, base, SaveOptions{});
        QVERIFY2(p1.ok(), p1.status().toString().c_str());
        auto p2 = saveCheckpoint(*root, base, SaveOptions{});
        QVERIFY(p2.ok());
        QCOMPARE(*p2, base + "-2");
        auto latest = latestCheckpoint(tmp.filePath(QStringLiteral("sub/dir")).toStdString());
        QVERIFY(latest.ok() && *latest);
        QCOMPARE(**latest, base + "-2");
        auto r = BundleReader::open(*p2);
        auto counter = (*r)->read("save_counter/.ATTRIBUTES/VARIABLE_VALUE");
        QVERIFY(counter.ok());
        QCOMPARE(counter->as<int64_t>()[0], int64_t{2});
    }

    void stateFileRoundTrip() {
        QTemporaryDir tmp;
        CheckpointState s;
        s.modelCheckpointPath = "ckpt-é";
        s.allModelCheckpointPaths = {"ckpt-1", "ckpt-é"};
        s.allModelCheckpointTimestamps = {1700000123.456789, 1700000456.7890124};
        s.lastPreservedTimestamp = 1699999999.123456;
        QVERIFY(writeCheckpointState(tmp.path().toStdString(), s).isOk());
        auto back = readCheckpointState(tmp.path().toStdString());
        QVERIFY(back.ok() && *back);
        QCOMPARE((*back)->modelCheckpointPath, s.modelCheckpointPath);
        QCOMPARE((*back)->allModelCheckpointTimestamps, s.allModelCheckpointTimestamps);
        QCOMPARE((*back)->lastPreservedTimestamp, s.lastPreservedTimestamp);
        QCOMPARE(filesIn(tmp.path()), QStringList{QStringLiteral("checkpoint")});  // no temp file left
        CheckpointState bad;
        bad.modelCheckpointPath = "checkpoint";
        QCOMPARE(writeCheckpointState(tmp.path().toStdString(), bad).code(), StatusCode::InvalidArgument);
    }

    void managerMaxToKeep_data() {
        QTest::addColumn<bool>("async");
        QTest::newRow("sync") << false;
        QTest::newRow("async") << true;
    }
    void managerMaxToKeep() {
        QFETCH(bool, async);
        QTemporaryDir tmp;
        auto root = smallGraph();
        CheckpointManagerOptions o;
        o.maxToKeep = 2;
        o.async = async;
        auto m = CheckpointManager::create(root, tmp.path().toStdString(), o);
        QVERIFY(m.ok());
        for (int i = 0; i < 4; ++i) {
            auto saved = (*m)->save();
            QVERIFY2(saved.ok(), saved.status().toString().c_str());
            // The report names the checkpoint this save wrote (or, async, is
            // writing), and what it holds: w and b, their three slots, the
            // save counter and the object graph.
            QCOMPARE(saved->path, std::optional<std::string>(tmp.path().toStdString() + "/ckpt-" + std::to_string(i + 1)));
            QCOMPARE(saved->tensors, int64_t{7});
            QVERIFY(saved->waitedSeconds <= saved->blockingSeconds);
        }
        QVERIFY((*m)->sync().isOk());
        // Each kept checkpoint with its metadata (checkpoint_metadata.h); the rotated ones without.
        QCOMPARE(filesIn(tmp.path()), (QStringList{QStringLiteral("checkpoint"), QStringLiteral("ckpt-3.data-00000-of-00001"),
                                                   QStringLiteral("ckpt-3.index"), QStringLiteral("ckpt-3.info.json"),
                                                   QStringLiteral("ckpt-4.data-00000-of-00001"), QStringLiteral("ckpt-4.index"),
                                                   QStringLiteral("ckpt-4.info.json")}));
        QCOMPARE((*m)->checkpoints().size(), size_t{2});
        // A new manager picks the state up and continues the sweep.
        m->reset();
        auto m2 = CheckpointManager::create(root, tmp.path().toStdString(), o);
        QVERIFY(m2.ok());
        QCOMPARE((*m2)->latestCheckpoint(), std::optional<std::string>(tmp.path().toStdString() + "/ckpt-4"));
        QVERIFY((*m2)->save().ok());
        QVERIFY((*m2)->sync().isOk());
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("ckpt-3.index"))));
    }

    void managerKeepEveryNHours() {
        QTemporaryDir tmp;
        auto root = smallGraph();
        CheckpointManagerOptions o;
        o.maxToKeep = 1;
        o.keepCheckpointEveryNHours = 0.0;  // every swept checkpoint is preserved
        auto m = CheckpointManager::create(root, tmp.path().toStdString(), o);
        QVERIFY(m.ok());
        for (int i = 0; i < 3; ++i) QVERIFY((*m)->save().ok());
        QVERIFY(QFile::exists(tmp.filePath(QStringLiteral("ckpt-1.index"))));
        QVERIFY(QFile::exists(tmp.filePath(QStringLiteral("ckpt-2.index"))));
        auto state = readCheckpointState(tmp.path().toStdString());
        QCOMPARE((*state)->allModelCheckpointPaths, std::vector<std::string>{"ckpt-3"});
    }

    void managerInterval() {
        QTemporaryDir tmp;
        auto root = smallGraph();
        auto step = Variable::make(DataType::Int64, TensorShape{});
        (void)root->addChild("step", step);
        CheckpointManagerOptions o;
        o.stepCounter = step;
        o.checkpointInterval = 10;
        auto m = CheckpointManager::create(root, tmp.path().toStdString(), o);
        QVERIFY(m.ok());
        int saved = 0;
        for (int64_t s = 0; s < 35; s += 5) {
            std::memcpy(step->mutableValue().bytes.data(), &s, 8);
            auto r = (*m)->save();
            QVERIFY(r.ok());
            saved += r->path ? 1 : 0;
        }
        QCOMPARE(saved, 4);  // steps 0, 10, 20, 30
        CheckpointManagerOptions bad;
        bad.checkpointInterval = 5;
        QCOMPARE(CheckpointManager::create(root, tmp.path().toStdString(), bad).status().code(), StatusCode::InvalidArgument);
    }

    void managerNeverFollowsSymlinks() {
        QTemporaryDir outside;
        QFile victim(outside.filePath(QStringLiteral("ckpt-1.index")));
        QVERIFY(victim.open(QIODevice::WriteOnly));
        victim.write("precious");
        victim.close();
        QTemporaryDir tmp;
        auto root = smallGraph();
        CheckpointManagerOptions o;
        o.maxToKeep = 1;
        auto m = CheckpointManager::create(root, tmp.path().toStdString(), o);
        QVERIFY((*m)->save().ok());
        // Replace ckpt-1's index by a symlink to a file outside the directory.
        QVERIFY(QFile::remove(tmp.filePath(QStringLiteral("ckpt-1.index"))));
        QVERIFY(QFile::link(outside.filePath(QStringLiteral("ckpt-1.index")), tmp.filePath(QStringLiteral("ckpt-1.index"))));
        QVERIFY((*m)->save().ok());
        QVERIFY(!QFileInfo(tmp.filePath(QStringLiteral("ckpt-1.index"))).isSymLink());
        QCOMPARE(QFile(outside.filePath(QStringLiteral("ckpt-1.index"))).size(), qint64(8));
    }

    void restoreOrInitialize() {
        QTemporaryDir tmp;
        auto root = smallGraph();
        std::string restored;
        int initialized = 0;
        CheckpointManagerOptions o;
        o.restore = [&](const std::string& p) {
            restored = p;
            return okStatus();
        };
        o.initialize = [&] {
            ++initialized;
            return okStatus();
        };
        auto m = CheckpointManager::create(root, tmp.path().toStdString(), o);
        auto first = (*m)->restoreOrInitialize();
        QVERIFY(first.ok() && !*first);
        QCOMPARE(initialized, 1);
        QVERIFY((*m)->save().ok());
        auto second = (*m)->restoreOrInitialize();
        QVERIFY(second.ok() && *second);
        QCOMPARE(restored, tmp.path().toStdString() + "/ckpt-1");
    }

    // Async snapshots copy into buffers recycled from the previous save:
    // each checkpoint must still hold the values of its own save() call,
    // including a tensor that spans several copy pieces and ends unaligned.
    void asyncSnapshotsKeepEachSavesValues() {
        QTemporaryDir tmp;
        auto root = Trackable::makeObject();
        Tensor big;
        big.dtype = DataType::UInt8;
        big.shape = TensorShape{{(int64_t{9} << 20) + 3}};
        big.bytes.assign(static_cast<size_t>(big.shape.dims[0]), 0);
        auto bigVar = Variable::fromTensor(big);
        auto w = Variable::fromTensor(floats(TensorShape{{6, 4}}, 0));
        QVERIFY(root->addChild("big", bigVar).isOk());
        QVERIFY(root->addChild("w", w).isOk());
        CheckpointManagerOptions o;
        o.maxToKeep = 5;
        o.async = true;
        auto m = CheckpointManager::create(root, tmp.path().toStdString(), o);
        QVERIFY(m.ok());
        for (int save = 1; save <= 4; ++save) {
            std::vector<uint8_t>& bytes = bigVar->mutableValue().bytes;
            for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + static_cast<size_t>(save));
            QVERIFY(w->assign(floats(TensorShape{{6, 4}}, 1000.0f * static_cast<float>(save))).isOk());
            auto saved = (*m)->save();
            QVERIFY2(saved.ok(), saved.status().toString().c_str());
            QVERIFY(saved->waitedSeconds <= saved->blockingSeconds);
            // Training goes on while the write runs.
            std::fill(bytes.begin(), bytes.end(), uint8_t{0xee});
            QVERIFY(w->assign(floats(TensorShape{{6, 4}}, -1.0f)).isOk());
        }
        QVERIFY((*m)->sync().isOk());
        for (int save = 1; save <= 4; ++save) {
            const std::string prefix = tmp.filePath(QStringLiteral("ckpt-%1").arg(save)).toStdString();
            QVERIFY(verifyBundle(prefix)->ok());
            auto reader = BundleReader::open(prefix);
            QVERIFY(reader.ok());
            auto b = (*reader)->read("big/.ATTRIBUTES/VARIABLE_VALUE");
            QVERIFY(b.ok());
            QCOMPARE(b->bytes.size(), big.bytes.size());
            bool same = true;
            for (size_t i = 0; i < b->bytes.size() && same; ++i)
                same = b->bytes[i] == static_cast<uint8_t>(i * 7 + static_cast<size_t>(save));
            QVERIFY2(same, prefix.c_str());
            auto wv = (*reader)->read("w/.ATTRIBUTES/VARIABLE_VALUE");
            QVERIFY(wv.ok());
            QCOMPARE(wv->bytes, floats(TensorShape{{6, 4}}, 1000.0f * static_cast<float>(save)).bytes);
        }
    }

    // A synchronous save writes straight from the variables: no copy, and
    // slicing a borrowed tensor (max shard bytes) leaves the variable whole.
    void syncSavesBorrowTheVariables() {
        auto root = smallGraph();
        auto borrowed = borrowForSave(*root);
        QVERIFY(borrowed.ok());
        auto w = root->child("net")->child("w");
        const Tensor& live = w->asVariable()->value();
        bool found = false;
        for (const SaveTensor& t : *borrowed) {
            if (t.key != "a..l.Si/.ATTRIBUTES/VARIABLE_VALUE") continue;
            found = true;
            QCOMPARE(t.borrowed, &live);
            QVERIFY(t.value.bytes.empty());
            QCOMPARE(&t.data(), &live);
        }
        QVERIFY(found);
        QVERIFY(borrowed->back().borrowed == nullptr);  // the object graph is built, not borrowed

        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("sliced")).toStdString();
        SaveOptions o;
        o.policy = std::make_shared<MaxShardSizePolicy>(40);
        auto stats = writeCheckpoint(*root, prefix, o);
        QVERIFY2(stats.ok(), stats.status().toString().c_str());
        QVERIFY(stats->shards > 1);
        QCOMPARE(live.bytes, floats(TensorShape{{6, 4}}, 0).bytes);
        auto reader = BundleReader::open(prefix);
        QVERIFY(reader.ok());
        auto back = (*reader)->read("a..l.Si/.ATTRIBUTES/VARIABLE_VALUE");
        QVERIFY2(back.ok(), back.status().toString().c_str());
        QCOMPARE(back->bytes, live.bytes);
    }

    void snapshotBuffersAreReused() {
        SnapshotBuffers pool;
        std::vector<uint8_t> a = pool.take(1000);
        QCOMPARE(a.size(), size_t{1000});
        const uint8_t* where = a.data();
        pool.give(std::move(a));
        QCOMPARE(pool.bytesHeld(), size_t{1000});
        QCOMPARE(pool.take(999).size(), size_t{999});  // no exact fit: a new buffer
        std::vector<uint8_t> again = pool.take(1000);
        QCOMPARE(static_cast<const uint8_t*>(again.data()), where);
        pool.give(std::move(again));
        pool.releaseUnused();
        QCOMPARE(pool.bytesHeld(), size_t{0});
    }

    void asyncErrorSurfaces() {
        QTemporaryDir tmp;
        auto root = smallGraph();
        CheckpointManagerOptions o;
        o.async = true;
        auto m = CheckpointManager::create(root, tmp.path().toStdString(), o);
        QVERIFY(m.ok());
        QVERIFY((*m)->save().ok());
        QVERIFY((*m)->sync().isOk());
        // A directory where ckpt-2.index must go makes the background write fail
        // (even for root, unlike permission bits).
        QVERIFY(QDir(tmp.path()).mkdir(QStringLiteral("ckpt-2.index")));
        auto second = (*m)->save();
        QVERIFY(second.ok());  // returns before the write
        const Status s = (*m)->sync();
        QVERIFY(!s.isOk());
        QVERIFY2(QString::fromStdString(s.message()).contains(QStringLiteral("asynchronous save failed")), s.toString().c_str());
        QVERIFY((*m)->sync().isOk());  // reported once
        auto latest = latestCheckpoint(tmp.path().toStdString());
        QCOMPARE(**latest, tmp.path().toStdString() + "/ckpt-1");
        QVERIFY(verifyBundle(**latest)->ok());
        // The error also surfaces at the next save.
        auto third = (*m)->save();
        QVERIFY(third.ok());
        auto fourth = (*m)->save();
        QVERIFY(fourth.ok());  // ckpt-3 succeeded
        QVERIFY((*m)->close().isOk());
    }

private:
    static bool platform_exists(const std::string& p) { return QFileInfo::exists(QString::fromStdString(p)); }
};

QTEST_GUILESS_MAIN(TstSavePipeline)
#include "tst_save_pipeline.moc"
