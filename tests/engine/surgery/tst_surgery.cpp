// Checkpoint surgery (ckpt/surgery.h) on files the engine's own save
// pipeline writes and on the real corpus: averages equal their float64
// definition, refusals name the problem, a disk that fills at any write
// and a cancellation leave nothing at the destination and the sources'
// bytes as they were. TensorFlow's view of the results is
// tst_surgery_interop's.

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/npy.h"
#include "ckpt/save.h"
#include "ckpt/surgery.h"
#include "ckpt/trackable.h"
#include "fault_storage.h"
#include "test_support.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

using namespace ckpt;
using namespace ckpt::testing;

namespace {

const std::string kSuffix = "/.ATTRIBUTES/VARIABLE_VALUE";
const std::string kDenseKernel = "model/dense/kernel" + kSuffix;
const std::string kDenseBias = "model/dense/bias" + kSuffix;
const std::string kHeadKernel = "model/head/kernel" + kSuffix;
const std::string kStep = "step" + kSuffix;

// What to change in a program, for sources that must not average together.
struct Shape {
    DataType kernelDtype = DataType::Float;
    int64_t hidden = 8;
    bool head = true;
    bool optimizer = true;
};

// tf.train.Checkpoint(model=(dense{kernel,bias}, head{kernel}), optimizer=
// Adam with slots m and v of every kernel, step=int64). Element i of each
// float variable holds base + i * 0.125 (exact in float32); slot m holds
// -base, v holds 2 * base; step holds 'step'.
std::shared_ptr<Trackable> makeProgram(float base, int64_t step, const Shape& shape = {}) {
    auto root = Trackable::makeObject();
    auto model = Trackable::makeObject();
    auto dense = Trackable::makeObject();
    std::vector<std::shared_ptr<Variable>> kernels;
    kernels.push_back(Variable::make(shape.kernelDtype, TensorShape{{4, shape.hidden}}));
    (void)dense->addChild("kernel", kernels.back());
    auto bias = Variable::make(DataType::Float, TensorShape{{shape.hidden}});
    (void)dense->addChild("bias", bias);
    (void)model->addChild("dense", dense);
    if (shape.head) {
        auto head = Trackable::makeObject();
        kernels.push_back(Variable::make(DataType::Float, TensorShape{{shape.hidden, 1}}));
        (void)head->addChild("kernel", kernels.back());
        (void)model->addChild("head", head);
    }
    (void)root->addChild("model", model);
    auto fill = [](Variable& v, float first, float stride) {
        Tensor& t = v.mutableValue();
        for (int64_t i = 0; i < t.numElements(); ++i) {
            const double x = first + static_cast<double>(i) * stride;
            if (t.dtype == DataType::Double) reinterpret_cast<double*>(t.bytes.data())[i] = x;
            else reinterpret_cast<float*>(t.bytes.data())[i] = static_cast<float>(x);
        }
    };
    for (auto& k : kernels) fill(*k, base, 0.125f);
    fill(*bias, base, 0.125f);
    if (shape.optimizer) {
        auto adam = Optimizer::make();
        for (auto& k : kernels) {
            fill(*adam->createSlot(*k, "m"), -base, 0);
            fill(*adam->createSlot(*k, "v"), 2 * base, 0);
        }
        (void)root->addChild("optimizer", adam);
    }
    auto counter = Variable::make(DataType::Int64, TensorShape{{}});
    std::memcpy(counter->mutableValue().bytes.data(), &step, sizeof step);
    (void)root->addChild("step", counter);
    return root;
}

std::string writeProgram(const std::string& prefix, float base, int64_t step, const Shape& shape = {}) {
    auto root = makeProgram(base, step, shape);
    auto saved = writeCheckpoint(*root, prefix, SaveOptions{});
    return saved.ok() ? prefix : std::string();
}

// SHA-256 of every file under 'dir', by path.
std::map<QString, QByteArray> hashTree(const QString& dir) {
    std::map<QString, QByteArray> out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        out[path] = QCryptographicHash::hash(readAll(path), QCryptographicHash::Sha256).toHex();
    }
    return out;
}

