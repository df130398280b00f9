// Tensor previews (ckpt/preview.h): CPU results against a numpy oracle on
// synthetic and real tensors, edge cases, heatmaps and bad requests. The
// CUDA path is checked against them in tst_preview_cuda.cpp.

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>

#include "ckpt/bundle_reader.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/npy.h"
#include "ckpt/preview.h"
#include "preview/cpu_f32.h"
#include "preview/device_choice.h"
#include "preview_test_data.h"
#include "test_support.h"

using namespace ckpt;
using ckpt::testing::closeEnough;
using ckpt::testing::generate;
using ckpt::testing::makeTensor;
using ckpt::testing::rng;
using nlohmann::json;

Q_DECLARE_METATYPE(ckpt::Tensor)
Q_DECLARE_METATYPE(ckpt::StatusCode)

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// numpy's descr for a dtype; bfloat16 goes as its raw bits ('<u2') and is
// decoded on the numpy side.
std::string npyDescrForTest(DataType d) { return d == DataType::BFloat16 ? std::string("<u2") : std::string(npyDescr(d)); }

bool writeNpy(const std::string& path, const Tensor& t) {
    const std::string preamble = npyPreamble(npyDescrForTest(t.dtype), t.shape);
    std::ofstream f(path, std::ios::binary);
    f.write(preamble.data(), static_cast<std::streamsize>(preamble.size()));
    f.write(reinterpret_cast<const char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
    return f.good();
}

double jnum(const json& j) { return j.is_null() ? kNaN : j.get<double>(); }

// The largest floating tensor of each real bundle.
std::vector<std::pair<std::string, Tensor>> realTensors() {
    std::vector<std::pair<std::string, Tensor>> out;
    for (const QString& dir : ckpt::testing::realBundleDirs()) {
        const json m = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
        auto reader = BundleReader::open(ckpt::testing::manifestPrefix(dir, m));
        if (!reader) continue;
        const TensorInfo* best = nullptr;
        for (const TensorInfo& info : (*reader)->tensors()) {
            if (!isFloating(info.dtype) || info.dtype == DataType::String) continue;
            if (npyDescrForTest(info.dtype).empty()) continue;
            if (!best || info.shape.numElements().value_or(0) > best->shape.numElements().value_or(0)) best = &info;
        }
        if (!best) continue;
        auto t = (*reader)->read(*best);
        if (t) out.emplace_back(QFileInfo(dir).fileName().toStdString() + ": " + best->key, std::move(*t));
    }
    return out;
}

}  // namespace

