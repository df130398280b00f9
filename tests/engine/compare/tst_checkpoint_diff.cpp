// diffCheckpoints, buildDiffTree and computeHistory on checkpoints written
// by the engine's own save pipeline: statuses and renames, the checksum
// shortcut, streamed figures equal to in-memory ones, errors naming the
// side, filters, the merged tree and trajectories across a run.

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/checkpoint_history.h"
#include "ckpt/diff_tree.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"
#include "test_tensors.h"

using namespace ckpt;

namespace {

struct Model {
    std::shared_ptr<Trackable> root;
    std::shared_ptr<Trackable> model;
    std::shared_ptr<Variable> kernel, bias, head, step;
    std::shared_ptr<Optimizer> opt;
};

void fill(Variable& v, float scale) {
    auto* p = reinterpret_cast<float*>(v.mutableValue().bytes.data());
    for (int64_t i = 0; i < v.value().numElements(); ++i) p[i] = scale * std::sin(static_cast<float>(i + 1));
}

// root: model/{<layer>/{kernel, bias}, head}, optimizer with m slots, step.
Model makeModel(const std::string& layerName, int64_t kernelElements = 64) {
    Model m;
    m.root = Trackable::makeObject();
    m.model = Trackable::makeObject();
    auto layer = Trackable::makeObject();
    m.kernel = Variable::make(DataType::Float, TensorShape{{kernelElements}});
    m.bias = Variable::make(DataType::Float, TensorShape{{4}});
    m.head = Variable::make(DataType::Float, TensorShape{{3}});
    m.step = Variable::make(DataType::Int64, TensorShape{});
    fill(*m.kernel, 1.0f);
    fill(*m.bias, 0.5f);
    fill(*m.head, 2.0f);
    m.opt = Optimizer::make();
    for (Variable* v : {m.kernel.get(), m.bias.get()}) fill(*m.opt->createSlot(*v, "m"), 0.1f);
    if (!layer->addChild("kernel", m.kernel).isOk() || !layer->addChild("bias", m.bias).isOk() ||
        !m.model->addChild(layerName, layer).isOk() || !m.model->addChild("head", m.head).isOk() ||
        !m.root->addChild("model", m.model).isOk() || !m.root->addChild("optimizer", m.opt).isOk() ||
        !m.root->addChild("step", m.step).isOk())
        qFatal("building the model failed");
    return m;
}

std::string save(const Model& m, const QTemporaryDir& dir, const char* name) {
    const std::string prefix = dir.filePath(QString::fromLatin1(name)).toStdString();
    auto s = writeCheckpoint(*m.root, prefix, {});
    if (!s.ok()) qFatal("%s", s.status().toString().c_str());
    return prefix;
}

CheckpointDiff diffOf(const std::string& a, const std::string& b, const DiffOptions& opt = {}) {
    auto d = diffCheckpoints(a, b, opt);
    if (!d.ok()) qFatal("%s", d.status().toString().c_str());
    return *d;
}

const DiffEntry* find(const CheckpointDiff& d, const std::string& path) {
    for (const DiffEntry& e : d.entries)
        if (e.displayPath() == path) return &e;
    return nullptr;
}

}  // namespace

class TestCheckpointDiff : public QObject {
    Q_OBJECT

private slots:
    void selfIsEqualFromChecksums() {
        QTemporaryDir dir;
        const Model m = makeModel("dense");
        const std::string a = save(m, dir, "a");
        const CheckpointDiff d = diffOf(a, a);
        QVERIFY(d.equal());
        QVERIFY(d.pairedByPath);
        QCOMPARE(d.bytesRead, 0);
        QCOMPARE(d.fromChecksums, d.counts.unchanged);
        QCOMPARE(d.counts.unchanged, 6);  // kernel, bias, head, their 2 slots, step
    }

