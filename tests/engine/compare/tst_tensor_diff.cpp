// The element-pair rules of ckpt/tensor_diff.h on tensors built in memory:
// figures against values worked out by hand, tolerance defaults per dtype,
// NaN and infinity rules, exact integers past 2^53, slices, strings and
// complex values, and the same bits whatever the thread count.

#include <QtTest>

#include <cmath>
#include <limits>

#include "ckpt/tensor_diff.h"
#include "test_tensors.h"

using namespace ckpt;
using ckpt::testing::makeTensor;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TensorDiff diffOf(const Tensor& a, const Tensor& b, TensorDiffOptions opt = {}) {
    auto d = diffTensors(TensorView::of(a), TensorView::of(b), opt);
    if (!d.ok()) qFatal("%s", d.status().toString().c_str());
    return *d;
}

}  // namespace

class TestTensorDiff : public QObject {
    Q_OBJECT

private slots:
    void figuresOfASmallPair() {
        const Tensor a = makeTensor<double>(DataType::Double, {2, 2}, {1, 2, 3, 4});
        const Tensor b = makeTensor<double>(DataType::Double, {2, 2}, {1, 2.5, 3, 3});
        const TensorDiff d = diffOf(a, b);
        QCOMPARE(d.elements, 4);
        QCOMPARE(d.mismatches, 2);
        QCOMPARE(d.maxAbsDiff, 1.0);
        QCOMPARE(d.maxAbsIndex, 3);
        QCOMPARE(d.maxRelDiff, 1.0 / 3.0);
        QCOMPARE(d.maxRelIndex, 3);
        QCOMPARE(d.meanAbsDiff, 1.5 / 4);
        QCOMPARE(d.normA, std::sqrt(30.0));
        QCOMPARE(d.relL2, std::sqrt(1.25) / std::sqrt(30.0));
        QCOMPARE(d.cosine, (1 + 5 + 9 + 12) / (std::sqrt(30.0) * std::sqrt(1 + 6.25 + 9 + 9)));
        QCOMPARE(d.firstMismatches.size(), size_t{2});
        QCOMPARE(d.firstMismatches[0].index, 1);
        QCOMPARE(QString::fromStdString(d.firstMismatches[0].a), QStringLiteral("2"));
        QCOMPARE(QString::fromStdString(d.firstMismatches[0].b), QStringLiteral("2.5"));
        QVERIFY(!isEqualWithinTolerance(d));
    }

    void toleranceFollowsNumpyAndPerDtypeDefaults() {
        // |a-b| <= atol + rtol*|b|: 1e-5 + 1.3e-6*1 for float32.
        const Tensor a = makeTensor<float>(DataType::Float, {2}, {1.0f, 1.0f});
        const Tensor b = makeTensor<float>(DataType::Float, {2}, {1.0f + 8e-6f, 1.0f + 2e-5f});
        TensorDiff d = diffOf(a, b);
        QCOMPARE(d.tolerance.rtol, 1.3e-6);
        QCOMPARE(d.tolerance.atol, 1e-5);
        QCOMPARE(d.mismatches, 1);
        TensorDiffOptions loose;
        loose.tolerance.atol = 1e-4;
        QCOMPARE(diffOf(a, b, loose).mismatches, 0);
        TensorDiffOptions exact;
        exact.tolerance.exact = true;
        QCOMPARE(diffOf(a, b, exact).mismatches, 2);
        QCOMPARE(toleranceFor(DataType::BFloat16, {}).rtol, 1.6e-2);
        QCOMPARE(toleranceFor(DataType::Half, {}).rtol, 1e-3);
        QCOMPARE(toleranceFor(DataType::Double, {}).atol, 1e-7);
        QVERIFY(toleranceFor(DataType::Int32, {}).exact);
    }

    void nanAndInfinityRules() {
        const Tensor a = makeTensor<double>(DataType::Double, {5}, {kNaN, 1, kNaN, kInf, kInf});
        const Tensor b = makeTensor<double>(DataType::Double, {5}, {kNaN, kNaN, 2, kInf, -kInf});
        const TensorDiff d = diffOf(a, b);
        // NaN==NaN and inf==inf match; NaN appearing, NaN going and inf vs -inf do not.
        QCOMPARE(d.mismatches, 3);
        QCOMPARE(d.nansAppeared, 1);
        QCOMPARE(d.nansDisappeared, 1);
        QCOMPARE(d.nansA, 2);
        QCOMPARE(d.infsB, 2);
        QCOMPARE(d.maxAbsIndex, -1);  // no pair where both are finite
        TensorDiffOptions differ;
        differ.tolerance.nanEqual = false;
        QCOMPARE(diffOf(a, b, differ).mismatches, 4);
    }

    void integersCompareTheirBits() {
        // 2^53 and 2^53+1 are one double: the comparison must not go through doubles.
        const int64_t big = int64_t{1} << 53;
        const Tensor a = makeTensor<int64_t>(DataType::Int64, {2}, {big, 7});
        const Tensor b = makeTensor<int64_t>(DataType::Int64, {2}, {big + 1, 7});
        const TensorDiff d = diffOf(a, b);
        QVERIFY(d.exactCompare);
        QCOMPARE(d.mismatches, 1);
        QCOMPARE(QString::fromStdString(d.firstMismatches[0].b), QStringLiteral("9007199254740993"));
    }