// Everything under 'dir' (files and directories), relative.
QStringList entriesUnder(const QString& dir) {
    QStringList out;
    QDirIterator it(dir, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) out << QDir(dir).relativeFilePath(it.next());
    return out;
}

Result<Tensor> readTensor(const std::string& prefix, const std::string& key) {
    auto reader = BundleReader::open(prefix);
    if (!reader.ok()) return reader.status();
    return (*reader)->read(key);
}

bool writeNpy(const QString& path, DataType dtype, const TensorShape& shape, const QByteArray& values) {
    const std::string head = npyPreamble(npyDescr(dtype), shape);
    return writeAll(path, QByteArray::fromStdString(head) + values);
}

QByteArray floats(std::initializer_list<float> values, int repeat = 1) {
    QByteArray out;
    for (int r = 0; r < repeat; ++r)
        for (float f : values) out.append(reinterpret_cast<const char*>(&f), sizeof f);
    return out;
}

using Operation = std::function<Result<SurgeryResult>(const SurgeryOptions&)>;

EditSpec renaming(const std::string& from, const std::string& to) {
    EditSpec spec;
    spec.renames = {{from, to}};
    return spec;
}

EditSpec deleting(const std::string& path) {
    EditSpec spec;
    spec.deletes = {path};
    return spec;
}

EditSpec setting(const std::string& key, const std::string& npy) {
    EditSpec spec;
    spec.sets = {{key, npy}};
    return spec;
}

}  // namespace