    void modifiedAddedDeletedAndTypeChanged() {
        QTemporaryDir dir;
        Model m = makeModel("dense");
        const std::string a = save(m, dir, "a");
        fill(*m.kernel, 1.5f);
        const int64_t seven = 7;
        std::memcpy(m.step->mutableValue().bytes.data(), &seven, 8);
        (void)m.model->addChild("extra", Variable::make(DataType::Float, TensorShape{{2}}));
        const std::string b = save(m, dir, "b");
        const CheckpointDiff d = diffOf(a, b);
        const DiffEntry* kernel = find(d, "(root).model.dense.kernel");
        QVERIFY(kernel);
        QCOMPARE(kernel->status, DiffStatus::Modified);
        QVERIFY(kernel->values && !kernel->values->fromChecksums);
        QVERIFY(std::fabs(kernel->values->relL2 - 0.5) < 1e-6);  // 1.5x - x over x, in float32
        QCOMPARE(kernel->values->cosine, 1.0);
        QCOMPARE(find(d, "(root).model.extra")->status, DiffStatus::Added);
        QCOMPARE(find(d, "(root).step")->status, DiffStatus::Modified);
        QCOMPARE(find(d, "(root).model.dense.bias")->status, DiffStatus::Unchanged);
        QCOMPARE(d.counts.modified, 2);
        QCOMPARE(d.counts.added, 1);
        QVERIFY(!d.equal());

        // A kernel of another shape is T, not an error; the head dropped is D.
        Model other = makeModel("dense", 65);
        (void)other.model;
        const std::string c = save(other, dir, "c");
        const CheckpointDiff t = diffOf(a, c);
        QCOMPARE(find(t, "(root).model.dense.kernel")->status, DiffStatus::TypeChanged);
        QCOMPARE(find(t, "(root).optimizer's state 'm' for (root).model.dense.kernel")->status, DiffStatus::TypeChanged);
    }

    void slotsSitUnderTheirVariable() {
        QTemporaryDir dir;
        Model m = makeModel("dense");
        const std::string a = save(m, dir, "a");
        fill(*m.opt->slot(*m.kernel, "m"), 0.2f);
        const std::string b = save(m, dir, "b");
        const CheckpointDiff d = diffOf(a, b);
        const DiffEntry* slot = find(d, "(root).optimizer's state 'm' for (root).model.dense.kernel");
        QVERIFY(slot);
        QCOMPARE(slot->status, DiffStatus::Modified);
        QCOMPARE(slot->role, DiffRole::SlotVariable);
        QCOMPARE(QString::fromStdString(slot->slotOf), QStringLiteral("(root).model.dense.kernel"));
        QCOMPARE(QString::fromStdString(slot->optimizer), QStringLiteral("(root).optimizer"));
        QCOMPARE(slot->location, (std::vector<std::string>{"model", "dense", "kernel", "m (optimizer)"}));
        // Its row follows the kernel's.
        const auto kernelAt = find(d, "(root).model.dense.kernel") - d.entries.data();
        QCOMPARE(slot - d.entries.data(), kernelAt + 1);

        DiffOptions weights;
        weights.weightsOnly = true;
        const CheckpointDiff w = diffOf(a, b, weights);
        QVERIFY(w.equal());
        QCOMPARE(w.excluded, 2 * 3);  // both slots and the step counter, on both sides
        DiffOptions exclude;
        exclude.excludes = {"*state 'm'*"};
        QVERIFY(diffOf(a, b, exclude).equal());
        DiffOptions include;
        include.includes = {"*head*"};
        QCOMPARE(diffOf(a, b, include).counts.unchanged, 1);
    }

    void renamedLayerIsOneObjectRow() {
        QTemporaryDir dir;
        const std::string a = save(makeModel("dense"), dir, "a");
        const std::string b = save(makeModel("dense_1"), dir, "b");
        const CheckpointDiff d = diffOf(a, b);
        QCOMPARE(d.counts.renamed, 1);
        QCOMPARE(d.counts.changed(), 1);
        const DiffEntry* object = find(d, "(root).model.dense");
        QVERIFY(object);
        QCOMPARE(object->role, DiffRole::Object);
        QCOMPARE(object->status, DiffStatus::Renamed);
        QCOMPARE(QString::fromStdString(object->b->path), QStringLiteral("(root).model.dense_1"));
        QCOMPARE(object->members, 4);  // kernel, bias and their slots
        const auto objectAt = static_cast<int32_t>(object - d.entries.data());
        int members = 0;
        for (const DiffEntry& e : d.entries) members += e.collapsedInto == objectAt;
        QCOMPARE(members, 4);
        const DiffEntry* kernel = find(d, "(root).model.dense.kernel");
        QCOMPARE(QString::fromStdString(kernel->b->path), QStringLiteral("(root).model.dense_1.kernel"));

        const DiffTree tree = buildDiffTree(d);
        // (root) > model > dense_1 (R) > kernel, bias...
        QCOMPARE(tree.nodes[0].children.size(), size_t{1});
        const DiffTreeNode& model = tree.nodes[static_cast<size_t>(tree.nodes[0].children[0])];
        QCOMPARE(QString::fromStdString(model.name), QStringLiteral("model"));
        QCOMPARE(model.status, DiffStatus::Modified);
        QCOMPARE(model.below.renamed, 1);
        const DiffTreeNode& renamed = tree.nodes[static_cast<size_t>(model.children[0])];
        QCOMPARE(QString::fromStdString(renamed.name), QStringLiteral("dense_1"));
        QCOMPARE(renamed.status, DiffStatus::Renamed);
        QCOMPARE(renamed.children.size(), size_t{2});
    }

