// Deferred snapshots: a save that copies on the writer thread must still
// hold every variable's value as of the save, however the caller changes
// variables afterwards and whichever thread gets to a variable first.

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/deferred_snapshot.h"
#include "ckpt/verify.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <random>
#include <thread>

using namespace ckpt;

namespace {

// Bytes that differ per variable and per generation.
std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
    std::vector<uint8_t> b(n);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        b[i] = static_cast<uint8_t>(x >> 24);
    }
    return b;
}

Tensor bytesTensor(size_t n, uint32_t seed) {
    Tensor t;
    t.dtype = DataType::UInt8;
    t.shape = TensorShape{{static_cast<int64_t>(n)}};
    t.bytes = pattern(n, seed);
    return t;
}

std::map<std::string, std::vector<uint8_t>> valuesIn(const std::vector<SaveTensor>& tensors) {
    std::map<std::string, std::vector<uint8_t>> out;
    for (const SaveTensor& t : tensors)
        if (t.value.dtype != DataType::String) out[t.key] = t.value.bytes;
    return out;
}

}  // namespace

class TstDeferredSnapshot : public QObject {
    Q_OBJECT
private slots:
    // Every way of changing a variable after start(): mutableValue, assign,
    // setReplicaCount, destroying it; and one left alone.
    void keepsValuesAsOfStart() {
        auto root = Trackable::makeObject();
        auto touched = Variable::fromTensor(bytesTensor(3 << 20, 1));
        auto assigned = Variable::fromTensor(bytesTensor(1000, 2));
        auto replicated = Variable::make(DataType::UInt8, TensorShape{{4096}}, 2);
        replicated->mutableValue(0).bytes = pattern(4096, 3);
        replicated->mutableValue(1).bytes = pattern(4096, 4);
        auto untouched = Variable::fromTensor(bytesTensor(77, 5));
        auto sub = Trackable::makeObject();
        auto dropped = Variable::fromTensor(bytesTensor(5000, 6));
        QVERIFY(root->addChild("touched", touched).isOk());
        QVERIFY(root->addChild("assigned", assigned).isOk());
        QVERIFY(root->addChild("replicated", replicated).isOk());
        QVERIFY(root->addChild("untouched", untouched).isOk());
        QVERIFY(sub->addChild("dropped", dropped).isOk());
        QVERIFY(root->addChild("sub", sub).isOk());
        auto expected = snapshotForSave(*root);
        QVERIFY(expected.ok());

        auto buffers = std::make_shared<SnapshotBuffers>();
        auto snap = DeferredSnapshot::start(*root, buffers);
        QVERIFY2(snap.ok(), snap.status().toString().c_str());
        QCOMPARE((*snap)->bytes(), uint64_t{(3 << 20) + 1000 + 2 * 4096 + 77 + 5000 + 8 * 0});
        std::fill(touched->mutableValue().bytes.begin(), touched->mutableValue().bytes.end(), uint8_t{0xee});
        QVERIFY(assigned->assign(bytesTensor(1000, 99)).isOk());
        replicated->setReplicaCount(1);
        replicated->mutableValue(0).bytes.assign(4096, 0);
        // 'sub' goes away with the root's graph: its variable is copied as it dies.
        dropped.reset();
        root.reset();
        sub.reset();
        QVERIFY((*snap)->stallSeconds() > 0);

        const std::vector<SaveTensor> tensors = (*snap)->finish();
        QCOMPARE(tensors.size(), expected->size());
        QVERIFY(valuesIn(tensors) == valuesIn(*expected));
        QCOMPARE(tensors.back().key, expected->back().key);
        QCOMPARE(tensors.back().value.strings, expected->back().value.strings);  // the object graph
    }

