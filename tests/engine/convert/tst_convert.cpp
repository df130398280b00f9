// Export and import (ckpt/convert.h) on checkpoints written here: names,
// every dtype bit for bit both ways, weights-only, unsupported dtypes, a
// spec that does not fit, destinations that must be refused, a disk that
// fills at every write-side call (FaultStorage; RLIMIT_FSIZE for libzip's
// own writes) and cancellation: a failure leaves the error and nothing else.

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>

#include <csignal>
#include <fstream>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/convert.h"
#include "ckpt/model_spec.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"
#include "ckpt/verify.h"
#include "convert/array_file.h"
#include "fault_storage.h"
#include "test_support.h"

using namespace ckpt;

namespace {

const DataType kDtypes[] = {DataType::Bool,     DataType::UInt8,  DataType::Int8,  DataType::Int16,  DataType::UInt16,
                            DataType::Int32,    DataType::UInt32, DataType::Int64, DataType::UInt64, DataType::Half,
                            DataType::BFloat16, DataType::Float,  DataType::Double};

std::shared_ptr<Variable> patterned(DataType dtype, TensorShape shape, int seed) {
    auto v = Variable::make(dtype, std::move(shape));
    auto& bytes = v->mutableValue().bytes;
    for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = dtype == DataType::Bool ? static_cast<uint8_t>((i + seed) % 2) : static_cast<uint8_t>(i * 31 + seed);
    return v;
}

// (root).model.dense.{kernel,bias}, (root).model.dtypes.<each dtype>,
// (root).optimizer with slot 'm' of the kernel, and with 'withString'
// (root).model.vocab (DT_STRING).
std::shared_ptr<Trackable> makeModel(bool withString) {
    auto root = Trackable::makeObject();
    auto model = Trackable::makeObject();
    auto dense = Trackable::makeObject();
    auto kernel = patterned(DataType::Float, TensorShape{{64, 64}}, 1);
    (void)dense->addChild("kernel", kernel);
    (void)dense->addChild("bias", patterned(DataType::Float, TensorShape{{64}}, 2));
    (void)model->addChild("dense", dense);
    auto dtypes = Trackable::makeObject();
    int seed = 3;
    for (DataType d : kDtypes)
        (void)dtypes->addChild(std::string(dataTypeShortName(d)), patterned(d, TensorShape{{3, 2}}, seed++));
    (void)dtypes->addChild("scalar", patterned(DataType::Int64, TensorShape{}, 7));
    (void)dtypes->addChild("empty", patterned(DataType::Float, TensorShape{{0, 5}}, 8));
    (void)model->addChild("dtypes", dtypes);
    if (withString) {
        auto vocab = Variable::make(DataType::String, TensorShape{{2}});
        vocab->mutableValue().strings = {"a", "bc"};
        (void)model->addChild("vocab", vocab);
    }
    (void)root->addChild("model", model);
    auto opt = Optimizer::make();
    auto m = opt->createSlot(*kernel, "m");
    m->mutableValue().bytes.assign(m->mutableValue().bytes.size(), 5);
    (void)root->addChild("optimizer", opt);
    return root;
}

QStringList filesIn(const QString& dir) {
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

// Every array of 'file' equals the source tensor it was named after.
QString compareWithSource(const std::string& file, const std::string& prefix, bool byPath) {
    auto arrays = convert::ArrayFile::open(file);
    if (!arrays.ok()) return QString::fromStdString(arrays.status().toString());
    auto ckpt = Checkpoint::open(prefix);
    if (!ckpt.ok()) return QString::fromStdString(ckpt.status().toString());
    std::map<std::string, std::string> keyOf;  // array name -> key
    for (const ObjectNode& n : (*ckpt)->objectGraph()->nodes())
        for (const ObjectAttribute& a : n.attributes) {
            std::string name = a.checkpointKey;
            if (byPath) {
                name = n.prettyPath->substr(std::string("(root).").size());
                if (n.kind == ObjectKind::SlotVariable) name = "optimizer/m/model.dense.kernel";
            }
            keyOf[name] = a.checkpointKey;
        }
    for (size_t i = 0; i < (*arrays)->arrays().size(); ++i) {
        const std::string& name = (*arrays)->arrays()[i].name;
        if (!keyOf.count(name)) return QStringLiteral("unexpected array ") + QString::fromStdString(name);
        auto want = (*ckpt)->bundle().read(keyOf[name]);
        auto got = (*arrays)->read(i);
        if (!want.ok() || !got.ok()) return QStringLiteral("cannot read ") + QString::fromStdString(name);
        if (got->dtype != want->dtype || got->shape != want->shape || got->bytes != want->bytes)
            return QStringLiteral("values differ for ") + QString::fromStdString(name);
    }
    return {};
}

bool hasArray(const std::string& file, const std::string& name) {
    auto arrays = convert::ArrayFile::open(file);
    if (!arrays.ok()) return false;
    for (const auto& a : (*arrays)->arrays())
        if (a.name == name) return true;
    return false;
}

}  // namespace

class TstConvert : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string m_full;   // with a string tensor
    std::string m_plain;  // numbers only
    int m_case = 0;