class TstPreview : public QObject {
    Q_OBJECT
private slots:
    void matchesNumpy_data() {
        QTest::addColumn<Tensor>("tensor");
        QTest::addColumn<int>("bins");
        auto& r = rng();
        std::normal_distribution<float> normal(0.3f, 2.0f);
        QTest::newRow("float32 normal, partial last tile")
            << makeTensor<float>(DataType::Float, {100003}, generate<float>(100003, [&] { return normal(r); })) << 64;
        std::normal_distribution<double> wide(1e6, 3e5);
        QTest::newRow("float64 rank 2") << makeTensor<double>(DataType::Double, {300, 701},
                                                              generate<double>(300 * 701, [&] { return wide(r); }))
                                        << 100;
        QTest::newRow("float16 every bit pattern (subnormals, inf, nan)")
            << makeTensor<uint16_t>(DataType::Half, {65536},
                                    generate<uint16_t>(65536, [i = 0]() mutable { return static_cast<uint16_t>(i++); }))
            << 33;
        QTest::newRow("bfloat16 every bit pattern")
            << makeTensor<uint16_t>(DataType::BFloat16, {256, 256},
                                    generate<uint16_t>(65536, [i = 0]() mutable { return static_cast<uint16_t>(i++); }))
            << 7;
        std::vector<float> bfRound;
        for (int i = 0; i < 5000; ++i) bfRound.push_back(bfloat16ToFloat(floatToBfloat16(normal(r))));
        std::vector<uint16_t> bfBits;
        for (float f : bfRound) bfBits.push_back(floatToBfloat16(f));
        QTest::newRow("bfloat16 rounded from float32") << makeTensor<uint16_t>(DataType::BFloat16, {5000}, bfBits) << 16;
        QTest::newRow("int8") << makeTensor<int8_t>(DataType::Int8, {9999},
                                                    generate<int8_t>(9999, [&] { return static_cast<int8_t>(r()); }))
                              << 256;
        QTest::newRow("int16") << makeTensor<int16_t>(DataType::Int16, {77, 13},
                                                      generate<int16_t>(1001, [&] { return static_cast<int16_t>(r()); }))
                               << 10;
        QTest::newRow("int32") << makeTensor<int32_t>(DataType::Int32, {50000},
                                                      generate<int32_t>(50000, [&] { return static_cast<int32_t>(r()); }))
                               << 50;
        std::vector<int64_t> i64 = generate<int64_t>(4099, [&] { return static_cast<int64_t>(r()); });
        i64[0] = std::numeric_limits<int64_t>::min();
        i64[1] = std::numeric_limits<int64_t>::max();
        i64[2] = 0;
        QTest::newRow("int64 extremes") << makeTensor<int64_t>(DataType::Int64, {4099}, i64) << 20;
        std::vector<uint64_t> u64 = generate<uint64_t>(333, [&] { return r(); });
        u64[0] = 0;
        u64[1] = std::numeric_limits<uint64_t>::max();
        QTest::newRow("uint64 extremes") << makeTensor<uint64_t>(DataType::UInt64, {333}, u64) << 20;
        QTest::newRow("uint8") << makeTensor<uint8_t>(DataType::UInt8, {70000},
                                                      generate<uint8_t>(70000, [&] { return static_cast<uint8_t>(r()); }))
                               << 17;
        QTest::newRow("uint16") << makeTensor<uint16_t>(DataType::UInt16, {1234},
                                                        generate<uint16_t>(1234, [&] { return static_cast<uint16_t>(r()); }))
                                << 9;
        QTest::newRow("uint32") << makeTensor<uint32_t>(DataType::UInt32, {4096},
                                                        generate<uint32_t>(4096, [&] { return static_cast<uint32_t>(r()); }))
                                << 9;
        QTest::newRow("bool") << makeTensor<uint8_t>(DataType::Bool, {3, 5, 7},
                                                     generate<uint8_t>(105, [&] { return static_cast<uint8_t>(r() & 1); }))
                              << 2;
        QTest::newRow("complex64 magnitude")
            << makeTensor<std::complex<float>>(
                   DataType::Complex64, {999},
                   generate<std::complex<float>>(999, [&] { return std::complex<float>(normal(r), normal(r)); }))
            << 12;
        QTest::newRow("complex128 magnitude")
            << makeTensor<std::complex<double>>(
                   DataType::Complex128, {20, 20},
                   generate<std::complex<double>>(400, [&] { return std::complex<double>(wide(r), -wide(r)); }))
            << 12;
        std::vector<float> denormals{
            1e-40f, -1e-45f, 0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::min(),
            3e-39f, 1.0f};
        QTest::newRow("float32 denormals") << makeTensor<float>(DataType::Float, {8}, denormals) << 5;
        std::vector<float> mixed = generate<float>(10000, [&] { return normal(r); });
        for (int i = 0; i < 10000; i += 97) mixed[static_cast<size_t>(i)] = std::numeric_limits<float>::quiet_NaN();
        for (int i = 5; i < 10000; i += 101) mixed[static_cast<size_t>(i)] = std::numeric_limits<float>::infinity();
        for (int i = 7; i < 10000; i += 103) mixed[static_cast<size_t>(i)] = -std::numeric_limits<float>::infinity();
        QTest::newRow("float32 with nan and +-inf") << makeTensor<float>(DataType::Float, {100, 100}, mixed) << 31;
        QTest::newRow("all nan") << makeTensor<float>(DataType::Float, {5000},
                                                      std::vector<float>(5000, std::numeric_limits<float>::quiet_NaN()))
                                 << 4;
        QTest::newRow("empty [0, 3]") << makeTensor<float>(DataType::Float, {0, 3}, std::vector<float>{}) << 4;
        QTest::newRow("scalar") << makeTensor<double>(DataType::Double, {}, std::vector<double>{-2.5}) << 4;
        QTest::newRow("constant (range widened)")
            << makeTensor<int32_t>(DataType::Int32, {100}, std::vector<int32_t>(100, 7)) << 5;
        QTest::newRow("rank 6") << makeTensor<float>(DataType::Float, {2, 3, 1, 4, 2, 3},
                                                     generate<float>(144, [&] { return normal(r); }))
                                << 8;
        for (auto& [name, t] : realTensors()) QTest::newRow(("real " + name).c_str()) << t << 64;
    }