    void bfloat16IsWidenedExactly() {
        // 1.0 and 1.0078125 (the next bfloat16): 0.0078 <= 1e-5 + 1.6e-2 * 1.0078.
        const Tensor a = makeTensor<uint16_t>(DataType::BFloat16, {1}, {0x3f80});
        const Tensor b = makeTensor<uint16_t>(DataType::BFloat16, {1}, {0x3f81});
        const TensorDiff d = diffOf(a, b);
        QCOMPARE(d.maxAbsDiff, 0.0078125);
        QCOMPARE(d.mismatches, 0);
    }

    void slicesSelectElements() {
        std::vector<float> va(12), vb(12);
        for (int i = 0; i < 12; ++i) va[static_cast<size_t>(i)] = vb[static_cast<size_t>(i)] = static_cast<float>(i);
        vb[5] += 1;   // [1, 1]
        vb[11] += 1;  // [2, 3]
        const Tensor a = makeTensor<float>(DataType::Float, {3, 4}, va);
        const Tensor b = makeTensor<float>(DataType::Float, {3, 4}, vb);
        auto slice = parseDiffSlice("0:2, 1:3", a.shape);
        QVERIFY(slice.ok());
        TensorDiffOptions opt;
        opt.slice = *slice;
        const TensorDiff d = diffOf(a, b, opt);
        QCOMPARE(d.elements, 4);
        QCOMPARE(d.mismatches, 1);
        QCOMPARE(d.maxAbsIndex, 5);  // flat index in the whole tensor
        auto row = parseDiffSlice("-1", a.shape);
        QVERIFY(row.ok());
        QCOMPARE(row->ranges[0], (std::pair<int64_t, int64_t>{2, 3}));
        QVERIFY(!parseDiffSlice("0:5", a.shape).ok());
        QVERIFY(!parseDiffSlice("0,0,0", a.shape).ok());
        QVERIFY(!parseDiffSlice("x", a.shape).ok());
    }

    void stringsAndComplex() {
        Tensor a, b;
        a.dtype = b.dtype = DataType::String;
        a.shape.dims = b.shape.dims = {3};
        a.strings = {"x", "y", "z"};
        b.strings = {"x", "Y", "z"};
        const TensorDiff s = diffOf(a, b);
        QCOMPARE(s.mismatches, 1);
        QCOMPARE(QString::fromStdString(s.firstMismatches[0].b), QStringLiteral("Y"));

        const Tensor ca = makeTensor<float>(DataType::Complex64, {2}, {1, 1, 0, 2});
        const Tensor cb = makeTensor<float>(DataType::Complex64, {2}, {1, 1, 3, 6});
        const TensorDiff c = diffOf(ca, cb);
        QCOMPARE(c.maxAbsDiff, 5.0);  // |(0+2j) - (3+6j)|
        QCOMPARE(c.mismatches, 1);
        auto abs = absoluteDifference(TensorView::of(ca), TensorView::of(cb));
        QVERIFY(abs.ok());
        QCOMPARE(abs->as<double>()[1], 5.0);
    }

    void mismatchedPairsAreRefused() {
        const Tensor a = makeTensor<float>(DataType::Float, {2}, {1, 2});
        const Tensor b = makeTensor<double>(DataType::Double, {2}, {1, 2});
        const Tensor c = makeTensor<float>(DataType::Float, {1, 2}, {1, 2});
        QCOMPARE(diffTensors(TensorView::of(a), TensorView::of(b)).status().code(), StatusCode::InvalidArgument);
        QCOMPARE(diffTensors(TensorView::of(a), TensorView::of(c)).status().code(), StatusCode::InvalidArgument);
    }

    void sameBitsOnAnyThreadCount() {
        // Larger than one 16 MiB part, so several partials merge.
        const size_t n = (size_t{5} << 20) + 17;
        std::vector<float> va(n), vb(n);
        for (size_t i = 0; i < n; ++i) {
            va[i] = std::sin(static_cast<float>(i) * 0.001f);
            vb[i] = va[i] + (i % 97 == 0 ? 1e-3f : 0.0f);
        }
        const Tensor a = makeTensor<float>(DataType::Float, {static_cast<int64_t>(n)}, va);
        const Tensor b = makeTensor<float>(DataType::Float, {static_cast<int64_t>(n)}, vb);
        TensorDiffOptions one, many;
        one.cpuThreads = 1;
        many.cpuThreads = 4;
        const TensorDiff x = diffOf(a, b, one), y = diffOf(a, b, many);
        QCOMPARE(x.mismatches, y.mismatches);
        QCOMPARE(x.relL2, y.relL2);
        QCOMPARE(x.cosine, y.cosine);
        QCOMPARE(x.maxAbsIndex, y.maxAbsIndex);
        QCOMPARE(x.mismatches, static_cast<int64_t>((n + 96) / 97));
    }
};

QTEST_APPLESS_MAIN(TestTensorDiff)
#include "tst_tensor_diff.moc"
