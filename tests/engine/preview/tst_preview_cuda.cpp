// The CUDA preview backend against the CPU reference on every element kind,
// through one chunk and through many small streamed chunks. Built only with
// the CUDA backend and run by scripts/test.sh only where a device is present
// (CTest label `cuda`); there CKPT_REQUIRE_CUDA=1 turns "no device" into a
// failure instead of a skip.

#include <QtTest>

#include <complex>
#include <limits>
#include <random>

#include "ckpt/preview.h"
#include "preview_test_data.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;

Q_DECLARE_METATYPE(ckpt::Tensor)

class TstPreviewCuda : public QObject {
    Q_OBJECT

private slots:
    void cudaMatchesCpu_data() {
        QTest::addColumn<Tensor>("tensor");
        QTest::addColumn<qulonglong>("chunkBytes");
        auto& r = rng();
        std::normal_distribution<float> normal(-0.7f, 5.0f);
        std::vector<float> f = generate<float>(1000003, [&] { return normal(r); });
        for (size_t i = 0; i < f.size(); i += 1009) f[i] = std::numeric_limits<float>::quiet_NaN();
        f[17] = std::numeric_limits<float>::infinity();
        const Tensor f32 = makeTensor<float>(DataType::Float, {1000003}, f);
        QTest::newRow("float32, one chunk") << f32 << qulonglong{0};
        QTest::newRow("float32, streamed 64 KiB chunks") << f32 << qulonglong{64 << 10};
        QTest::newRow("float16 all bits") << makeTensor<uint16_t>(
                                                 DataType::Half, {65536},
                                                 generate<uint16_t>(65536,
                                                                    [i = 0]() mutable { return static_cast<uint16_t>(i++); }))
                                          << qulonglong{16 << 10};
        QTest::newRow("bfloat16 all bits") << makeTensor<uint16_t>(
                                                  DataType::BFloat16, {65536},
                                                  generate<uint16_t>(65536,
                                                                     [i = 0]() mutable { return static_cast<uint16_t>(i++); }))
                                           << qulonglong{0};
        QTest::newRow("float64") << makeTensor<double>(
                                        DataType::Double, {77777},
                                        generate<double>(77777, [&] { return static_cast<double>(normal(r)) * 1e5; }))
                                 << qulonglong{0};
        QTest::newRow("int64") << makeTensor<int64_t>(DataType::Int64, {9000},
                                                      generate<int64_t>(9000, [&] { return static_cast<int64_t>(r()); }))
                               << qulonglong{0};
        QTest::newRow("uint8") << makeTensor<uint8_t>(DataType::UInt8, {100000},
                                                      generate<uint8_t>(100000, [&] { return static_cast<uint8_t>(r()); }))
                               << qulonglong{0};
        QTest::newRow("bool") << makeTensor<uint8_t>(DataType::Bool, {5000},
                                                     generate<uint8_t>(5000, [&] { return static_cast<uint8_t>(r() & 1); }))
                              << qulonglong{0};
        QTest::newRow("complex64") << makeTensor<std::complex<float>>(
                                          DataType::Complex64, {3333},
                                          generate<std::complex<float>>(
                                              3333, [&] { return std::complex<float>(normal(r), normal(r)); }))
                                   << qulonglong{0};
        QTest::newRow("empty") << makeTensor<float>(DataType::Float, {0}, {}) << qulonglong{0};
        QTest::newRow("scalar") << makeTensor<float>(DataType::Float, {}, {3.0f}) << qulonglong{0};
    }
    void cudaMatchesCpu() {
        QFETCH(Tensor, tensor);
        QFETCH(qulonglong, chunkBytes);
        PreviewOptions cuda;
        cuda.device = PreviewDevice::Cuda;
        cuda.cudaChunkBytes = chunkBytes;
        PreviewOptions cpu;
        cpu.device = PreviewDevice::Cpu;
        auto g = computeStats(TensorView::of(tensor), cuda);
        if (!g.ok() && g.status().code() == StatusCode::FailedPrecondition) {
            const QByteArray why = ("no CUDA device (" + g.status().message() + ")").c_str();
            CKPT_SKIP_UNLESS_REQUIRED("CKPT_REQUIRE_CUDA", why.constData());
        }
        QVERIFY2(g.ok(), g.status().toString().c_str());
        QCOMPARE(g->computedOn.device, std::string("cuda"));
        auto c = computeStats(TensorView::of(tensor), cpu);
        QVERIFY(c.ok());
        QCOMPARE(g->count, c->count);
        QCOMPARE(g->finiteCount, c->finiteCount);
        QCOMPARE(g->zeros, c->zeros);
        QCOMPARE(g->nans, c->nans);
        QCOMPARE(g->posInfs, c->posInfs);
        QCOMPARE(g->negInfs, c->negInfs);
        auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
        QVERIFY(same(g->min, c->min));
        QVERIFY(same(g->max, c->max));
        QVERIFY2(closeEnough(g->mean, c->mean, c->absMax),
                 qPrintable(QStringLiteral("%1 vs %2").arg(g->mean, 0, 'g', 17).arg(c->mean, 0, 'g', 17)));
        QVERIFY(closeEnough(g->std, c->std, c->absMax));
        for (int bins : {1, 10, 4096}) {
            HistogramRequest req;
            req.bins = bins;
            auto gh = computeHistogram(TensorView::of(tensor), req, cuda);
            auto ch = computeHistogram(TensorView::of(tensor), req, cpu);
            QVERIFY2(gh.ok(), gh.status().toString().c_str());
            QVERIFY(ch.ok());
            QCOMPARE(gh->counts, ch->counts);
            QCOMPARE(gh->below, ch->below);
            QCOMPARE(gh->above, ch->above);
            QCOMPARE(gh->nans, ch->nans);
        }
    }
};

QTEST_GUILESS_MAIN(TstPreviewCuda)
#include "tst_preview_cuda.moc"