    void matchesNumpy() {
        QFETCH(Tensor, tensor);
        QFETCH(int, bins);
        const QByteArray python = qgetenv("CKPT_PYTHON");
        if (python.isEmpty())
            CKPT_MISSING_PYTHON("CKPT_PYTHON is not set: the numpy oracle needs the interop venv (scripts/test.sh sets it)");
        QTemporaryDir tmp;
        const std::string npy = tmp.filePath(QStringLiteral("t.npy")).toStdString();
        QVERIFY(writeNpy(npy, tensor));
        const json request = json::array({{{"npy", npy}, {"bfloat16", tensor.dtype == DataType::BFloat16}, {"bins", bins}}});
        QVERIFY(ckpt::testing::writeAll(tmp.filePath(QStringLiteral("req.json")), QByteArray::fromStdString(request.dump())));
        QProcess p;
        p.start(QString::fromLocal8Bit(python), {ckpt::testing::sourceDir() + QStringLiteral("/tests/interop/preview_oracle.py"),
                                                 tmp.filePath(QStringLiteral("req.json"))});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const json expected = json::parse(p.readAllStandardOutput().toStdString())[0];

        PreviewOptions cpu;
        cpu.device = PreviewDevice::Cpu;
        auto s = computeStats(TensorView::of(tensor), cpu);
        QVERIFY2(s.ok(), s.status().toString().c_str());
        QCOMPARE(s->computedOn.device, std::string("cpu"));
        QCOMPARE(s->count, expected["count"].get<int64_t>());
        QCOMPARE(s->finiteCount, expected["finite"].get<int64_t>());
        QCOMPARE(s->zeros, expected["zeros"].get<int64_t>());
        QCOMPARE(s->nans, expected["nan"].get<int64_t>());
        QCOMPARE(s->posInfs, expected["pos_inf"].get<int64_t>());
        QCOMPARE(s->negInfs, expected["neg_inf"].get<int64_t>());
        auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
        QVERIFY2(same(s->min, jnum(expected["min"])), qPrintable(QString::number(s->min, 'g', 17)));
        QVERIFY2(same(s->max, jnum(expected["max"])), qPrintable(QString::number(s->max, 'g', 17)));
        QVERIFY(same(s->absMax, jnum(expected["absmax"])));
        QVERIFY2(
            closeEnough(s->mean, jnum(expected["mean"]), s->absMax),
            qPrintable(QStringLiteral("mean %1 vs numpy %2").arg(s->mean, 0, 'g', 17).arg(jnum(expected["mean"]), 0, 'g', 17)));
        QVERIFY2(closeEnough(s->std, jnum(expected["std"]), s->absMax),
                 qPrintable(QStringLiteral("std %1 vs numpy %2").arg(s->std, 0, 'g', 17).arg(jnum(expected["std"]), 0, 'g', 17)));

        HistogramRequest req;
        req.bins = bins;
        auto h = computeHistogram(TensorView::of(tensor), req, cpu);
        QVERIFY2(h.ok(), h.status().toString().c_str());
        QCOMPARE(h->counts, expected["counts"].get<std::vector<int64_t>>());
        QCOMPARE(h->edges, expected["edges"].get<std::vector<double>>());
        QCOMPARE(h->nans, s->nans);
        QCOMPARE(h->below + h->above, s->posInfs + s->negInfs);
    }

    // Per-tile partials merged in tile order: the thread count cannot change a bit.
    void threadCountDoesNotChangeResults() {
        auto& r = rng();
        std::lognormal_distribution<float> d(0.0f, 3.0f);
        const Tensor t = makeTensor<float>(DataType::Float, {1 << 20}, generate<float>(1 << 20, [&] { return d(r); }));
        PreviewOptions one;
        one.device = PreviewDevice::Cpu;
        one.cpuThreads = 1;
        auto a = computeStats(TensorView::of(t), one);
        QVERIFY(a.ok());
        for (int threads : {2, 3, 7}) {
            PreviewOptions many = one;
            many.cpuThreads = threads;
            auto b = computeStats(TensorView::of(t), many);
            QVERIFY(b.ok());
            QCOMPARE(std::bit_cast<uint64_t>(b->mean), std::bit_cast<uint64_t>(a->mean));
            QCOMPARE(std::bit_cast<uint64_t>(b->std), std::bit_cast<uint64_t>(a->std));
            QCOMPARE(b->min, a->min);
            QCOMPARE(b->max, a->max);
        }
    }

