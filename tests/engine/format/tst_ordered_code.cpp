#include <QtTest>

#include "format/ordered_code.h"

using namespace ckpt;
using namespace ckpt::format;

class TstOrderedCode : public QObject {
    Q_OBJECT
private slots:
    // A worked slice key, encoded by the rules of docs/format.md, "Partitioned (sliced) tensors".
    void documentedExample() {
        TensorSlice slice{{{0, 5}, {0, -1}}};
        const std::string key = encodeSliceKey("w", slice);
        QCOMPARE(QByteArray::fromStdString(key).toHex(), QByteArray("0077000101028085807f"));
        auto decoded = decodeSliceKey(key, "test");
        QVERIFY(decoded.ok());
        QCOMPARE(decoded->fullKey, std::string("w"));
        QVERIFY(decoded->slice == slice);
    }

    void roundTrip_data() {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<qlonglong>("start");
        QTest::addColumn<qlonglong>("length");
        QTest::newRow("small") << QByteArray("a/b") << 3LL << 5LL;
        QTest::newRow("two-byte values") << QByteArray("x") << 100LL << 1000LL;
        QTest::newRow("large values") << QByteArray("y") << (1LL << 40) << (1LL << 50);
        QTest::newRow("int64 max") << QByteArray("z") << 0LL << 0x7fffffffffffffffLL;
        QTest::newRow("escaped bytes") << QByteArray("a\0b\xff", 4) << 1LL << 2LL;
    }
    void roundTrip() {
        QFETCH(QByteArray, name);
        QFETCH(qlonglong, start);
        QFETCH(qlonglong, length);
        TensorSlice slice{{{start, length}, {0, -1}}};
        const std::string key = encodeSliceKey(name.toStdString(), slice);
        QVERIFY(isSliceKey(key));
        auto decoded = decodeSliceKey(key, "test");
        QVERIFY2(decoded.ok(), decoded.status().toString().c_str());
        QCOMPARE(QByteArray::fromStdString(decoded->fullKey), name);
        QVERIFY(decoded->slice == slice);
    }

    void malformed_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("not a slice key") << QByteArray("\x01w", 2);
        QTest::newRow("unterminated name") << QByteArray("\x00w", 2);
        QTest::newRow("missing extents") << QByteArray("\x00w\x00\x01\x01\x02\x80", 7);
        QTest::newRow("trailing bytes") << QByteArray("\x00w\x00\x01\x01\x01\x80\x85\x99", 9);
    }
    void malformed() {
        QFETCH(QByteArray, bytes);
        auto decoded = decodeSliceKey(bytes.toStdString(), "x.index");
        QVERIFY(!decoded.ok());
        QCOMPARE(decoded.status().code(), StatusCode::DataLoss);
        QVERIFY(decoded.status().message().find("x.index") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TstOrderedCode)
#include "tst_ordered_code.moc"
