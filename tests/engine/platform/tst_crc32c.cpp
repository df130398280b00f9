#include <QtTest>

#include <random>
#include <vector>

#include "platform/crc32c.h"

using namespace ckpt::platform;

namespace {
// Bit-at-a-time reference, independent of the table and SSE paths.
uint32_t referenceCrc(const uint8_t* p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? 0x82f63b78u : 0u);
    }
    return ~c;
}
}  // namespace

class TstCrc32c : public QObject {
    Q_OBJECT
private slots:
    void knownVectors_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<uint>("expected");
        QTest::newRow("check string") << QByteArray("123456789") << 0xe3069283u;
        QTest::newRow("32 zero bytes") << QByteArray(32, '\0') << 0x8a9136aau;
        QTest::newRow("4 zero bytes") << QByteArray(4, '\0') << 0x48674bc7u;
        QTest::newRow("empty") << QByteArray() << 0u;
    }
    void knownVectors() {
        QFETCH(QByteArray, input);
        QFETCH(uint, expected);
        QCOMPARE(crc32c(input.constData(), static_cast<size_t>(input.size())), expected);
    }

    void maskRoundTrip() {
        QCOMPARE(crc32cMask(0), 0xa282ead8u);
        for (uint32_t v : {0u, 1u, 0xdeadbeefu, 0xffffffffu}) QCOMPARE(crc32cUnmask(crc32cMask(v)), v);
    }

    // Lengths straddle the 3-stream block size (3 * 8 KiB) and odd tails.
    void matchesReferenceAtEveryPath_data() {
        QTest::addColumn<int>("length");
        QTest::addColumn<int>("split");
        for (int len : {1, 7, 8, 9, 1000, 24575, 24576, 24577, 49152 + 13, 300000})
            for (int split : {0, std::min(3, len), len / 2})
                QTest::newRow(qPrintable(QStringLiteral("len %1 split %2").arg(len).arg(split))) << len << split;
    }
    void matchesReferenceAtEveryPath() {
        QFETCH(int, length);
        QFETCH(int, split);
        std::mt19937 rng(static_cast<unsigned>(length));
        std::vector<uint8_t> data(static_cast<size_t>(length));
        for (auto& b : data) b = static_cast<uint8_t>(rng());
        const uint32_t expected = referenceCrc(data.data(), data.size());
        QCOMPARE(crc32c(data.data(), data.size()), expected);
        const uint32_t first = crc32c(data.data(), static_cast<size_t>(split));
        QCOMPARE(crc32cExtend(first, data.data() + split, data.size() - static_cast<size_t>(split)), expected);
    }

    // verify checksums large regions in parallel parts joined by combine().
    void combineJoinsParts() {
        std::vector<uint8_t> data(300000);
        for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
        const uint32_t whole = ckpt::platform::crc32c(data.data(), data.size());
        for (size_t cut : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}, size_t{65537}, data.size() - 1, data.size()}) {
            const uint32_t a = ckpt::platform::crc32c(data.data(), cut);
            const uint32_t b = ckpt::platform::crc32c(data.data() + cut, data.size() - cut);
            QCOMPARE(ckpt::platform::crc32cCombine(a, b, data.size() - cut), whole);
        }
    }
};

QTEST_GUILESS_MAIN(TstCrc32c)
#include "tst_crc32c.moc"