    // The float32 fast paths come per instruction set; every one this CPU
    // runs must give the portable path's bits, tile statistics must match a
    // long double two-pass, and histograms numpy's rule value by value.
    void everyCpuPathAgrees() {
        using namespace ckpt::preview;
        std::vector<CpuIsa> isas;
        for (CpuIsa isa : {CpuIsa::Portable, CpuIsa::Avx2})
            if (cpuSupports(isa)) isas.push_back(isa);
        auto& r = rng();
        std::normal_distribution<float> normal(0.1f, 1.0f);
        std::uniform_real_distribution<float> uniform(-3.0f, 5.0f);
        const int tiles = 24;
        std::vector<float> v(static_cast<size_t>(tiles * kTileElements) + 5);
        for (size_t i = 0; i < v.size(); ++i) {
            const size_t tile = i / kTileElements;
            v[i] = tile % 3 == 0 ? normal(r) : uniform(r);
            if (tile == 4 && i % 7 == 0) v[i] = (i % 14 == 0) ? 0.0f : -0.0f;
            if (tile == 5 && i % 5 == 0) v[i] = std::numeric_limits<float>::denorm_min() * static_cast<float>(i % 100);
            if (tile == 6 && i % 11 == 0) v[i] = (i % 2 ? 3e38f : -3e38f);
        }
        // Tiles whose first value is far from the rest: the shift of the
        // one-pass sums is an outlier, and all-equal values.
        v[10 * kTileElements] = 1e7f;
        v[11 * kTileElements] = 1e30f;
        std::fill_n(v.begin() + 12 * kTileElements, kTileElements, 0.3f);
        v[7 * kTileElements + 100] = NAN;
        v[8 * kTileElements + 4095] = INFINITY;
        v[9 * kTileElements] = -INFINITY;
        v[v.size() - 2] = NAN;

        for (int t = 0; t < tiles; ++t) {
            TilePartial ref{};
            FastTotals refTotals;
            const bool refOk = fastTileF32(v.data() + t * kTileElements, ref, refTotals, CpuIsa::Portable);
            QCOMPARE(refOk, t < 7 || t > 9);
            if (refOk) {
                // Against a long double two-pass over the same tile.
                const float* p = v.data() + t * kTileElements;
                long double sum = 0, m2 = 0;
                for (int64_t i = 0; i < kTileElements; ++i) sum += p[i];
                const long double mean = sum / kTileElements;
                for (int64_t i = 0; i < kTileElements; ++i) m2 += (p[i] - mean) * (p[i] - mean);
                const double spread = std::sqrt(static_cast<double>(m2) / kTileElements);
                QVERIFY2(std::fabs(ref.mean - static_cast<double>(mean)) <=
                             1e-12 * std::max(std::fabs(static_cast<double>(mean)), spread),
                         qPrintable(QStringLiteral("tile %1 mean %2").arg(t).arg(ref.mean, 0, 'g', 17)));
                QVERIFY2(std::fabs(ref.m2 - static_cast<double>(m2)) <= 1e-12 * static_cast<double>(m2),
                         qPrintable(QStringLiteral("tile %1 m2 %2 vs %3")
                                        .arg(t)
                                        .arg(ref.m2, 0, 'g', 17)
                                        .arg(static_cast<double>(m2), 0, 'g', 17)));
            }
            for (CpuIsa isa : isas) {
                TilePartial got{};
                FastTotals totals;
                QCOMPARE(fastTileF32(v.data() + t * kTileElements, got, totals, isa), refOk);
                if (!refOk) continue;
                QCOMPARE(std::bit_cast<uint64_t>(got.mean), std::bit_cast<uint64_t>(ref.mean));
                QCOMPARE(std::bit_cast<uint64_t>(got.m2), std::bit_cast<uint64_t>(ref.m2));
                QCOMPARE(got.n, ref.n);
                QCOMPARE(totals.mn, refTotals.mn);
                QCOMPARE(totals.mx, refTotals.mx);
                QCOMPARE(totals.zeros, refTotals.zeros);
            }
        }

        // Ranges: the data's own (values on both end edges), a narrow one
        // with values below and above, and one whose edges are data values.
        const float lo = -3.0f, hi = 5.0f;
        std::vector<std::pair<double, double>> ranges = {{-3e38, 3e38}, {-0.5, 0.75}, {lo, hi}};
        for (int k = 0; k < 50; ++k) v[static_cast<size_t>(k) * 997] = lo + (hi - lo) * static_cast<float>(k) / 49.0f;
        for (auto [a, b] : ranges) {
            for (int bins : {1, 7, 64, 65, 300}) {
                const HistogramSpec spec = makeHistogramSpec(a, b, bins);
                HistogramCounts want;
                want.counts.assign(static_cast<size_t>(bins), 0);
                for (float x : v) {
                    const double d = x;
                    if (d >= a && d <= b)
                        ++want.counts[static_cast<size_t>(histogramBin(d, a, spec.width, spec.edges.data(), bins))];
                    else if (d < a) ++want.below;
                    else if (d > b) ++want.above;
                    else ++want.nans;
                }
                for (CpuIsa isa : isas) {
                    HistogramCounts got;
                    histogramF32(v.data(), static_cast<int64_t>(v.size()), spec, got, isa);
                    const QByteArray what = QByteArray::number(a) + ".." + QByteArray::number(b) + " bins " +
                                            QByteArray::number(bins) + " isa " + QByteArray::number(static_cast<int>(isa));
                    QVERIFY2(got.counts == want.counts, what.constData());
                    QVERIFY2(got.below == want.below && got.above == want.above && got.nans == want.nans, what.constData());
                }
            }
        }
    }

