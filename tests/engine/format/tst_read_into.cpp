// BundleReader::readTensorsInto and readRowsInto (what the Python package
// reads with): values land in the caller's buffers bit for bit as read()
// gives them, damage fails the one tensor and leaves zeros, and row reads
// take only the rows asked for, within bounds.

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>
#include <numeric>

#include "ckpt/bundle_reader.h"
#include "ckpt/save.h"
#include "test_support.h"
#include "test_tensors.h"

using namespace ckpt;

class TstReadInto : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_prefix;

    // 'big' (12 MiB: read in parallel parts), 'rows' [6, 5] int32, a scalar,
    // an empty tensor, a string tensor and a partitioned [6, 2] float32.
    void writeFixture() {
        std::vector<SaveTensor> tensors;
        std::vector<float> big(3u << 20);
        std::iota(big.begin(), big.end(), 0.5f);
        tensors.push_back({"big", testing::makeTensor<float>(DataType::Float, {3 << 20}, big), {}, {}, {{3 << 20}}});
        std::vector<int32_t> rows(30);
        std::iota(rows.begin(), rows.end(), -7);
        tensors.push_back({"rows", testing::makeTensor<int32_t>(DataType::Int32, {6, 5}, rows), {}, {}, {{6, 5}}});
        tensors.push_back({"scalar", testing::makeTensor<double>(DataType::Double, {}, {2.5}), {}, {}, {{}}});
        tensors.push_back({"empty", testing::makeTensor<float>(DataType::Float, {0, 3}, {}), {}, {}, {{0, 3}}});
        Tensor words;
        words.dtype = DataType::String;
        words.shape.dims = {2};
        words.strings = {"a", "bc"};
        tensors.push_back({"words", words, {}, {}, {{2}}});
        for (int part = 0; part < 2; ++part) {
            TensorSlice slice;
            slice.extents = {{part * 3, 3}, {0, -1}};
            std::vector<float> v(6);
            std::iota(v.begin(), v.end(), static_cast<float>(part * 6));
            tensors.push_back({"split", testing::makeTensor<float>(DataType::Float, {3, 2}, v), {}, slice, {{6, 2}}});
        }
        m_prefix = m_dir.filePath(QStringLiteral("ckpt-1")).toStdString();
        auto stats = writeTensors(m_prefix, std::move(tensors), {});
        QVERIFY2(stats.ok(), stats.status().toString().c_str());
    }

    static std::vector<uint8_t> bufferFor(const TensorInfo& t) {
        return std::vector<uint8_t>(static_cast<size_t>(t.storedBytes()), 0xAB);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        writeFixture();
    }

    void sameBytesAsRead() {
        auto reader = BundleReader::open(m_prefix);
        QVERIFY2(reader.ok(), reader.status().toString().c_str());
        std::vector<const TensorInfo*> infos;
        for (const char* key : {"big", "rows", "scalar", "empty", "split"}) infos.push_back((*reader)->find(key));
        std::vector<std::vector<uint8_t>> buffers;
        std::vector<TensorReadTarget> targets;
        for (const TensorInfo* t : infos) {
            QVERIFY(t);
            buffers.push_back(bufferFor(*t));
        }
        for (size_t i = 0; i < infos.size(); ++i) targets.push_back({infos[i], buffers[i]});
        int64_t lastDone = -1, total = 0;
        ReadIntoOptions options;
        options.threads = 2;
        options.progress = [&](int64_t done, int64_t all, std::string_view phase) {
            QCOMPARE(phase, std::string_view("read"));
            lastDone = std::max(lastDone, done);
            total = all;
        };
        auto statuses = (*reader)->readTensorsInto(targets, options);
        QVERIFY(statuses.ok());
        for (size_t i = 0; i < infos.size(); ++i) {
            QVERIFY2((*statuses)[i].isOk(), (*statuses)[i].toString().c_str());
            auto whole = (*reader)->read(*infos[i]);
            QVERIFY(whole.ok());
            QVERIFY(whole->bytes == buffers[i]);
        }
        QCOMPARE(lastDone, total);
        QVERIFY(total >= (12 << 20));
    }

    void refusesWhatDoesNotFit() {
        auto reader = BundleReader::open(m_prefix);
        QVERIFY(reader.ok());
        std::vector<uint8_t> small(3);
        std::vector<TensorReadTarget> targets{{(*reader)->find("rows"), small}, {(*reader)->find("words"), small}};
        auto statuses = (*reader)->readTensorsInto(targets);
        QVERIFY(statuses.ok());
        QCOMPARE((*statuses)[0].code(), StatusCode::InvalidArgument);
        QVERIFY((*statuses)[0].message().find("needs 120") != std::string::npos);
        QCOMPARE((*statuses)[1].code(), StatusCode::InvalidArgument);
        QVERIFY((*statuses)[1].message().find("DT_STRING") != std::string::npos);
    }

    void damageFailsOneTensorAndLeavesZeros() {
        QTemporaryDir copy;
        QVERIFY(testing::copyDirectory(m_dir.path(), copy.path()));
        const std::string prefix = copy.filePath(QStringLiteral("ckpt-1")).toStdString();
        auto clean = BundleReader::open(prefix);
        QVERIFY(clean.ok());
        const TensorInfo rowsInfo = *(*clean)->find("rows");
        {
            std::fstream f((*clean)->dataPath(rowsInfo.region.shardId), std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(rowsInfo.region.offset + 4);
            f.put('\x55');
        }
        auto reader = BundleReader::open(prefix);
        QVERIFY(reader.ok());
        auto rows = bufferFor(rowsInfo);
        auto scalar = bufferFor(*(*reader)->find("scalar"));
        std::vector<TensorReadTarget> targets{{(*reader)->find("rows"), rows}, {(*reader)->find("scalar"), scalar}};
        auto statuses = (*reader)->readTensorsInto(targets);
        QVERIFY(statuses.ok());
        QCOMPARE((*statuses)[0].code(), StatusCode::DataLoss);
        QVERIFY((*statuses)[0].message().find("checksum mismatch") != std::string::npos);
        QVERIFY(std::all_of(rows.begin(), rows.end(), [](uint8_t b) { return b == 0; }));
        QVERIFY((*statuses)[1].isOk());
        double v = 0;
        std::memcpy(&v, scalar.data(), sizeof v);
        QCOMPARE(v, 2.5);
    }

    void cancelled() {
        auto reader = BundleReader::open(m_prefix);
        QVERIFY(reader.ok());
        auto big = bufferFor(*(*reader)->find("big"));
        std::vector<TensorReadTarget> targets{{(*reader)->find("big"), big}};
        CancellationToken token;
        token.cancel();
        ReadIntoOptions options;
        options.cancel = &token;
        auto statuses = (*reader)->readTensorsInto(targets, options);
        QVERIFY(!statuses.ok());
        QCOMPARE(statuses.status().code(), StatusCode::Cancelled);
    }

    void rows_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("begin");
        QTest::addColumn<int>("end");
        QTest::newRow("middle rows") << "rows" << 2 << 5;
        QTest::newRow("last row") << "rows" << 5 << 6;
        QTest::newRow("no rows") << "rows" << 3 << 3;
        QTest::newRow("partitioned, across slices") << "split" << 1 << 5;
    }

    void rows() {
        QFETCH(QString, key);
        QFETCH(int, begin);
        QFETCH(int, end);
        auto reader = BundleReader::open(m_prefix);
        QVERIFY(reader.ok());
        const TensorInfo& info = *(*reader)->find(key.toStdString());
        auto whole = (*reader)->read(info);
        QVERIFY(whole.ok());
        const size_t rowBytes = whole->bytes.size() / static_cast<size_t>(info.shape.dims[0]);
        std::vector<uint8_t> out(static_cast<size_t>(end - begin) * rowBytes);
        Status s = (*reader)->readRowsInto(info, begin, end, out);
        QVERIFY2(s.isOk(), s.toString().c_str());
        QVERIFY(std::equal(out.begin(), out.end(), whole->bytes.begin() + static_cast<ptrdiff_t>(begin * rowBytes)));
    }

    void rowsRefused_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("begin");
        QTest::addColumn<int>("end");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("past the last row") << "rows" << 4 << 7 << "lie outside";
        QTest::newRow("negative start") << "rows" << -1 << 2 << "lie outside";
        QTest::newRow("reversed") << "rows" << 3 << 2 << "lie outside";
        QTest::newRow("scalar") << "scalar" << 0 << 1 << "scalar";
        QTest::newRow("strings") << "words" << 0 << 1 << "DT_STRING";
    }

    void rowsRefused() {
        QFETCH(QString, key);
        QFETCH(int, begin);
        QFETCH(int, end);
        QFETCH(QString, fragment);
        auto reader = BundleReader::open(m_prefix);
        QVERIFY(reader.ok());
        std::vector<uint8_t> out(64);
        Status s = (*reader)->readRowsInto(*(*reader)->find(key.toStdString()), begin, end, out);
        QCOMPARE(s.code(), StatusCode::InvalidArgument);
        QVERIFY2(s.message().find(fragment.toStdString()) != std::string::npos, s.message().c_str());
    }

    void rowsOfATruncatedFile() {
        QTemporaryDir copy;
        QVERIFY(testing::copyDirectory(m_dir.path(), copy.path()));
        const std::string prefix = copy.filePath(QStringLiteral("ckpt-1")).toStdString();
        auto reader = BundleReader::open(prefix);
        QVERIFY(reader.ok());
        const TensorInfo& rows = *(*reader)->find("rows");
        QVERIFY(QFile::resize(QString::fromStdString((*reader)->dataPath(0)), rows.region.offset + 8));
        auto fresh = BundleReader::open(prefix);
        QVERIFY(fresh.ok());
        std::vector<uint8_t> out(20);
        Status s = (*fresh)->readRowsInto(*(*fresh)->find("rows"), 5, 6, out);
        QCOMPARE(s.code(), StatusCode::DataLoss);
        QVERIFY2(s.message().find("past the end") != std::string::npos, s.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TstReadInto)
#include "tst_read_into.moc"
