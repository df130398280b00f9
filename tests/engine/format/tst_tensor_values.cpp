// Element decoding of the small and 16-bit float formats against values
// worked out by hand from their bit layouts (ml_dtypes semantics).

#include <QtTest>

#include <cmath>

#include "ckpt/tensor.h"

using namespace ckpt;

namespace {
double decode(DataType type, uint8_t bits) {
    Tensor t;
    t.dtype = type;
    t.shape = TensorShape{{1}};
    t.bytes = {bits};
    return t.elementAsDouble(0);
}
}  // namespace

class TstTensorValues : public QObject {
    Q_OBJECT
private slots:
    void smallFloats_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("bits");
        QTest::addColumn<double>("expected");
        auto row = [](const char* name, DataType t, int bits, double v) {
            QTest::newRow(name) << static_cast<int>(t) << bits << v;
        };
        row("e5m2 one", DataType::Float8E5M2, 0x3c, 1.0);
        row("e5m2 -inf", DataType::Float8E5M2, 0xfc, -INFINITY);
        row("e5m2 max", DataType::Float8E5M2, 0x7b, 57344.0);
        row("e4m3fn one", DataType::Float8E4M3FN, 0x38, 1.0);
        row("e4m3fn max", DataType::Float8E4M3FN, 0x7e, 448.0);
        row("e4m3fn smallest subnormal", DataType::Float8E4M3FN, 0x01, std::ldexp(1.0, -9));
        row("e4m3fnuz one", DataType::Float8E4M3FNUZ, 0x40, 1.0);
        row("e4m3b11fnuz one", DataType::Float8E4M3B11FNUZ, 0x58, 1.0);
        row("e5m2fnuz one", DataType::Float8E5M2FNUZ, 0x40, 1.0);
        row("float4 six", DataType::Float4E2M1FN, 0x07, 6.0);
        row("float4 minus half", DataType::Float4E2M1FN, 0x09, -0.5);
    }
    void smallFloats() {
        QFETCH(int, type);
        QFETCH(int, bits);
        QFETCH(double, expected);
        QCOMPARE(decode(static_cast<DataType>(type), static_cast<uint8_t>(bits)), expected);
    }

    void nanPatterns() {
        QVERIFY(std::isnan(decode(DataType::Float8E4M3FN, 0x7f)));
        QVERIFY(std::isnan(decode(DataType::Float8E4M3FNUZ, 0x80)));
        QVERIFY(std::isnan(decode(DataType::Float8E5M2, 0x7e)));
    }

    void sixteenBitFloats() {
        QCOMPARE(halfToFloat(0x3c00), 1.0f);
        QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24));
        QCOMPARE(halfToFloat(0xfc00), -INFINITY);
        QCOMPARE(bfloat16ToFloat(0x3f80), 1.0f);
        QCOMPARE(floatToHalf(1.0f), uint16_t{0x3c00});
        QCOMPARE(floatToHalf(65520.0f), uint16_t{0x7c00});  // rounds to inf
        QCOMPARE(floatToHalf(std::ldexp(1.0f, -24)), uint16_t{0x0001});
        QCOMPARE(floatToBfloat16(1.0f), uint16_t{0x3f80});
        // Round to nearest even: 1 + 2^-8 is a tie between 1.0 and 1 + 2^-7.
        QCOMPARE(floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), uint16_t{0x3f80});
        QVERIFY(std::isnan(bfloat16ToFloat(floatToBfloat16(NAN))));
    }
};

QTEST_GUILESS_MAIN(TstTensorValues)
#include "tst_tensor_values.moc"