    void edgeCases() {
        PreviewOptions cpu;
        cpu.device = PreviewDevice::Cpu;
        auto empty = computeStats(TensorView::of(makeTensor<float>(DataType::Float, {0}, {})), cpu);
        QVERIFY(empty.ok());
        QCOMPARE(empty->count, int64_t{0});
        QVERIFY(std::isnan(empty->mean) && std::isnan(empty->min));
        auto nan = computeStats(TensorView::of(makeTensor<float>(DataType::Float, {3}, {NAN, NAN, NAN})), cpu);
        QVERIFY(nan.ok());
        QCOMPARE(nan->nans, int64_t{3});
        QCOMPARE(nan->finiteCount, int64_t{0});
        auto infs = computeStats(TensorView::of(makeTensor<double>(DataType::Double, {4}, {kInf, -kInf, 1.0, 3.0})), cpu);
        QVERIFY(infs.ok());
        QCOMPARE(infs->posInfs, int64_t{1});
        QCOMPARE(infs->negInfs, int64_t{1});
        QCOMPARE(infs->mean, 2.0);
        QCOMPARE(infs->max, 3.0);
        // Strings preview as byte lengths.
        Tensor s;
        s.dtype = DataType::String;
        s.shape.dims = {3};
        s.strings = {"a", "bcd", ""};
        auto lens = computeStats(TensorView::of(s), cpu);
        QVERIFY(lens.ok());
        QVERIFY(lens->stringLengths);
        QCOMPARE(lens->max, 3.0);
        QCOMPARE(lens->zeros, int64_t{1});
        // Variant tensors have no numbers.
        Tensor v;
        v.dtype = DataType::Variant;
        auto none = computeStats(TensorView::of(v), cpu);
        QVERIFY(!none.ok());
        QCOMPARE(none.status().code(), StatusCode::Unimplemented);
        // Bytes that disagree with the shape are refused, not read past.
        Tensor bad = makeTensor<float>(DataType::Float, {10}, {1.0f});
        QCOMPARE(computeStats(TensorView::of(bad), cpu).status().code(), StatusCode::InvalidArgument);
    }

    void heatmapShapes_data() {
        QTest::addColumn<std::vector<int64_t>>("dims");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::newRow("rank 0") << std::vector<int64_t>{} << 1 << 1;
        QTest::newRow("rank 1") << std::vector<int64_t>{1000} << 256 << 1;
        QTest::newRow("rank 2, 1xN") << std::vector<int64_t>{1, 700} << 256 << 1;
        QTest::newRow("rank 2, Nx1") << std::vector<int64_t>{700, 1} << 1 << 256;
        QTest::newRow("rank 2, small") << std::vector<int64_t>{3, 5} << 5 << 3;
        QTest::newRow("rank 3") << std::vector<int64_t>{4, 30, 20} << 20 << 30;
        QTest::newRow("rank 4") << std::vector<int64_t>{2, 3, 300, 9} << 9 << 256;
        QTest::newRow("rank 5") << std::vector<int64_t>{2, 1, 2, 2, 3} << 3 << 2;
        QTest::newRow("rank 6") << std::vector<int64_t>{2, 3, 1, 4, 2, 3} << 3 << 2;
    }
    void heatmapShapes() {
        QFETCH(std::vector<int64_t>, dims);
        QFETCH(int, width);
        QFETCH(int, height);
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        const Tensor t = makeTensor<float>(DataType::Float, dims, generate<float>(static_cast<size_t>(n), [i = 0]() mutable {
                                               return static_cast<float>(i++ % 17) - 8;
                                           }));
        auto h = renderHeatmap(TensorView::of(t), HeatmapRequest{});
        QVERIFY2(h.ok(), h.status().toString().c_str());
        QCOMPARE(h->width, width);
        QCOMPARE(h->height, height);
        QCOMPARE(h->rgba.size(), static_cast<size_t>(width * height * 4));
        QTemporaryDir tmp;
        const QString png = tmp.filePath(QStringLiteral("h.png"));
        QVERIFY(writePng(*h, png.toStdString()).isOk());
        const QByteArray bytes = ckpt::testing::readAll(png);
        QVERIFY(bytes.startsWith("\x89PNG\r\n\x1a\n"));
        // IHDR width and height, big-endian.
        auto be32 = [&](int at) {
            return (uint8_t(bytes[at]) << 24) | (uint8_t(bytes[at + 1]) << 16) | (uint8_t(bytes[at + 2]) << 8) |
                   uint8_t(bytes[at + 3]);
        };
        QCOMPARE(be32(16), width);
        QCOMPARE(be32(20), height);
    }

