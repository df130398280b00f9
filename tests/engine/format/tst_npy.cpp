// .npy reading (ckpt/npy.h): what our writer produces reads back, numpy's
// other versions and spellings are accepted, and every malformed or
// unsupported header is an InvalidArgument naming the file.

#include <QTemporaryDir>
#include <QtTest>

#include <string>

#include "ckpt/npy.h"
#include "test_support.h"

using namespace ckpt;

class TstNpy : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void otherVersions();
    void bad_data();
    void bad();
    void fileSizeMustMatch();
};

void TstNpy::roundTrip_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QString>("shape");
    for (DataType d : {DataType::Float, DataType::Double, DataType::Half, DataType::Int8, DataType::Int16, DataType::Int32,
                       DataType::Int64, DataType::UInt8, DataType::UInt16, DataType::UInt32, DataType::UInt64, DataType::Bool,
                       DataType::Complex64, DataType::Complex128}) {
        const QByteArray name(dataTypeShortName(d).data(), static_cast<int>(dataTypeShortName(d).size()));
        QTest::newRow((name + " scalar").constData()) << static_cast<int>(d) << QString();
        QTest::newRow((name + " [3]").constData()) << static_cast<int>(d) << QStringLiteral("3");
        QTest::newRow((name + " [2,0,5]").constData()) << static_cast<int>(d) << QStringLiteral("2,0,5");
    }
}

void TstNpy::roundTrip() {
    QFETCH(int, dtype);
    QFETCH(QString, shape);
    const auto d = static_cast<DataType>(dtype);
    TensorShape s;
    for (const QString& part : shape.split(QLatin1Char(','), Qt::SkipEmptyParts)) s.dims.push_back(part.toLongLong());
    std::string bytes(static_cast<size_t>(*s.numElements()) * dataTypeSize(d), '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(d == DataType::Bool ? i % 2 : i * 7 + 1);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("a.npy"));
    QVERIFY(testing::writeAll(path, QByteArray::fromStdString(npyPreamble(npyDescr(d), s) + bytes)));
    auto t = readNpyFile(path.toStdString());
    QVERIFY2(t.ok(), t.status().toString().c_str());
    QCOMPARE(t->dtype, d);
    QCOMPARE(t->shape, s);
    QCOMPARE(std::string(t->bytes.begin(), t->bytes.end()), bytes);
}

void TstNpy::otherVersions() {
    // Version 2.0: a 4-byte header length; double quotes and odd spacing.
    std::string dict = "{\"shape\":(2,3),\"fortran_order\":False,\"descr\":\"<i4\"}\n";
    std::string file("\x93NUMPY\x02\x00", 8);
    const auto n = static_cast<uint32_t>(dict.size());
    for (int i = 0; i < 4; ++i) file += static_cast<char>((n >> (8 * i)) & 0xff);
    file += dict;
    auto h = parseNpyHeader(file, "v2.npy");
    QVERIFY2(h.ok(), h.status().toString().c_str());
    QCOMPARE(h->dtype, DataType::Int32);
    QCOMPARE(h->shape, (TensorShape{{2, 3}}));
    QCOMPARE(h->dataOffset, uint64_t{12} + dict.size());
    // '<u1' is numpy's '|u1'.
    auto u = parseNpyHeader(npyPreamble("<u1", TensorShape{{4}}), "u1.npy");
    QVERIFY(u.ok());
    QCOMPARE(u->dtype, DataType::UInt8);
}

void TstNpy::bad_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fragment");
    const auto pre = [](const char* descr, TensorShape s = {}) { return QByteArray::fromStdString(npyPreamble(descr, s)); };
    const QByteArray good = pre("<f4", TensorShape{{3}});
    QTest::newRow("empty") << QByteArray() << QStringLiteral("truncated");
    QTest::newRow("no magic") << QByteArray("PK\x03\x04 not numpy at all") << QStringLiteral("magic");
    QTest::newRow("truncated header") << good.left(30) << QStringLiteral("truncated header");
    QTest::newRow("version 9") << QByteArray(good).replace(6, 1, "\x09") << QStringLiteral("version 9");
    QTest::newRow("big-endian") << pre(">f4") << QStringLiteral("'>f4'");
    QTest::newRow("object") << pre("|O") << QStringLiteral("'|O'");
    QTest::newRow("unicode") << pre("<U5") << QStringLiteral("'<U5'");
    QTest::newRow("fortran order") << QByteArray(good).replace("False", "True ") << QStringLiteral("fortran_order");
    QTest::newRow("negative dim") << QByteArray(good).replace("(3,)", "(-3,)") << QStringLiteral("non-negative");
    QTest::newRow("overflowing shape") << pre("<f8", TensorShape{{int64_t{1} << 40, int64_t{1} << 40}})
                                       << QStringLiteral("overflow");
    QTest::newRow("structured dtype") << QByteArray(good).replace("'<f4'", "[('a','<f4')]") << QStringLiteral("structured");
}

void TstNpy::bad() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fragment);
    auto h = parseNpyHeader(bytes.toStdString(), "x.npy");
    QVERIFY(!h.ok());
    QCOMPARE(h.status().code(), StatusCode::InvalidArgument);
    QVERIFY2(QString::fromStdString(h.status().message()).contains(fragment), h.status().message().c_str());
    QVERIFY(h.status().message().find("x.npy") != std::string::npos);
}

void TstNpy::fileSizeMustMatch() {
    // A header claiming a huge shape over a few bytes is refused before any
    // allocation of that size.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("huge.npy"));
    QVERIFY(testing::writeAll(path, QByteArray::fromStdString(npyPreamble("<f4", TensorShape{{1 << 30, 64}}) + "abcd")));
    auto t = readNpyFile(path.toStdString());
    QVERIFY(!t.ok());
    QVERIFY2(t.status().message().find("needs 274877906944 bytes") != std::string::npos, t.status().message().c_str());
}

QTEST_GUILESS_MAIN(TstNpy)
#include "tst_npy.moc"