    void streamedFiguresEqualInMemory() {
        QTemporaryDir dir;
        // 6M floats: two 16 MiB parts.
        Model m = makeModel("dense", int64_t{6} << 20);
        const std::string a = save(m, dir, "a");
        auto* p = reinterpret_cast<float*>(m.kernel->mutableValue().bytes.data());
        const Tensor before = m.kernel->value();
        for (int64_t i = 0; i < m.kernel->value().numElements(); i += 1001) p[i] += 0.25f;
        const std::string b = save(m, dir, "b");
        const CheckpointDiff d = diffOf(a, b);
        const DiffEntry* kernel = find(d, "(root).model.dense.kernel");
        QVERIFY(kernel && kernel->values);
        auto expected = diffTensors(TensorView::of(before), TensorView::of(m.kernel->value()));
        QVERIFY(expected.ok());
        QCOMPARE(kernel->values->mismatches, expected->mismatches);
        QCOMPARE(kernel->values->relL2, expected->relL2);
        QCOMPARE(kernel->values->cosine, expected->cosine);
        QCOMPARE(kernel->values->maxAbsIndex, expected->maxAbsIndex);
        QCOMPARE(kernel->values->meanAbsDiff, expected->meanAbsDiff);
        QCOMPARE(d.bytesRead, 2 * (int64_t{6} << 22));
    }

    void corruptSideIsNamed() {
        QTemporaryDir dir;
        Model m = makeModel("dense");
        const std::string a = save(m, dir, "a");
        fill(*m.kernel, 3.0f);
        const std::string b = save(m, dir, "b");
        // The kernel differs, so its bytes are read (an unchanged value's
        // matching checksum is trusted without reading).
        auto reader = BundleReader::open(b);
        QVERIFY(reader.ok());
        const TensorInfo* kernel = (*reader)->find("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE");
        QVERIFY(kernel);
        QFile data(QString::fromStdString(b + ".data-00000-of-00001"));
        QVERIFY(data.open(QIODevice::ReadWrite));
        QByteArray bytes = data.readAll();
        const auto at = static_cast<qsizetype>(kernel->region.offset + 5);
        bytes[at] = static_cast<char>(bytes[at] ^ 0x40);
        data.seek(0);
        data.write(bytes);
        data.close();
        auto d = diffCheckpoints(a, b);
        QVERIFY(!d.ok());
        QCOMPARE(d.status().code(), StatusCode::DataLoss);
        QVERIFY2(d.status().message().starts_with("B (" + b + ")"), d.status().message().c_str());
        auto missing = diffCheckpoints(dir.filePath(QStringLiteral("nope")).toStdString(), b);
        QVERIFY(missing.status().message().starts_with("A ("));

        // A copy of A without its data file: every checksum agrees, yet the
        // side is broken and the diff says so instead of "equal".
        const std::string copy = dir.filePath(QStringLiteral("copy")).toStdString();
        QVERIFY(QFile::copy(QString::fromStdString(a + ".index"), QString::fromStdString(copy + ".index")));
        auto noShard = diffCheckpoints(a, copy);
        QVERIFY(!noShard.ok());
        QVERIFY2(noShard.status().message().starts_with("B (" + copy + ")"), noShard.status().message().c_str());
        QVERIFY2(noShard.status().message().find("missing data shard") != std::string::npos, noShard.status().message().c_str());
        // A truncated data file: the entries past its end are named.
        QVERIFY(QFile::copy(QString::fromStdString(a + ".data-00000-of-00001"),
                            QString::fromStdString(copy + ".data-00000-of-00001")));
        QVERIFY(QFile::resize(QString::fromStdString(copy + ".data-00000-of-00001"), 8));
        auto truncated = diffCheckpoints(a, copy);
        QCOMPARE(truncated.status().code(), StatusCode::DataLoss);
        QVERIFY2(truncated.status().message().find("past the end") != std::string::npos, truncated.status().message().c_str());

        // Two empty checkpoints are equal.
        auto writeEmpty = [&](const char* name) {
            const std::string prefix = dir.filePath(QString::fromLatin1(name)).toStdString();
            if (!writeTensors(prefix, {}, {}).ok()) qFatal("write");
            return prefix;
        };
        auto empty = diffCheckpoints(writeEmpty("e1"), writeEmpty("e2"));
        QVERIFY2(empty.ok(), empty.status().toString().c_str());
        QVERIFY(empty->equal() && empty->entries.empty());
    }