    void heatmapValues() {
        // 4x4 pooled to 2x2 by mean; maxabs keeps the sign of the largest magnitude.
        const Tensor t = makeTensor<float>(DataType::Float, {4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, -9, 10, 11, 12, 13, 14, 15, -16});
        HeatmapRequest req;
        req.maxWidth = 2;
        req.maxHeight = 2;
        auto mean = renderHeatmap(TensorView::of(t), req);
        QVERIFY(mean.ok());
        QCOMPARE(mean->values, (std::vector<double>{3.5, 5.5, 7.0, 5.5}));
        QCOMPARE(mean->colormap, std::string("viridis"));
        req.reduce = HeatmapReduce::MaxAbs;
        auto maxabs = renderHeatmap(TensorView::of(t), req);
        QVERIFY(maxabs.ok());
        QCOMPARE(maxabs->values, (std::vector<double>{6, 8, 14, -16}));
        QCOMPARE(maxabs->colormap, std::string("coolwarm"));  // signed data: diverging, centred on zero
        QCOMPARE(maxabs->lo, -16.0);
        QCOMPARE(maxabs->hi, 16.0);
        // Fixing axis 0 of a [2, 2, 3] tensor shows that slice; swapped axes transpose.
        const Tensor c = makeTensor<int32_t>(DataType::Int32, {2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
        HeatmapRequest slice;
        slice.fixedIndices[0] = 1;
        auto s = renderHeatmap(TensorView::of(c), slice);
        QVERIFY(s.ok());
        QCOMPARE(s->values, (std::vector<double>{6, 7, 8, 9, 10, 11}));
        slice.axes = std::pair{2, 1};
        auto tr = renderHeatmap(TensorView::of(c), slice);
        QVERIFY(tr.ok());
        QCOMPARE(tr->height, 3);
        QCOMPARE(tr->values, (std::vector<double>{6, 9, 7, 10, 8, 11}));
        // Unfixed axes are reduced by mean.
        HeatmapRequest reduced;
        auto m = renderHeatmap(TensorView::of(c), reduced);
        QVERIFY(m.ok());
        QCOMPARE(m->values, (std::vector<double>{3, 4, 5, 6, 7, 8}));
        // NaN cells are transparent.
        const Tensor n = makeTensor<float>(DataType::Float, {1, 2}, {NAN, 1.0f});
        auto nh = renderHeatmap(TensorView::of(n), HeatmapRequest{});
        QVERIFY(nh.ok());
        QCOMPARE(nh->rgba[3], uint8_t{0});
        QCOMPARE(nh->rgba[7], uint8_t{255});
    }

    void heatmapFixedRange() {
        // A shared scale: the same value gets the same colour in both maps,
        // whatever else each tensor holds.
        const Tensor a = makeTensor<float>(DataType::Float, {1, 3}, {0, 1, 2});
        const Tensor b = makeTensor<float>(DataType::Float, {1, 3}, {0, 1, 4});
        HeatmapRequest req;
        req.lo = 0.0;
        req.hi = 4.0;
        auto ha = renderHeatmap(TensorView::of(a), req);
        auto hb = renderHeatmap(TensorView::of(b), req);
        QVERIFY(ha.ok() && hb.ok());
        QCOMPARE(ha->lo, 0.0);
        QCOMPARE(ha->hi, 4.0);
        QCOMPARE(ha->colormap, std::string("viridis"));
        for (size_t i = 0; i < 8; ++i) QCOMPARE(ha->rgba[i], hb->rgba[i]);  // 0 and 1 alike in both
        QVERIFY(ha->rgba[8] != hb->rgba[8] || ha->rgba[9] != hb->rgba[9]);  // 2 is not the top of a's scale
        // Without the range each map spans its own data: 1 differs.
        auto own = renderHeatmap(TensorView::of(a), HeatmapRequest{});
        QVERIFY(own.ok());
        QCOMPARE(own->hi, 2.0);
        // "auto" picks by the fixed range; a diverging map stays centred on zero.
        req.lo = -1.0;
        req.hi = 4.0;
        auto d = renderHeatmap(TensorView::of(a), req);
        QVERIFY(d.ok());
        QCOMPARE(d->colormap, std::string("coolwarm"));
        QCOMPARE(d->lo, -4.0);
        QCOMPARE(d->hi, 4.0);
        // Values outside the range take the ends' colours.
        req.colormap = "gray";
        req.lo = 0.5;
        req.hi = 1.5;
        auto g = renderHeatmap(TensorView::of(a), req);
        QVERIFY(g.ok());
        QCOMPARE(g->rgba[0], uint8_t{0});
        QCOMPARE(g->rgba[8], uint8_t{255});
    }

    void badRequests_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<StatusCode>("code");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("slice index out of range") << "index 0=3" << StatusCode::OutOfRange << "out of range for axis 0";
        QTest::newRow("negative slice index") << "index 0=-1" << StatusCode::OutOfRange << "out of range";
        QTest::newRow("axis that does not exist") << "axes 0,3" << StatusCode::InvalidArgument << "does not exist";
        QTest::newRow("index axis that does not exist") << "index 5=0" << StatusCode::InvalidArgument << "does not exist";
        QTest::newRow("heatmap axis fixed") << "index 2=0" << StatusCode::InvalidArgument << "cannot be fixed";
        QTest::newRow("same axis twice") << "axes 1,1" << StatusCode::InvalidArgument << "must differ";
        QTest::newRow("size 0") << "size 0x10" << StatusCode::InvalidArgument << "at least 1x1";
        QTest::newRow("unknown colormap") << "colormap jet" << StatusCode::InvalidArgument << "unknown colormap \"jet\"";
        QTest::newRow("empty tensor") << "empty" << StatusCode::InvalidArgument << "empty tensor";
        QTest::newRow("fixed range without hi") << "scale 1" << StatusCode::InvalidArgument << "both lo and hi";
        QTest::newRow("fixed range inverted") << "scale 2,1" << StatusCode::InvalidArgument << "lo < hi";
        QTest::newRow("fixed range not finite") << "scale 0,inf" << StatusCode::InvalidArgument << "must be finite";
        QTest::newRow("zero bins") << "bins 0" << StatusCode::InvalidArgument << "bins must be";
        QTest::newRow("too many bins") << "bins 100000" << StatusCode::InvalidArgument << "bins must be";
        QTest::newRow("inverted range") << "range 2,1" << StatusCode::InvalidArgument << "lo > hi";
    }
    void badRequests() {
        QFETCH(QString, what);
        QFETCH(StatusCode, code);
        QFETCH(QString, fragment);
        const Tensor t = makeTensor<float>(DataType::Float, {3, 4, 5}, std::vector<float>(60, 1.0f));
        const QStringList w = what.split(QLatin1Char(' '));
        Status st;
        if (w[0] == QLatin1String("bins") || w[0] == QLatin1String("range")) {
            HistogramRequest req;
            if (w[0] == QLatin1String("bins")) req.bins = w[1].toInt();
            else {
                req.lo = w[1].section(QLatin1Char(','), 0, 0).toDouble();
                req.hi = w[1].section(QLatin1Char(','), 1, 1).toDouble();
            }
            st = computeHistogram(TensorView::of(t), req).status();
        } else {
            HeatmapRequest req;
            Tensor input = t;
            if (w[0] == QLatin1String("index"))
                req.fixedIndices[w[1].section(QLatin1Char('='), 0, 0).toInt()] =
                    w[1].section(QLatin1Char('='), 1, 1).toLongLong();
            if (w[0] == QLatin1String("axes"))
                req.axes = std::pair{w[1].section(QLatin1Char(','), 0, 0).toInt(), w[1].section(QLatin1Char(','), 1, 1).toInt()};
            if (w[0] == QLatin1String("size")) req.maxWidth = 0;
            if (w[0] == QLatin1String("colormap")) req.colormap = w[1].toStdString();
            if (w[0] == QLatin1String("empty")) input = makeTensor<float>(DataType::Float, {0, 4}, {});
            if (w[0] == QLatin1String("scale")) {
                const QStringList ends = w[1].split(QLatin1Char(','));
                req.lo = ends[0].toDouble();
                if (ends.size() > 1) req.hi = ends[1] == QLatin1String("inf") ? kInf : ends[1].toDouble();
            }
            st = renderHeatmap(TensorView::of(input), req).status();
        }
        QVERIFY(!st.isOk());
        QCOMPARE(st.code(), code);
        QVERIFY2(st.message().find(fragment.toStdString()) != std::string::npos, st.toString().c_str());
    }

    // A tensor whose checksum fails never reaches the preview: the reader
    // refuses it with the checksum error.
    void corruptTensorRefused() {
        // Any bundle does; ours, so a clone without the real corpus runs it.
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-1")).toStdString();
        {
            auto writer = BundleWriter::create(prefix);
            QVERIFY(writer.ok());
            QVERIFY((*writer)->add("w", makeTensor<float>(DataType::Float, {64}, std::vector<float>(64, 1.5f))).isOk());
            QVERIFY((*writer)->finish().isOk());
        }
        auto reader = BundleReader::open(prefix);
        QVERIFY(reader.ok());
        const TensorInfo* target = nullptr;
        for (const TensorInfo& info : (*reader)->tensors()) {
            if (info.dtype == DataType::Float && info.region.size > 16 && info.slices.empty()) target = &info;
        }
        QVERIFY(target);
        const QString data = QString::fromStdString((*reader)->dataPath(target->region.shardId));
        QByteArray bytes = ckpt::testing::readAll(data);
        bytes[static_cast<qsizetype>(target->region.offset + 5)] =
            static_cast<char>(bytes[static_cast<qsizetype>(target->region.offset + 5)] ^ 0x40);
        QVERIFY(ckpt::testing::writeAll(data, bytes));
        auto fresh = BundleReader::open(prefix);
        QVERIFY(fresh.ok());
        auto t = (*fresh)->read(target->key);
        QVERIFY(!t.ok());
        QCOMPARE(t.status().code(), StatusCode::DataLoss);
        QVERIFY2(t.status().message().find("checksum") != std::string::npos, t.status().toString().c_str());
    }

    // Auto never starts CUDA for a tensor the CPU finishes before CUDA
    // could start, on any machine, and says why.
    void autoKeepsSmallTensorsOnTheCpu() {
        const Tensor t = makeTensor<float>(DataType::Float, {4}, {1, 2, 3, 4});
        auto s = computeStats(TensorView::of(t));
        QVERIFY(s.ok());
        QCOMPARE(s->computedOn.device, std::string("cpu"));
        QCOMPARE(s->computedOn.fallbackReason, std::string("the CPU is estimated faster here"));
        QVERIFY2(s->computedOn.estimate.find("cpu ~") == 0, s->computedOn.estimate.c_str());
        PreviewOptions cuda;
        cuda.device = PreviewDevice::Cuda;
        auto forced = computeStats(TensorView::of(t), cuda);
        if (forced.ok()) {
            QCOMPARE(forced->computedOn.device, std::string("cuda"));
            QVERIFY(forced->computedOn.estimate.empty());
        } else {
            QCOMPARE(forced.status().code(), StatusCode::FailedPrecondition);
        }
    }

    // The model behind Auto: size, cores and whether CUDA has started.
    void deviceModelWeighsBothPaths() {
        using preview::estimateDevices;
        const int64_t MiB = int64_t{1} << 20, GiB = int64_t{1} << 30;
        QVERIFY(!estimateDevices(MiB, 2, false).cuda);
        // The H200 host (16 cores): a 512 MiB tensor is faster on its CPU.
        QVERIFY(!estimateDevices(512 * MiB, 16, false).cuda);
        // One core and a large tensor: the GPU, start included; two cores
        // stream as fast as the measured copy from pageable memory.
        const auto big = estimateDevices(16 * GiB, 1, false);
        QVERIFY(big.cuda);
        QVERIFY(big.cudaSeconds < big.cpuSeconds);
        QVERIFY(!estimateDevices(16 * GiB, 2, false).cuda);
        // A started context lowers the bar.
        QVERIFY(!estimateDevices(512 * MiB, 1, false).cuda);
        QVERIFY(estimateDevices(512 * MiB, 1, true).cuda);
        // Never the GPU for nothing, even started.
        QVERIFY(!estimateDevices(0, 1, true).cuda);
        const auto e = estimateDevices(512 * MiB, 2, false);
        QVERIFY2(e.summary.find("on 2 threads") != std::string::npos, e.summary.c_str());
        QVERIFY2(e.summary.find("to start") != std::string::npos, e.summary.c_str());
        preview::DeviceModel slowCopy;
        slowCopy.cudaBytesPerSecond = 1e9;
        QVERIFY(!estimateDevices(16 * GiB, 1, true, slowCopy).cuda);
    }
};

QTEST_GUILESS_MAIN(TstPreview)
#include "tst_preview.moc"