class TstSurgery : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_sources;  // a, b, c: the same program, base 1, 2, 6 and step 10, 20, 30
    std::string m_a, m_b, m_c;

    std::string out(const char* name) const { return m_dir.filePath(QStringLiteral("out/") + QLatin1String(name)).toStdString(); }

    // One operation of each kind on the three sources, writing to 'dst'.
    Operation operation(const QString& kind, const std::string& dst) const {
        const std::string a = m_a, b = m_b, c = m_c;
        if (kind == QLatin1String("merge")) {
            const std::string model = m_dir.filePath(QStringLiteral("parts/model")).toStdString();
            const std::string other = m_dir.filePath(QStringLiteral("parts/other")).toStdString();
            return [=](const SurgeryOptions& o) { return mergeCheckpoints({model, other}, dst, o); };
        }
        if (kind == QLatin1String("average"))
            return [=](const SurgeryOptions& o) { return averageCheckpoints({a, b, c}, dst, AverageSpec{}, o); };
        if (kind == QLatin1String("ema")) {
            AverageSpec spec;
            spec.method = AverageMethod::Ema;
            return [=](const SurgeryOptions& o) { return averageCheckpoints({a, b, c}, dst, spec, o); };
        }
        return [=](const SurgeryOptions& o) -> Result<SurgeryResult> {
            auto source = Checkpoint::open(a);
            if (!source.ok()) return source.status();
            EditSpec spec;
            spec.renames = {{"model.dense", "model.renamed"}};
            spec.stripOptimizer = true;
            auto plan = planEdit(**source, spec);
            if (!plan.ok()) return plan.status();
            return applyEdit(*plan, dst, o);
        };
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_sources = m_dir.filePath(QStringLiteral("sources"));
        m_a = writeProgram(m_sources.toStdString() + "/a", 1, 10);
        m_b = writeProgram(m_sources.toStdString() + "/b", 2, 20);
        m_c = writeProgram(m_sources.toStdString() + "/c", 6, 30);
        QVERIFY(!m_a.empty() && !m_b.empty() && !m_c.empty());
        // Two bundles with disjoint keys, each with its own object graph.
        auto model = Trackable::makeObject();
        auto kernel = Variable::make(DataType::Float, TensorShape{{3, 3}});
        QVERIFY(model->addChild("kernel", kernel).isOk());
        auto left = Trackable::makeObject();
        QVERIFY(left->addChild("model", model).isOk());
        QVERIFY(writeCheckpoint(*left, m_dir.filePath(QStringLiteral("parts/model")).toStdString(), {}).ok());
        auto right = Trackable::makeObject();
        QVERIFY(right->addChild("other", Variable::make(DataType::Int32, TensorShape{{5}})).isOk());
        QVERIFY(writeCheckpoint(*right, m_dir.filePath(QStringLiteral("parts/other")).toStdString(), {}).ok());
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("out"))));
    }

    // Mean, weighted mean and EMA against their definitions in float64 (the
    // values are exact in float32 either way); the step is the first
    // source's, with a note; the object graph is the first's.
    void averageValues_data() {
        QTest::addColumn<int>("method");
        QTest::addColumn<QList<double>>("weights");
        QTest::addColumn<double>("expectedBase");  // of the sources' bases 1, 2, 6
        QTest::newRow("mean") << int(AverageMethod::Mean) << QList<double>{} << 3.0;
        QTest::newRow("weighted mean") << int(AverageMethod::Mean) << QList<double>{1, 1, 2} << 3.75;
        // e = 0.5 * (0.5 * 1 + 0.5 * 2) + 0.5 * 6
        QTest::newRow("ema 0.5") << int(AverageMethod::Ema) << QList<double>{} << 3.75;
    }
    void averageValues() {
        QFETCH(int, method);
        QFETCH(QList<double>, weights);
        QFETCH(double, expectedBase);
        const std::string dst = out(QTest::currentDataTag());
        AverageSpec spec;
        spec.method = static_cast<AverageMethod>(method);
        spec.weights.assign(weights.begin(), weights.end());
        spec.emaDecay = 0.5;
        auto done = averageCheckpoints({m_a, m_b, m_c}, dst, spec, SurgeryOptions{});
        QVERIFY2(done.ok(), done.status().toString().c_str());
        QVERIFY(done->verify.ok());
        QVERIFY2(!done->notes.empty(), "no note for the step taken from the first source");
        auto kernel = readTensor(dst, kDenseKernel);
        QVERIFY2(kernel.ok(), kernel.status().toString().c_str());
        for (int64_t i = 0; i < kernel->numElements(); ++i)
            QCOMPARE(kernel->as<float>()[static_cast<size_t>(i)], static_cast<float>(expectedBase + i * 0.125));
        auto m = readTensor(dst, "model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m" + kSuffix);
        QVERIFY2(m.ok(), m.status().toString().c_str());
        QCOMPARE(m->as<float>()[0], static_cast<float>(-expectedBase));
        auto step = readTensor(dst, kStep);
        QVERIFY2(step.ok(), step.status().toString().c_str());
        QCOMPARE(step->as<int64_t>()[0], int64_t{10});
        auto result = Checkpoint::open(dst);
        auto first = Checkpoint::open(m_a);
        QVERIFY(result.ok() && first.ok());
        QVERIFY((*result)->objectGraph() && (*first)->objectGraph());
        QCOMPARE((*result)->objectGraph()->nodes().size(), (*first)->objectGraph()->nodes().size());
    }

    // weightsOnly: no optimizer, no slot variables; the model's values stay.
    void averageWeightsOnly() {
        AverageSpec spec;
        spec.weightsOnly = true;
        const std::string dst = out("weights only");
        auto done = averageCheckpoints({m_a, m_b}, dst, spec, SurgeryOptions{});
        QVERIFY2(done.ok(), done.status().toString().c_str());
        auto reader = BundleReader::open(dst);
        QVERIFY(reader.ok());
        for (const TensorInfo& t : (*reader)->tensors()) {
            QVERIFY2(t.key.find(".OPTIMIZER_SLOT") == std::string::npos, t.key.c_str());
            QVERIFY2(t.key.rfind("optimizer/", 0) != 0, t.key.c_str());
        }
        QVERIFY((*reader)->find(kDenseKernel));
        QVERIFY((*reader)->find(kHeadKernel));
    }

    // Bad input: an error (of the code given, where the header promises
    // one) whose message names what is wrong; nothing at the destination.
    void badInput_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("code");  // -1: any error
        QTest::addColumn<QStringList>("fragments");
        const int invalid = int(StatusCode::InvalidArgument);
        QTest::newRow("average: dtype mismatch") << "dtype" << invalid << QStringList{QString::fromStdString(kDenseKernel)};
        QTest::newRow("average: shape mismatch")
            << "shape" << invalid << QStringList{QString::fromStdString(kDenseKernel), QString::fromStdString(kDenseBias)};
        QTest::newRow("average: missing keys") << "keys" << invalid << QStringList{QString::fromStdString(kHeadKernel)};
        QTest::newRow("average: weights for another count") << "weights" << invalid << QStringList{QStringLiteral("weight")};
        QTest::newRow("average: slerp of three") << "slerp3" << invalid << QStringList{};
        QTest::newRow("average: unknown source") << "missing source" << -1 << QStringList{QStringLiteral("nowhere")};
        QTest::newRow("merge: conflicting keys listed")
            << "conflict" << invalid
            << QStringList{QString::fromStdString(kDenseKernel), QString::fromStdString(kDenseBias),
                           QString::fromStdString(kStep)};
        QTest::newRow("destination is a source") << "dst source" << -1 << QStringList{QStringLiteral("sources/b")};
        QTest::newRow("destination inside a source directory") << "dst inside" << -1 << QStringList{QStringLiteral("sources")};
        QTest::newRow("destination exists") << "dst exists" << -1 << QStringList{QStringLiteral("taken")};
        QTest::newRow("edit: rename onto an existing name") << "rename onto" << invalid << QStringList{QStringLiteral("head")};
        QTest::newRow("edit: rename of an unknown path") << "rename unknown" << invalid << QStringList{QStringLiteral("nope")};
        QTest::newRow("edit: delete of an unknown path") << "delete unknown" << invalid << QStringList{QStringLiteral("nope")};
        QTest::newRow("edit: delete leaving slots dangling")
            << "delete dangling" << invalid
            << QStringList{QStringLiteral("(root).optimizer's state 'm' for (root).model.dense.kernel"),
                           QStringLiteral("(root).optimizer's state 'v' for (root).model.dense.kernel")};
        QTest::newRow("edit: set with another dtype")
            << "set dtype" << invalid << QStringList{QStringLiteral("model/dense/bias")};
        QTest::newRow("edit: set with another shape")
            << "set shape" << invalid << QStringList{QStringLiteral("model/dense/bias")};
        QTest::newRow("edit: set of an unknown key") << "set unknown" << invalid << QStringList{QStringLiteral("nope")};
        QTest::newRow("edit: nothing to change") << "nothing" << invalid << QStringList{};
    }
    void badInput() {
        QFETCH(QString, name);
        QFETCH(int, code);
        QFETCH(QStringList, fragments);
        const QString base = m_dir.filePath(QStringLiteral("bad/") + name);
        const std::string b = base.toStdString();
        QVERIFY(QDir().mkpath(base));
        const std::string dst = b + "/dst/result";
        const auto before = hashTree(m_sources);
        auto edit = [&](const EditSpec& spec) -> Status {
            auto source = Checkpoint::open(m_a);
            if (!source.ok()) return source.status();
            auto plan = planEdit(**source, spec);
            if (!plan.ok()) return plan.status();
            return applyEdit(*plan, dst, SurgeryOptions{}).status();
        };
        Status status;
        if (name == QLatin1String("dtype")) {
            Shape s;
            s.kernelDtype = DataType::Double;
            status = averageCheckpoints({m_a, writeProgram(b + "/other", 2, 20, s)}, dst, {}, {}).status();
        } else if (name == QLatin1String("shape")) {
            Shape s;
            s.hidden = 9;
            status = averageCheckpoints({m_a, writeProgram(b + "/other", 2, 20, s)}, dst, {}, {}).status();
        } else if (name == QLatin1String("keys")) {
            Shape s;
            s.head = false;
            status = averageCheckpoints({m_a, writeProgram(b + "/other", 2, 20, s)}, dst, {}, {}).status();
        } else if (name == QLatin1String("weights")) {
            AverageSpec spec;
            spec.weights = {1, 2};
            status = averageCheckpoints({m_a, m_b, m_c}, dst, spec, {}).status();
        } else if (name == QLatin1String("slerp3")) {
            AverageSpec spec;
            spec.method = AverageMethod::Slerp;
            status = averageCheckpoints({m_a, m_b, m_c}, dst, spec, {}).status();
        } else if (name == QLatin1String("missing source")) {
            status = averageCheckpoints({m_a, b + "/nowhere/ckpt"}, dst, {}, {}).status();
        } else if (name == QLatin1String("conflict")) {
            status = mergeCheckpoints({m_a, m_b}, dst, {}).status();
        } else if (name == QLatin1String("dst source")) {
            status = averageCheckpoints({m_a, m_b}, m_b, {}, {}).status();
        } else if (name == QLatin1String("dst inside")) {
            status = checkSurgeryDestination(m_sources.toStdString() + "/avg", {m_sources.toStdString()}, false);
            QVERIFY2(!status.isOk(), "a destination inside a source directory is accepted");
            auto expanded = expandAverageSources({m_sources.toStdString()}, 0, AverageMethod::Mean);
            QVERIFY2(expanded.ok(), expanded.status().toString().c_str());
        } else if (name == QLatin1String("dst exists")) {
            const std::string taken = writeProgram(b + "/taken", 5, 50);
            QVERIFY(!taken.empty());
            const auto takenBefore = hashTree(base);
            status = averageCheckpoints({m_a, m_b}, taken, {}, {}).status();
            QCOMPARE(hashTree(base), takenBefore);
            SurgeryOptions overwrite;
            overwrite.overwrite = true;
            auto replaced = averageCheckpoints({m_a, m_b}, taken, {}, overwrite);
            QVERIFY2(replaced.ok(), replaced.status().toString().c_str());
        } else if (name == QLatin1String("rename onto")) {
            status = edit(renaming("model.dense", "model.head"));
        } else if (name == QLatin1String("rename unknown")) {
            status = edit(renaming("model.nope", "model.other"));
        } else if (name == QLatin1String("delete unknown")) {
            status = edit(deleting("model.nope"));
        } else if (name == QLatin1String("delete dangling")) {
            status = edit(deleting("model.dense.kernel"));
        } else if (name == QLatin1String("set dtype")) {
            QByteArray doubles(8 * 8, '\0');
            QVERIFY(writeNpy(base + "/bias.npy", DataType::Double, TensorShape{{8}}, doubles));
            status = edit(setting(kDenseBias, b + "/bias.npy"));
        } else if (name == QLatin1String("set shape")) {
            QVERIFY(writeNpy(base + "/bias.npy", DataType::Float, TensorShape{{9}}, floats({1}, 9)));
            status = edit(setting(kDenseBias, b + "/bias.npy"));
        } else if (name == QLatin1String("set unknown")) {
            QVERIFY(writeNpy(base + "/bias.npy", DataType::Float, TensorShape{{8}}, floats({1}, 8)));
            status = edit(setting("model/nope" + kSuffix, b + "/bias.npy"));
        } else if (name == QLatin1String("nothing")) {
            status = edit(EditSpec{});
        } else {
            QFAIL("unknown row");
        }
        QVERIFY2(!status.isOk(), "accepted");
        if (code >= 0) QVERIFY2(int(status.code()) == code, status.toString().c_str());
        for (const QString& f : fragments)
            QVERIFY2(
                QString::fromStdString(status.message()).contains(f),
                qPrintable(QStringLiteral("the message does not name %1: %2").arg(f, QString::fromStdString(status.toString()))));
        QVERIFY2(entriesUnder(base + QStringLiteral("/dst")).isEmpty(), qPrintable(entriesUnder(base + "/dst").join(", ")));
        QCOMPARE(hashTree(m_sources), before);
    }

    // ENOSPC at the first, second, ... write of each operation, until one
    // runs through: each fails with a clear error (ResourceExhausted,
    // naming the cause), leaves nothing at the destination, and the
    // sources' bytes are unchanged. The destination's directory exists
    // beforehand; what a failure may leave there is nothing at all.
    //
    // With overwrite, a checkpoint is at the destination before each try:
    // after a failure the destination holds that checkpoint byte for byte
    // (the failure came before the result replaced it) or nothing at all.
    void diskFullMidWrite_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("replacing");
        for (const char* kind : {"merge", "average", "ema", "edit"}) {
            QTest::newRow(kind) << QString::fromLatin1(kind) << false;
            QTest::newRow(qPrintable(QLatin1String(kind) + QLatin1String(", overwriting"))) << QString::fromLatin1(kind) << true;
        }
    }
    void diskFullMidWrite() {
        QFETCH(QString, kind);
        QFETCH(bool, replacing);
        const QString dir = m_dir.filePath(QStringLiteral("full/") + QString::fromLatin1(QTest::currentDataTag()));
        QVERIFY(QDir().mkpath(dir));
        const std::string dst = dir.toStdString() + "/result";
        const Operation op = operation(kind, dst);
        const auto before = hashTree(m_dir.filePath(QStringLiteral("sources")));
        const auto partsBefore = hashTree(m_dir.filePath(QStringLiteral("parts")));
        int failures = 0;
        for (int64_t at = 1;; ++at) {
            QVERIFY2(at < 10000, "the operation never finishes");
            std::map<QString, QByteArray> previous;
            if (replacing) {
                QVERIFY(QDir(dir).removeRecursively() && QDir().mkpath(dir));
                Shape other;
                other.optimizer = false;
                QVERIFY(!writeProgram(dst, 9, 90, other).empty());
                previous = hashTree(dir);
            }
            SurgeryOptions options;
            options.overwrite = replacing;
            FaultStorage ops(m_dir.path().toStdString());
            FileFault fault;
            fault.at = at;
            fault.kind = FileOpKind::Write;
            fault.error = ENOSPC;
            ops.arm(fault);
            std::optional<Result<SurgeryResult>> result;
            {
                ScopedStorage installed(ops);
                result.emplace(op(options));
            }
            const Result<SurgeryResult>& done = *result;
            QCOMPARE(hashTree(m_dir.filePath(QStringLiteral("sources"))), before);
            QCOMPARE(hashTree(m_dir.filePath(QStringLiteral("parts"))), partsBefore);
            if (!ops.faultHit()) {
                QVERIFY2(done.ok(), done.status().toString().c_str());
                break;
            }
            ++failures;
            const QByteArray context =
                "write " + QByteArray::number(at) + ": " + QByteArray::fromStdString(done.status().toString());
            QVERIFY2(!done.ok(), context.constData());
            QVERIFY2(done.status().code() == StatusCode::ResourceExhausted, context.constData());
            QVERIFY2(QString::fromStdString(done.status().message()).contains(QStringLiteral("space"), Qt::CaseInsensitive),
                     context.constData());
            const QStringList left = entriesUnder(dir);
            const bool untouched = replacing && hashTree(dir) == previous;
            QVERIFY2(left.isEmpty() || untouched, (context + "\nleft: " + left.join(QStringLiteral(", ")).toUtf8()).constData());
        }
        QVERIFY2(failures > 0, "no write was ever made");
        QVERIFY(QFileInfo::exists(QString::fromStdString(dst) + QStringLiteral(".index")));
    }

    // Progress comes in the phases surgery.h names, in order: "read",
    // "write", "verify" (the CLI ends its progress line on "verify").
    void progressPhases_data() {
        QTest::addColumn<QString>("kind");
        for (const char* kind : {"merge", "average", "edit"}) QTest::newRow(kind) << QString::fromLatin1(kind);
    }
    void progressPhases() {
        QFETCH(QString, kind);
        const std::string dst = m_dir.filePath(QStringLiteral("phases/") + kind + QStringLiteral("/result")).toStdString();
        QStringList phases;
        SurgeryOptions o;
        o.progress = [&](int64_t, int64_t, std::string_view phase) {
            const QString p = QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size()));
            if (phases.isEmpty() || phases.back() != p) phases << p;
        };
        auto done = operation(kind, dst)(o);
        QVERIFY2(done.ok(), done.status().toString().c_str());
        QCOMPARE(phases, (QStringList{QStringLiteral("read"), QStringLiteral("write"), QStringLiteral("verify")}));
    }

    // A cancellation before the start, while reading or while writing:
    // Cancelled, nothing at the destination, the sources unchanged.
    void cancelled_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("phase");  // "" = before the start
        for (const char* kind : {"merge", "average", "edit"})
            for (const char* phase : {"", "read", "write"})
                QTest::newRow(qPrintable(
                    QStringLiteral("%1, %2").arg(QLatin1String(kind), *phase ? QLatin1String(phase) : QLatin1String("at once"))))
                    << QString::fromLatin1(kind) << QString::fromLatin1(phase);
    }
    void cancelled() {
        QFETCH(QString, kind);
        QFETCH(QString, phase);
        const QString dir = m_dir.filePath(QStringLiteral("cancel/") + QString::fromLatin1(QTest::currentDataTag()));
        QVERIFY(QDir().mkpath(dir));
        const std::string dst = dir.toStdString() + "/result";
        const auto before = hashTree(m_sources);
        CancellationToken token;
        SurgeryOptions o;
        o.cancel = &token;
        bool sawPhase = phase.isEmpty();
        if (phase.isEmpty()) {
            token.cancel();
        } else {
            o.progress = [&](int64_t, int64_t, std::string_view p) {
                if (p == phase.toStdString()) {
                    sawPhase = true;
                    token.cancel();
                }
            };
        }
        auto done = operation(kind, dst)(o);
        QVERIFY2(sawPhase, "no progress reported in that phase");
        QVERIFY2(!done.ok(), "finished despite the cancellation");
        QVERIFY2(done.status().code() == StatusCode::Cancelled, done.status().toString().c_str());
        QVERIFY2(entriesUnder(dir).isEmpty(), qPrintable(entriesUnder(dir).join(QStringLiteral(", "))));
        QCOMPARE(hashTree(m_sources), before);
    }

    // Every real checkpoint averaged with a copy of itself is itself, byte
    // for byte (x / 2 + x / 2 == x in float64, and the cast back is exact),
    // whatever its dtypes, sharding or graph; and it verifies.
    void realCorpusSelfAverage_data() {
        QTest::addColumn<QString>("bundleDir");
        const QStringList dirs = realBundleDirs();
        if (dirs.isEmpty()) QTest::newRow("no corpus") << QString();
        for (const QString& d : dirs) QTest::newRow(qPrintable(QDir(d).dirName())) << d;
    }
    void realCorpusSelfAverage() {
        QFETCH(QString, bundleDir);
        if (bundleDir.isEmpty()) CKPT_MISSING_CORPUS();
        const std::string source = manifestPrefix(bundleDir, loadJson(bundleDir + QStringLiteral("/manifest.json")));
        const QString name = QDir(bundleDir).dirName();
        const QString copy = m_dir.filePath(QStringLiteral("real/copy-") + name);
        QVERIFY(copyDirectory(bundleDir, copy));
        const std::string copyPrefix = copy.toStdString() + source.substr(source.rfind('/'));
        const auto before = hashTree(bundleDir);
        const std::string dst = m_dir.filePath(QStringLiteral("real/avg-") + name + QStringLiteral("/ckpt")).toStdString();
        auto done = averageCheckpoints({source, copyPrefix}, dst, AverageSpec{}, SurgeryOptions{});
        QCOMPARE(hashTree(bundleDir), before);
        QVERIFY2(done.ok(), done.status().toString().c_str());
        QVERIFY(done->verify.ok());
        auto theirs = BundleReader::open(source);
        auto ours = BundleReader::open(dst);
        QVERIFY(theirs.ok() && ours.ok());
        QCOMPARE((*ours)->tensors().size(), (*theirs)->tensors().size());
        for (const TensorInfo& t : (*theirs)->tensors()) {
            if (t.key == "_CHECKPOINTABLE_OBJECT_GRAPH") continue;
            auto a = (*theirs)->read(t);
            if (!a.ok()) continue;  // a dtype without a value decoding: not averaged either
            auto b = (*ours)->read(t.key);
            QVERIFY2(b.ok(), (t.key + ": " + b.status().toString()).c_str());
            QVERIFY2(a->dtype == b->dtype && a->shape == b->shape, t.key.c_str());
            QVERIFY2(a->bytes == b->bytes && a->strings == b->strings, t.key.c_str());
        }
    }

    // Every real object-based checkpoint with optimizer state, stripped:
    // the result verifies, its graph has no optimizer and no slot
    // variable, and it keeps every other tensor byte for byte. One without
    // optimizer state is refused (NotFound), name-based ones too.
    void realCorpusStripOptimizer_data() { realCorpusSelfAverage_data(); }
    void realCorpusStripOptimizer() {
        QFETCH(QString, bundleDir);
        if (bundleDir.isEmpty()) CKPT_MISSING_CORPUS();
        const std::string source = manifestPrefix(bundleDir, loadJson(bundleDir + QStringLiteral("/manifest.json")));
        auto ckpt = Checkpoint::open(source);
        QVERIFY2(ckpt.ok(), ckpt.status().toString().c_str());
        EditSpec spec;
        spec.stripOptimizer = true;
        auto plan = planEdit(**ckpt, spec);
        const ObjectGraph* graph = (*ckpt)->objectGraph();
        bool hasOptimizer = false;
        if (graph)
            for (const ObjectNode& n : graph->nodes())
                hasOptimizer |= n.kind == ObjectKind::Optimizer || n.kind == ObjectKind::SlotVariable;
        if (!hasOptimizer) {
            QVERIFY2(!plan.ok(), "stripping a checkpoint without optimizer state changed something");
            return;
        }
        QVERIFY2(plan.ok(), plan.status().toString().c_str());
        const std::string dst =
            m_dir.filePath(QStringLiteral("real/strip-") + QDir(bundleDir).dirName() + QStringLiteral("/ckpt")).toStdString();
        auto done = applyEdit(*plan, dst, SurgeryOptions{});
        QVERIFY2(done.ok(), done.status().toString().c_str());
        QVERIFY(done->verify.ok());
        auto result = Checkpoint::open(dst);
        QVERIFY2(result.ok(), result.status().toString().c_str());
        QVERIFY((*result)->objectGraph());
        for (const ObjectNode& n : (*result)->objectGraph()->nodes())
            QVERIFY2(n.kind != ObjectKind::Optimizer && n.kind != ObjectKind::SlotVariable,
                     (*result)->objectGraph()->displayName(n.id).c_str());
        int kept = 0;
        for (const KeyChange& k : plan->keys) {
            if (k.kind == KeyChangeKind::Deleted || k.oldKey == "_CHECKPOINTABLE_OBJECT_GRAPH") continue;
            auto a = (*ckpt)->bundle().read(k.oldKey);
            auto b = (*result)->bundle().read(k.newKey);
            if (!a.ok()) continue;  // a dtype without a value decoding
            QVERIFY2(b.ok(), (k.newKey + ": " + b.status().toString()).c_str());
            QVERIFY2(a->bytes == b->bytes && a->strings == b->strings, k.newKey.c_str());
            ++kept;
        }
        QVERIFY(kept > 0);
        QVERIFY(plan->count(KeyChangeKind::Deleted) > 0);
    }
};

QTEST_GUILESS_MAIN(TstSurgery)
#include "tst_surgery.moc"