    std::string outDir() {
        const QString d = m_tmp.filePath(QStringLiteral("out%1").arg(++m_case));
        QDir().mkpath(d);
        return d.toStdString();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        m_full = m_tmp.filePath(QStringLiteral("src/full")).toStdString();
        m_plain = m_tmp.filePath(QStringLiteral("src/plain")).toStdString();
        QVERIFY(writeCheckpoint(*makeModel(true), m_full, {}).ok());
        QVERIFY(writeCheckpoint(*makeModel(false), m_plain, {}).ok());
    }

    void everyDtypeBitExact_data() {
        QTest::addColumn<int>("format");
        QTest::addColumn<bool>("byPath");
        QTest::newRow("safetensors, object paths") << int(ArrayFormat::Safetensors) << true;
        QTest::newRow("safetensors, keys") << int(ArrayFormat::Safetensors) << false;
        QTest::newRow("npz, object paths") << int(ArrayFormat::Npz) << true;
        QTest::newRow("npz, keys") << int(ArrayFormat::Npz) << false;
    }
    void everyDtypeBitExact() {
        QFETCH(int, format);
        QFETCH(bool, byPath);
        ExportOptions o;
        o.format = static_cast<ArrayFormat>(format);
        o.names = byPath ? ArrayNaming::ObjectPaths : ArrayNaming::Keys;
        o.skipUnsupported = o.format == ArrayFormat::Npz;  // npz has no bfloat16
        const std::string out = outDir() + (o.format == ArrayFormat::Npz ? "/a.npz" : "/a.safetensors");
        auto done = exportCheckpoint(m_plain, out, o);
        QVERIFY2(done.ok(), done.status().toString().c_str());
        QCOMPARE(done->tensors, int64_t{2 + 13 + 2 + 1 - (o.format == ArrayFormat::Npz ? 1 : 0)});
        QCOMPARE(compareWithSource(out, m_plain, byPath), QString());
        if (byPath) {
            QVERIFY(hasArray(out, "model.dense.kernel"));
            QVERIFY(hasArray(out, "optimizer/m/model.dense.kernel"));
        }
        if (o.format == ArrayFormat::Npz) {
            QCOMPARE(done->notes.size(), size_t{1});
            QVERIFY2(done->notes[0].find("DT_BFLOAT16") != std::string::npos, done->notes[0].c_str());
        }
    }

    void weightsOnly() {
        ExportOptions o;
        o.weightsOnly = true;
        const std::string out = outDir() + "/w.safetensors";
        auto done = exportCheckpoint(m_plain, out, o);
        QVERIFY2(done.ok(), done.status().toString().c_str());
        QVERIFY(hasArray(out, "model.dense.kernel"));
        QVERIFY(!hasArray(out, "optimizer/m/model.dense.kernel"));
        QCOMPARE(done->notes.size(), size_t{1});
        QVERIFY(done->notes[0].find("1 optimizer tensor") != std::string::npos);
    }