    // The writer thread and the caller race for the same variables: the
    // caller changes them in random order right after start() while
    // finish() runs on another thread. Repeated, so that both orders occur.
    void callerAndWriterRace() {
        auto root = Trackable::makeObject();
        std::vector<std::shared_ptr<Variable>> vars;
        for (int i = 0; i < 48; ++i) {
            vars.push_back(Variable::fromTensor(bytesTensor(size_t{64} << 10, static_cast<uint32_t>(i))));
            QVERIFY(root->addChild("v" + std::to_string(i), vars.back()).isOk());
        }
        auto buffers = std::make_shared<SnapshotBuffers>();
        std::mt19937 rng(7);
        for (int round = 1; round <= 30; ++round) {
            auto expected = snapshotForSave(*root);
            QVERIFY(expected.ok());
            auto snap = DeferredSnapshot::start(*root, buffers);
            QVERIFY(snap.ok());
            std::vector<SaveTensor> written;
            std::thread writer([&] { written = (*snap)->finish(); });
            std::vector<size_t> order(vars.size());
            for (size_t i = 0; i < order.size(); ++i) order[i] = i;
            std::shuffle(order.begin(), order.end(), rng);
            for (size_t i : order)
                vars[i]->mutableValue().bytes = pattern(size_t{64} << 10, static_cast<uint32_t>(round * 1000 + i));
            writer.join();
            QVERIFY2(valuesIn(written) == valuesIn(*expected), qPrintable(QStringLiteral("round %1").arg(round)));
            for (SaveTensor& t : written) buffers->give(std::move(t.value.bytes));
        }
    }

    // Through the manager, with the next step's changes made the moment save()
    // returns: every checkpoint holds its own step's values. Whether the
    // caller or the writer copies 'big' first is up to the scheduler, so the
    // stall is only checked where it is certain: none once sync() returned.
    void managerSavesEachStepsValues() {
        QTemporaryDir tmp;
        auto root = Trackable::makeObject();
        auto big = Variable::fromTensor(bytesTensor((size_t{9} << 20) + 3, 0));
        auto small = Variable::fromTensor(bytesTensor(24, 0));
        QVERIFY(root->addChild("big", big).isOk());
        QVERIFY(root->addChild("small", small).isOk());
        CheckpointManagerOptions o;
        o.maxToKeep = 5;
        o.async = true;
        o.asyncSnapshot = CheckpointManagerOptions::Snapshot::Deferred;
        auto m = CheckpointManager::create(root, tmp.path().toStdString(), o);
        QVERIFY(m.ok());
        for (uint32_t step = 1; step <= 4; ++step) {
            big->mutableValue().bytes = pattern(big->value().bytes.size(), step);
            QVERIFY(small->assign(bytesTensor(24, step + 100)).isOk());
            auto saved = (*m)->save();
            QVERIFY2(saved.ok(), saved.status().toString().c_str());
            QCOMPARE(saved->bytes, uint64_t{(size_t{9} << 20) + 3 + 24 + 8});  // + save_counter
            QCOMPARE(saved->path, std::optional<std::string>(tmp.filePath(QStringLiteral("ckpt-%1").arg(step)).toStdString()));
            // Nothing came before the first save to stall on.
            if (step == 1) QCOMPARE(saved->previousStallSeconds, 0.0);
            // The next step's values, racing the writer's copy.
            std::fill(big->mutableValue().bytes.begin(), big->mutableValue().bytes.end(), uint8_t{0xee});
            QVERIFY(small->assign(bytesTensor(24, 0xdead)).isOk());
        }
        QVERIFY((*m)->sync().isOk());
        for (uint32_t step = 1; step <= 4; ++step) {
            const std::string prefix = tmp.filePath(QStringLiteral("ckpt-%1").arg(step)).toStdString();
            QVERIFY(verifyBundle(prefix)->ok());
            auto reader = BundleReader::open(prefix);
            QVERIFY(reader.ok());
            auto b = (*reader)->read("big/.ATTRIBUTES/VARIABLE_VALUE");
            QVERIFY(b.ok());
            QVERIFY2(b->bytes == pattern(big->value().bytes.size(), step), prefix.c_str());
            auto s = (*reader)->read("small/.ATTRIBUTES/VARIABLE_VALUE");
            QVERIFY(s.ok());
            QVERIFY(s->bytes == pattern(24, step + 100));
        }
        QVERIFY((*m)->save().ok());
        QVERIFY((*m)->sync().isOk());
        big->mutableValue().bytes[0] ^= 1;  // already copied: no stall
        auto after = (*m)->save();
        QVERIFY(after.ok());
        QCOMPARE(after->previousStallSeconds, 0.0);
        QVERIFY((*m)->sync().isOk());
    }
};

QTEST_GUILESS_MAIN(TstDeferredSnapshot)
#include "tst_deferred_snapshot.moc"