    void nameBasedPairsByKey() {
        QTemporaryDir dir;
        auto writeKeys = [&](const char* name, float scale) {
            const std::string prefix = dir.filePath(QString::fromLatin1(name)).toStdString();
            std::vector<SaveTensor> tensors;
            for (const char* key : {"dense/kernel", "dense/kernel/Adam", "global_step"}) {
                SaveTensor t;
                t.key = key;
                t.value = ckpt::testing::makeTensor<float>(DataType::Float, {2}, {scale, 2 * scale});
                t.fullShape = t.value.shape;
                tensors.push_back(std::move(t));
            }
            if (!writeTensors(prefix, std::move(tensors), {}).ok()) qFatal("write");
            return prefix;
        };
        const std::string a = writeKeys("a", 1), b = writeKeys("b", 2);
        const CheckpointDiff d = diffOf(a, b);
        QVERIFY(!d.pairedByPath);
        QCOMPARE(d.counts.modified, 3);
        QCOMPARE(find(d, "dense/kernel/Adam")->role, DiffRole::SlotVariable);
        DiffOptions weights;
        weights.weightsOnly = true;
        QCOMPARE(diffOf(a, b, weights).counts.modified, 1);
    }

    void historyFollowsEveryVariable() {
        QTemporaryDir dir;
        Model m = makeModel("dense");
        std::vector<std::string> prefixes;
        prefixes.push_back(save(m, dir, "h1"));
        fill(*m.kernel, 2.0f);  // kernel doubles, bias stays
        prefixes.push_back(save(m, dir, "h2"));
        reinterpret_cast<float*>(m.head->mutableValue().bytes.data())[1] = std::nanf("");
        prefixes.push_back(save(m, dir, "h3"));
        HistoryOptions opt;
        opt.weightsOnly = true;
        auto h = computeHistory(prefixes, opt);
        QVERIFY2(h.ok(), h.status().toString().c_str());
        QCOMPARE(h->checkpoints.size(), size_t{3});
        const VariableHistory* kernel = nullptr;
        const VariableHistory* bias = nullptr;
        for (const VariableHistory& v : h->variables) {
            if (v.path == "(root).model.dense.kernel") kernel = &v;
            if (v.path == "(root).model.dense.bias") bias = &v;
        }
        QVERIFY(kernel && bias);
        QVERIFY(std::isnan(kernel->points[0].relChange));
        QCOMPARE(kernel->points[1].relChange, 1.0);
        QVERIFY(std::fabs(kernel->points[1].norm - 2 * kernel->points[0].norm) < 1e-12 * kernel->points[0].norm);
        QVERIFY(kernel->points[2].unchanged);
        QVERIFY(bias->points[1].unchanged && bias->points[2].unchanged);
        QCOMPARE(bias->points[2].relChange, 0.0);
        QCOMPARE(h->summary.firstNonFinite, std::optional<int>(2));
        QCOMPARE(QString::fromStdString(h->summary.firstNonFiniteVariable), QStringLiteral("(root).model.head"));
        QCOMPARE(h->variables[static_cast<size_t>(h->summary.movedMost[0])].path, std::string("(root).model.dense.kernel"));

        // A directory with one damaged index: the others make the history,
        // the damaged one is named.
        QTemporaryDir run;
        for (const char* name : {"r-1", "r-2", "r-3"}) (void)save(m, run, name);
        QFile index(run.filePath(QStringLiteral("r-2.index")));
        QVERIFY(index.open(QIODevice::WriteOnly | QIODevice::Truncate));
        index.write("not an index");
        index.close();
        auto partial = computeHistory({run.path().toStdString()});
        QVERIFY2(partial.ok(), partial.status().toString().c_str());
        QCOMPARE(partial->checkpoints.size(), size_t{2});
        QCOMPARE(partial->skipped.size(), size_t{1});
        QVERIFY2(partial->skipped[0].find("r-2") != std::string::npos, partial->skipped[0].c_str());

        auto one = computeHistory({prefixes[0]});
        QCOMPARE(one.status().code(), StatusCode::InvalidArgument);
        QTemporaryDir single;
        (void)save(m, single, "only");
        auto lonely = computeHistory({single.path().toStdString()});
        QCOMPARE(lonely.status().code(), StatusCode::InvalidArgument);
        QVERIFY2(lonely.status().message().find("two or more") != std::string::npos, lonely.status().message().c_str());
    }
};

QTEST_APPLESS_MAIN(TestCheckpointDiff)
#include "tst_checkpoint_diff.moc"