    void unsupportedDtypeNamed() {
        ExportOptions o;
        const std::string dir = outDir();
        auto refused = exportCheckpoint(m_full, dir + "/s.safetensors", o);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.status().code(), StatusCode::Unimplemented);
        QVERIFY2(refused.status().message().find("\"model.vocab\" (DT_STRING)") != std::string::npos,
                 refused.status().message().c_str());
        QCOMPARE(filesIn(QString::fromStdString(dir)), QStringList());
        o.skipUnsupported = true;
        auto skipped = exportCheckpoint(m_full, dir + "/s.safetensors", o);
        QVERIFY2(skipped.ok(), skipped.status().toString().c_str());
        QVERIFY(!hasArray(dir + "/s.safetensors", "model.vocab"));
        QVERIFY(skipped->notes.at(0).find("model.vocab") != std::string::npos);
    }

    void destinations() {
        ExportOptions o;
        const auto code = [&](const std::string& src, const std::string& out) {
            auto r = exportCheckpoint(src, out, o);
            return r.ok() ? StatusCode::Ok : r.status().code();
        };
        const std::string srcDir = m_tmp.filePath(QStringLiteral("src")).toStdString();
        QCOMPARE(code(m_plain, m_plain), StatusCode::InvalidArgument);
        QCOMPARE(code(m_plain, m_plain + ".index"), StatusCode::InvalidArgument);
        QCOMPARE(code(m_plain, m_plain + ".data-00000-of-00001"), StatusCode::InvalidArgument);
        QCOMPARE(code(srcDir, srcDir + "/x.safetensors"), StatusCode::InvalidArgument);
        QCOMPARE(code(srcDir, srcDir + "/../src/sub/x.safetensors"), StatusCode::InvalidArgument);
        QCOMPARE(filesIn(QString::fromStdString(srcDir)).filter(QStringLiteral(".safetensors")), QStringList());
        const std::string out = outDir() + "/x.safetensors";
        QCOMPARE(code(m_plain, out), StatusCode::Ok);
        QCOMPARE(code(m_plain, out), StatusCode::AlreadyExists);
        o.overwrite = true;
        QCOMPARE(code(m_plain, out), StatusCode::Ok);
        // Import: the destination must not be the input.
        const std::string spec = outDir() + "/spec.json";
        std::ofstream(spec) << modelSpecJson(*makeModel(false));
        auto r = importArrays(out, out, spec, {});
        QVERIFY(!r.ok());
        QCOMPARE(r.status().code(), StatusCode::InvalidArgument);
    }

    void importRoundTrip_data() {
        QTest::addColumn<bool>("byPath");
        QTest::addColumn<int>("shards");
        QTest::newRow("object paths, by task") << true << 0;
        QTest::newRow("keys, 3 shards") << false << 3;
    }
    void importRoundTrip() {
        QFETCH(bool, byPath);
        QFETCH(int, shards);
        const std::string dir = outDir();
        ExportOptions o;
        o.names = byPath ? ArrayNaming::ObjectPaths : ArrayNaming::Keys;
        QVERIFY(exportCheckpoint(m_plain, dir + "/a.safetensors", o).ok());
        const std::string spec = dir + "/spec.json";
        std::ofstream(spec) << modelSpecJson(*makeModel(false));
        ImportOptions io;
        if (shards) io.save.policy = std::make_shared<FixedShardCountPolicy>(shards);
        auto done = importArrays(dir + "/a.safetensors", dir + "/ckpt", spec, io);
        QVERIFY2(done.ok(), done.status().toString().c_str());
        QCOMPARE(done->arrays, int64_t{18});
        auto src = BundleReader::open(m_plain);
        auto dst = BundleReader::open(dir + "/ckpt");
        QVERIFY(src.ok() && dst.ok());
        for (const TensorInfo& t : (*src)->tensors()) {
            if (t.key == kObjectGraphKey) continue;
            auto a = (*src)->read(t);
            auto b = (*dst)->read(t.key);
            QVERIFY2(b.ok(), t.key.c_str());
            QVERIFY2(a->bytes == b->bytes && a->shape == b->shape && a->dtype == b->dtype, t.key.c_str());
        }
        // Existing destination.
        auto again = importArrays(dir + "/a.safetensors", dir + "/ckpt", spec, {});
        QCOMPARE(again.status().code(), StatusCode::AlreadyExists);
    }

    void specMismatchNamed() {
        const std::string dir = outDir();
        ExportOptions o;
        o.format = ArrayFormat::Npz;
        o.skipUnsupported = true;  // no bfloat16 array: missing in the spec's eyes
        QVERIFY(exportCheckpoint(m_plain, dir + "/a.npz", o).ok());
        // A spec that differs: kernel of another shape, bias of another
        // dtype, a variable with no array; the slot's array then has no
        // variable (no optimizer in this spec).
        auto root = makeModel(false);
        auto model = root->child("model");
        auto dense = model->child("dense");
        auto spec = Trackable::makeObject();
        auto m2 = Trackable::makeObject();
        auto d2 = Trackable::makeObject();
        (void)d2->addChild("kernel", Variable::make(DataType::Float, TensorShape{{64, 32}}));
        (void)d2->addChild("bias", Variable::make(DataType::Int32, TensorShape{{64}}));
        (void)d2->addChild("extra", Variable::make(DataType::Float, TensorShape{{1}}));
        (void)m2->addChild("dense", d2);
        (void)m2->addChild("dtypes", model->child("dtypes"));
        (void)spec->addChild("model", m2);
        Q_UNUSED(dense);
        const std::string specPath = dir + "/spec.json";
        std::ofstream(specPath) << modelSpecJson(*spec);
        auto r = importArrays(dir + "/a.npz", dir + "/ckpt", specPath, {});
        QVERIFY(!r.ok());
        QCOMPARE(r.status().code(), StatusCode::InvalidArgument);
        const std::string& msg = r.status().message();
        for (const char* fragment :
             {"model.dense.kernel: the spec has float32 [64, 32], array model.dense.kernel is float32 [64, 64]",
              "model.dense.bias: the spec has int32 [64]", "no array for model.dense.extra", "no array for model.dtypes.bfloat16",
              "array optimizer/m/model.dense.kernel matches no variable"})
            QVERIFY2(msg.find(fragment) != std::string::npos, (std::string(fragment) + " in: " + msg).c_str());
        QCOMPARE(filesIn(QString::fromStdString(dir)), (QStringList{QStringLiteral("a.npz"), QStringLiteral("spec.json")}));
    }

    // Every write-side call of a safetensors export failing with ENOSPC in
    // turn: each time the error, an output directory as it was, the source
    // intact.
    void diskFullSafetensors() {
        const std::string dir = outDir();
        std::vector<testing::FileOpRecord> ops;
        {
            testing::FaultStorage clean(dir);
            testing::ScopedStorage installed(clean);
            QVERIFY(exportCheckpoint(m_plain, dir + "/probe.safetensors", {}).ok());
            ops = clean.operations();
        }
        QVERIFY(ops.size() >= 4);  // create, write(s), sync, rename, sync dir
        QVERIFY(QFile::remove(QString::fromStdString(dir + "/probe.safetensors")));
        for (size_t i = 1; i <= ops.size(); ++i) {
            testing::FaultStorage faults(dir);
            faults.arm({static_cast<int64_t>(i), std::nullopt, ENOSPC, false, false});
            Result<ExportResult> r = invalidArgument("not run");
            {
                testing::ScopedStorage installed(faults);
                r = exportCheckpoint(m_plain, dir + "/x.safetensors", {});
            }
            const QString what =
                QStringLiteral("fault at %1 (%2)").arg(i).arg(QString::fromUtf8(testing::fileOpKindName(ops[i - 1].kind).data()));
            QVERIFY2(faults.faultHit(), qPrintable(what));
            QVERIFY2(!r.ok(), qPrintable(what));
            QVERIFY2(r.status().code() == StatusCode::ResourceExhausted,
                     qPrintable(what + ": " + QString::fromStdString(r.status().toString())));
            QVERIFY2(filesIn(QString::fromStdString(dir)).isEmpty(),
                     qPrintable(what + ": " + filesIn(QString::fromStdString(dir)).join(',')));
        }
        auto report = verifyBundle(m_plain);
        QVERIFY(report.ok() && report->ok());
    }

    // libzip writes npz files itself: a file-size limit makes its writes
    // fail as a full disk does (EFBIG), in a child process.
    void diskFullNpz() {
        const std::string dir = outDir();
        const std::string src = m_plain;
        const int rc = testing::runInChild([&] {
            std::signal(SIGXFSZ, SIG_IGN);
            rlimit limit{8192, 8192};
            ::setrlimit(RLIMIT_FSIZE, &limit);
            ExportOptions o;
            o.format = ArrayFormat::Npz;
            o.skipUnsupported = true;
            auto r = exportCheckpoint(src, dir + "/x.npz", o);
            if (r.ok()) return 1;
            if (r.status().code() != StatusCode::ResourceExhausted) {
                std::fprintf(stderr, "%s\n", r.status().toString().c_str());
                return 2;
            }
            return QDir(QString::fromStdString(dir)).isEmpty(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot) ? 0 : 3;
        });
        QCOMPARE(rc, 0);
        QCOMPARE(filesIn(QString::fromStdString(dir)), QStringList());
    }

    void cancelled() {
        const std::string dir = outDir();
        for (ArrayFormat f : {ArrayFormat::Safetensors, ArrayFormat::Npz}) {
            CancellationToken token;
            ExportOptions o;
            o.format = f;
            o.skipUnsupported = true;
            o.cancel = &token;
            // Cancel once the first bytes are out: mid-write.
            o.progress = [&](int64_t done, int64_t, std::string_view) {
                if (done > 0) token.cancel();
            };
            auto r = exportCheckpoint(m_plain, dir + "/c." + std::string(arrayFormatName(f)), o);
            QVERIFY(!r.ok());
            QCOMPARE(r.status().code(), StatusCode::Cancelled);
            QCOMPARE(filesIn(QString::fromStdString(dir)), QStringList());
        }
    }
};

QTEST_GUILESS_MAIN(TstConvert)
#include "tst_convert.moc"
