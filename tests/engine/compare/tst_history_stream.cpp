// ckpt history streams every number tensor once, computing its checksum,
// statistics and change from the previous checkpoint in one pass: the
// figures must keep the bits that computeStats and diffTensors give on the
// whole tensors (one thread per tensor), for every element kind, for
// tensors of several 16 MiB diff parts, with NaN, Inf, signed zeros and
// float64 values whose squares overflow, however the run is split over
// threads; a damaged or truncated data file is an error naming it.

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_history.h"
#include "ckpt/preview.h"
#include "ckpt/save.h"
#include "ckpt/tensor_diff.h"
#include "ckpt/trackable.h"

using namespace ckpt;

namespace {

struct Spec {
    const char* name;
    DataType dtype;
    int64_t elements;
};

// Sizes cross the 256 KiB stream windows, 4 MiB chunks and 16 MiB parts.
const Spec kSpecs[] = {
    {"f32_big", DataType::Float, (int64_t{17} << 20) / 4 + 1001},  // two diff parts and a short tile
    {"f32_small", DataType::Float, 3001},
    {"f64", DataType::Double, 70'001},
    {"bf16", DataType::BFloat16, 300'017},
    {"f16", DataType::Half, 5'000},
    {"i32", DataType::Int32, 4'099},
    {"u8", DataType::UInt8, 9'000},
    {"c64", DataType::Complex64, 2'050},
    {"flag", DataType::Bool, 77},
};

uint16_t toBfloat16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<uint16_t>(bits >> 16);
}

// Deterministic values that differ per checkpoint, with the awkward ones.
void fillValues(Tensor& t, int checkpoint, int variable) {
    const int64_t n = t.numElements();
    const double inf = std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) {
        double x = std::sin(0.001 * static_cast<double>(i * (variable + 3)) + checkpoint) * (1 + 0.01 * checkpoint);
        if (i % 997 == 5) x = 0.0;
        if (i % 1009 == 7) x = -0.0;
        if (checkpoint == 2 && i == 4096 * 3 + 1) x = std::nan("");
        if (checkpoint == 3 && i == 513) x = -inf;
        switch (t.dtype) {
        case DataType::Float: reinterpret_cast<float*>(t.bytes.data())[i] = static_cast<float>(x); break;
        case DataType::Double:
            // Squares past DBL_MAX in one block: the pair kernel redoes it element by element.
            reinterpret_cast<double*>(t.bytes.data())[i] = i < 512 && checkpoint == 1 ? 1.5e154 * (1 + x) : x;
            break;
        case DataType::BFloat16: reinterpret_cast<uint16_t*>(t.bytes.data())[i] = toBfloat16(static_cast<float>(x)); break;
        case DataType::Half:
            reinterpret_cast<uint16_t*>(t.bytes.data())[i] = static_cast<uint16_t>((i * 31 + checkpoint) & 0x7bff);
            break;
        case DataType::Int32:  // the NaN and -inf planted above are not integers
            reinterpret_cast<int32_t*>(t.bytes.data())[i] = std::isfinite(x) ? static_cast<int32_t>(x * 1e6) : 0;
            break;
        case DataType::UInt8: t.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(i * 7 + checkpoint); break;
        case DataType::Complex64: {
            float* p = reinterpret_cast<float*>(t.bytes.data()) + 2 * i;
            p[0] = static_cast<float>(x);
            p[1] = static_cast<float>(x * 0.5 - checkpoint);
            break;
        }
        case DataType::Bool: t.bytes[static_cast<size_t>(i)] = (i + checkpoint) % 3 == 0; break;
        default: break;
        }
    }
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

// What the history held before streaming: each tensor read whole, its
// statistics and change computed by the public passes on one thread.
struct Reference {
    TensorStats stats;
    double relChange = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace

class TestHistoryStream : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::vector<std::string> m_prefixes;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        auto root = Trackable::makeObject();
        std::vector<std::shared_ptr<Variable>> vars;
        for (const Spec& s : kSpecs) {
            vars.push_back(Variable::make(s.dtype, TensorShape{{s.elements}}));
            QVERIFY(root->addChild(s.name, vars.back()).isOk());
        }
        for (int c = 0; c < 5; ++c) {
            for (size_t v = 0; v < vars.size(); ++v)
                // Checkpoint 4 repeats 3 for every other variable: unchanged, not read.
                if (c != 4 || v % 2 == 0) fillValues(vars[v]->mutableValue(), c, static_cast<int>(v));
            const std::string prefix = m_dir.filePath(QStringLiteral("run/ckpt-%1").arg(c + 1)).toStdString();
            auto saved = writeCheckpoint(*root, prefix, {});
            QVERIFY2(saved.ok(), saved.status().toString().c_str());
            m_prefixes.push_back(prefix);
        }
    }

    void figuresKeepTheirBits_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("one thread") << 1;
        QTest::newRow("two threads") << 2;
        QTest::newRow("five threads") << 5;
        QTest::newRow("budget of one window") << -1;
    }
    void figuresKeepTheirBits() {
        QFETCH(int, threads);
        HistoryOptions opt;
        opt.threads = threads > 0 ? threads : 2;
        if (threads < 0) opt.memoryBudgetBytes = 1;  // one tensor in flight per run
        auto h = computeHistory(m_prefixes, opt);
        QVERIFY2(h.ok(), h.status().toString().c_str());
        QCOMPARE(h->checkpoints.size(), m_prefixes.size());

        std::vector<std::shared_ptr<const Checkpoint>> opened;
        for (const std::string& p : m_prefixes) {
            auto c = Checkpoint::open(p);
            QVERIFY2(c.ok(), c.status().toString().c_str());
            opened.push_back(std::move(*c));
        }
        int compared = 0;
        for (const Spec& s : kSpecs) {
            const VariableHistory* v = nullptr;
            for (const VariableHistory& candidate : h->variables)
                if (candidate.path == std::string("(root).") + s.name) v = &candidate;
            QVERIFY2(v, s.name);
            Tensor previous;
            for (size_t c = 0; c < opened.size(); ++c) {
                const TensorInfo* info = opened[c]->bundle().find(v->key);
                QVERIFY(info);
                auto tensor = opened[c]->bundle().read(*info);
                QVERIFY2(tensor.ok(), tensor.status().toString().c_str());
                PreviewOptions preview;
                preview.device = PreviewDevice::Cpu;
                preview.cpuThreads = 1;
                auto stats = computeStats(TensorView::of(*tensor), preview);
                QVERIFY2(stats.ok(), stats.status().toString().c_str());
                Reference ref{*stats};
                if (c > 0) {
                    TensorDiffOptions dopt;
                    dopt.maxListed = 0;
                    dopt.cpuThreads = 1;
                    auto d = diffTensors(TensorView::of(previous), TensorView::of(*tensor), dopt);
                    QVERIFY2(d.ok(), d.status().toString().c_str());
                    if (d->normA > 0) ref.relChange = d->relL2;
                }
                const HistoryPoint& p = v->points[c];
                const QByteArray where = QByteArray(s.name) + " @" + QByteArray::number(static_cast<int>(c));
                QVERIFY2(p.present && p.numeric, where);
                const bool unchanged = c == 4 && (&s - kSpecs) % 2 == 1;
                QCOMPARE(p.unchanged, unchanged);
                if (unchanged) {
                    QCOMPARE(p.relChange, 0.0);
                } else {
                    QVERIFY2(sameBits(p.relChange, ref.relChange), where + " relChange " +
                                                                       QByteArray::number(p.relChange, 'g', 17) + " vs " +
                                                                       QByteArray::number(ref.relChange, 'g', 17));
                }
                QCOMPARE(p.count, ref.stats.count);
                QVERIFY2(sameBits(p.mean, ref.stats.mean), where + " mean");
                QVERIFY2(sameBits(p.std, ref.stats.std), where + " std");
                QVERIFY2(sameBits(p.min, ref.stats.min), where + " min");
                QVERIFY2(sameBits(p.max, ref.stats.max), where + " max");
                QCOMPARE(p.nans, ref.stats.nans);
                QCOMPARE(p.infs, ref.stats.posInfs + ref.stats.negInfs);
                previous = std::move(*tensor);
                ++compared;
            }
        }
        QCOMPARE(compared, static_cast<int>(std::size(kSpecs) * m_prefixes.size()));
        int64_t expected = 0;  // every tensor read once, the unchanged ones not at all
        for (size_t c = 0; c < opened.size(); ++c)
            for (const Spec& s : kSpecs)
                if (c != 4 || (&s - kSpecs) % 2 == 0)
                    expected += opened[c]->bundle().find(std::string(s.name) + "/.ATTRIBUTES/VARIABLE_VALUE")->storedBytes();
        QCOMPARE(h->bytesRead, expected);
    }

    // A flipped byte deep inside the big tensor's second part fails the
    // history with DataLoss naming the tensor, its data file and checkpoint.
    void damagedDataFails() {
        QTemporaryDir copy;
        std::vector<std::string> prefixes;
        for (const std::string& p : m_prefixes) {
            const QString base = QFileInfo(QString::fromStdString(p)).fileName();
            for (const QString& suffix : {QStringLiteral(".index"), QStringLiteral(".data-00000-of-00001")})
                QVERIFY(QFile::copy(QString::fromStdString(p) + suffix, copy.filePath(base + suffix)));
            prefixes.push_back(copy.filePath(base).toStdString());
        }
        auto c = Checkpoint::open(prefixes[2]);
        QVERIFY(c.ok());
        const TensorInfo* big = (*c)->bundle().find("f32_big/.ATTRIBUTES/VARIABLE_VALUE");
        QVERIFY(big);
        {
            QFile data(QString::fromStdString(prefixes[2]) + ".data-00000-of-00001");
            QVERIFY(data.open(QIODevice::ReadWrite));
            QVERIFY(data.seek(big->region.offset + (int64_t{17} << 20)));
            char b = 0;
            QVERIFY(data.getChar(&b));
            QVERIFY(data.seek(big->region.offset + (int64_t{17} << 20)));
            QVERIFY(data.putChar(static_cast<char>(b ^ 0x10)));
        }
        auto h = computeHistory(prefixes, {});
        QCOMPARE(h.status().code(), StatusCode::DataLoss);
        const std::string& m = h.status().message();
        QVERIFY2(m.find("checksum mismatch") != std::string::npos && m.find("f32_big") != std::string::npos &&
                     m.find("ckpt-3") != std::string::npos,
                 m.c_str());

        // Cut short: the tensor now points past the end of its file.
        QVERIFY(QFile::resize(QString::fromStdString(prefixes[2]) + ".data-00000-of-00001", big->region.offset + 100));
        h = computeHistory(prefixes, {});
        QCOMPARE(h.status().code(), StatusCode::DataLoss);
        QVERIFY2(h.status().message().find("past the end") != std::string::npos, h.status().message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestHistoryStream)
#include "tst_history_stream.moc"
