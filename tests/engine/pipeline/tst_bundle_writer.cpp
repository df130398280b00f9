// BundleWriter against real TensorFlow bundles: reading every tensor and
// writing it again must reproduce keys, dtypes, shapes, sizes, checksums and
// bytes; for single-shard bundles with an uncompressed index, written in the
// original data order, the .index and data file must be byte-identical.

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <fcntl.h>
#include <unistd.h>

#include "ckpt/bundle_reader.h"
#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_writer.h"
#include "format/ordered_code.h"
#include "storage/dispatch.h"
#include "test_support.h"

using namespace ckpt;
using nlohmann::json;

namespace {

Tensor floats(TensorShape shape, float start) {
    Tensor t;
    t.dtype = DataType::Float;
    t.shape = std::move(shape);
    const int64_t n = t.numElements();
    t.bytes.resize(static_cast<size_t>(n) * 4);
    for (int64_t i = 0; i < n; ++i) {
        const float v = start + static_cast<float>(i);
        std::memcpy(t.bytes.data() + i * 4, &v, 4);
    }
    return t;
}

bool acceptsODirect(const QString& dir) {
    const std::string probe = (dir + QStringLiteral("/probe")).toStdString();
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0644);
    if (fd >= 0) ::close(fd);
    ::unlink(probe.c_str());
    return fd >= 0;
}

}  // namespace

class TstBundleWriter : public QObject {
    Q_OBJECT
private slots:
    void rewriteReal_data() {
        QTest::addColumn<QString>("dir");
        const QStringList dirs = ckpt::testing::realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : dirs) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }

    void rewriteReal() {
        QFETCH(QString, dir);
        const json m = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
        const std::string srcPrefix = ckpt::testing::manifestPrefix(dir, m);
        auto src = BundleReader::open(srcPrefix);
        QVERIFY2(src.ok(), src.status().toString().c_str());
        const BundleReader& r = **src;

        // Original data order: by (shard, offset).
        std::vector<const TensorInfo*> order;
        for (const TensorInfo& t : r.tensors()) order.push_back(&t);
        std::stable_sort(order.begin(), order.end(), [](const TensorInfo* a, const TensorInfo* b) {
            return std::pair(a->region.shardId, a->region.offset) < std::pair(b->region.shardId, b->region.offset);
        });
        QTemporaryDir tmp;
        const std::string outPrefix = tmp.filePath(QStringLiteral("rewritten")).toStdString();
        {
            auto w = BundleWriter::create(outPrefix);
            QVERIFY2(w.ok(), w.status().toString().c_str());
            for (const TensorInfo* t : order) {
                QVERIFY(!t->isPartitioned());
                auto bytes = r.readRegion(t->region, t->dtype, *t->shape.numElements(), t->key);
                QVERIFY2(bytes.ok(), bytes.status().toString().c_str());
                const Status s = (*w)->addEncoded(t->key, t->dtype, t->shape, *bytes);
                QVERIFY2(s.isOk(), s.toString().c_str());
            }
            const Status s = (*w)->finish();
            QVERIFY2(s.isOk(), s.toString().c_str());
        }
        auto out = BundleReader::open(outPrefix);
        QVERIFY2(out.ok(), out.status().toString().c_str());
        QCOMPARE((*out)->tensors().size(), r.tensors().size());
        for (size_t i = 0; i < r.tensors().size(); ++i) {
            const TensorInfo& a = r.tensors()[i];
            const TensorInfo& b = (*out)->tensors()[i];
            QCOMPARE(b.key, a.key);
            QCOMPARE(b.dtype, a.dtype);
            QCOMPARE(b.shape, a.shape);
            QCOMPARE(b.region.size, a.region.size);
            QCOMPARE(b.region.maskedCrc32c, a.region.maskedCrc32c);
            auto ra = r.readRegion(a.region, a.dtype, *a.shape.numElements(), a.key);
            auto rb = (*out)->readRegion(b.region, b.dtype, *b.shape.numElements(), b.key);
            QVERIFY2(rb.ok(), rb.status().toString().c_str());
            QVERIFY(*ra == *rb);
        }
        // Byte-identical files where TF's layout is reproducible: one shard,
        // uncompressed index blocks, contiguous data from offset 0.
        // The manifest records each index block's compression (1 = Snappy).
        const std::string manifestText = ckpt::testing::readAll(dir + QStringLiteral("/manifest.json")).toStdString();
        const bool compressed = manifestText.find("\"compression\": 1") != std::string::npos;
        if (r.header().numShards == 1 && !compressed) {
            QCOMPARE(ckpt::testing::readAll(QString::fromStdString(outPrefix + ".index")),
                     ckpt::testing::readAll(QString::fromStdString(srcPrefix + ".index")));
            QCOMPARE(ckpt::testing::readAll(QString::fromStdString(dataFileName(outPrefix, 0, 1))),
                     ckpt::testing::readAll(QString::fromStdString(dataFileName(srcPrefix, 0, 1))));
            ++m_byteIdentical;
        }
    }

    void byteIdenticalCount() {
        // Most real bundles are single-shard with uncompressed indexes.
        if (ckpt::testing::realBundleDirs().isEmpty()) CKPT_MISSING_CORPUS();
        qInfo("%d real bundles rewritten byte-identically (.index and data)", m_byteIdentical);
        QVERIFY2(m_byteIdentical >= 5, std::to_string(m_byteIdentical).c_str());
    }

    void encodings_data() {
        QTest::addColumn<int>("which");
        QTest::newRow("strings") << 0;
        QTest::newRow("empty string tensor") << 1;
        QTest::newRow("empty float tensor") << 2;
        QTest::newRow("sliced float tensor") << 3;
        QTest::newRow("sliced string tensor") << 4;
    }

    void encodings() {
        QFETCH(int, which);
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("b")).toStdString();
        Tensor expected;
        auto w = BundleWriter::create(prefix);
        QVERIFY(w.ok());
        Status s;
        if (which == 0 || which == 1 || which == 4) {
            expected.dtype = DataType::String;
            expected.shape = which == 1 ? TensorShape{{0}} : TensorShape{{2, 2}};
            if (which != 1) expected.strings = {"hi", "", std::string(300, 'x'), std::string("a\0b", 3)};
        } else {
            expected = floats(which == 2 ? TensorShape{{3, 0}} : TensorShape{{5, 3}}, 1.0f);
        }
        if (which == 3 || which == 4) {
            const int64_t rows = expected.shape.dims[0];
            const int64_t cols = expected.shape.dims[1];
            for (int64_t r0 = 0; r0 < rows && s.isOk(); r0 += 2) {
                const int64_t len = std::min<int64_t>(2, rows - r0);
                Tensor part;
                part.dtype = expected.dtype;
                part.shape = TensorShape{{len, cols}};
                if (expected.dtype == DataType::String)
                    part.strings.assign(expected.strings.begin() + r0 * cols, expected.strings.begin() + (r0 + len) * cols);
                else part.bytes.assign(expected.bytes.begin() + r0 * cols * 4, expected.bytes.begin() + (r0 + len) * cols * 4);
                s = (*w)->addSlice("t", expected.shape, TensorSlice{{{r0, len}, {0, -1}}}, part);
            }
        } else {
            s = (*w)->add("t", expected);
        }
        QVERIFY2(s.isOk(), s.toString().c_str());
        s = (*w)->finish();
        QVERIFY2(s.isOk(), s.toString().c_str());
        auto r = BundleReader::open(prefix);
        QVERIFY2(r.ok(), r.status().toString().c_str());
        const TensorInfo* info = (*r)->find("t");
        QVERIFY(info);
        if (which == 1) QCOMPARE(info->region.size, int64_t{4});
        if (which == 2) QCOMPARE(info->region.maskedCrc32c, 0xa282ead8u);
        if (which == 3) QCOMPARE(info->slices.size(), size_t{3});
        auto got = (*r)->read(*info);
        QVERIFY2(got.ok(), got.status().toString().c_str());
        QCOMPARE(got->shape, expected.shape);
        QVERIFY(got->bytes == expected.bytes);
        QVERIFY(got->strings == expected.strings);
    }

    void duplicateKey() {
        QTemporaryDir tmp;
        auto w = BundleWriter::create(tmp.filePath(QStringLiteral("d")).toStdString());
        QVERIFY(w.ok());
        QVERIFY((*w)->add("k", floats(TensorShape{{2}}, 0)).isOk());
        const Status s = (*w)->add("k", floats(TensorShape{{2}}, 0));
        QCOMPARE(s.code(), StatusCode::AlreadyExists);
    }

    // A NUL first byte marks a slice key, the empty key is the header: a
    // tensor under either would make the bundle unreadable (found by
    // fuzz_object_graph, tests/fuzz/regressions/object_graph/).
    void reservedKeys() {
        QTemporaryDir tmp;
        auto w = BundleWriter::create(tmp.filePath(QStringLiteral("r")).toStdString());
        QVERIFY(w.ok());
        for (const std::string& key : {std::string(), std::string("\0model/w", 8)}) {
            QCOMPARE((*w)->add(key, floats(TensorShape{{2}}, 0)).code(), StatusCode::InvalidArgument);
            const TensorSlice half{{SliceExtent{0, 1}}};
            QCOMPARE((*w)->addSlice(key, TensorShape{{2}}, half, floats(TensorShape{{1}}, 0)).code(),
                     StatusCode::InvalidArgument);
        }
        QVERIFY((*w)->add("model/w", floats(TensorShape{{2}}, 0)).isOk());
        QVERIFY((*w)->finish().isOk());
        QVERIFY(BundleReader::open(tmp.filePath(QStringLiteral("r")).toStdString()).ok());
    }

    void headerBytes() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("h")).toStdString();
        auto w = BundleWriter::create(prefix);
        QVERIFY(w.ok());
        QVERIFY((*w)->add("a", floats(TensorShape{}, 1)).isOk());
        QVERIFY((*w)->finish().isOk());
        const QByteArray index = ckpt::testing::readAll(QString::fromStdString(prefix + ".index"));
        // First entry: shared 0, non-shared 0, value length 6, then the header.
        QCOMPARE(index.left(9).toHex(), QByteArray("000006080 11a020801").replace(" ", ""));
    }

    // Data files go through O_DIRECT staging buffers where the filesystem
    // allows it: appends of every size around the block and staging-buffer
    // boundaries must land byte for byte, the tail (under one block)
    // included; tmpfs refuses O_DIRECT and takes the buffered path.
    void directWrites_data() {
        QTest::addColumn<QString>("where");
        QTest::newRow("temp dir") << QString();
        if (QFileInfo(QStringLiteral("/dev/shm")).isWritable()) QTest::newRow("tmpfs") << QStringLiteral("/dev/shm");
    }
    void directWrites() {
        QFETCH(QString, where);
        QTemporaryDir tmp(where.isEmpty() ? QDir::tempPath() + QStringLiteral("/dw-XXXXXX")
                                          : where + QStringLiteral("/dw-XXXXXX"));
        QVERIFY(tmp.isValid());
        const std::string path = tmp.filePath(QStringLiteral("data")).toStdString();
        storage::CreateOptions options;
        options.mode = storage::WriteMode::Direct;
        auto f = storage::create(path, options);
        QVERIFY2(f.ok(), f.status().toString().c_str());
        QCOMPARE((*f)->direct(), acceptsODirect(tmp.path()));
        constexpr size_t kMiB = size_t{1} << 20;
        QByteArray expected;
        uint32_t x = 12345;
        for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, 8 * kMiB - 3, 8 * kMiB, size_t{3},
                         16 * kMiB + 5, size_t{100}}) {
            QByteArray piece(static_cast<qsizetype>(n), Qt::Uninitialized);
            for (char& c : piece) {
                x = x * 1664525u + 1013904223u;
                c = static_cast<char>(x >> 24);
            }
            QVERIFY((*f)->append(piece.constData(), piece.size()).isOk());
            expected += piece;
        }
        QCOMPARE((*f)->position(), static_cast<uint64_t>(expected.size()));
        const Status closed = (*f)->close();
        QVERIFY2(closed.isOk(), closed.toString().c_str());
        const QByteArray got = ckpt::testing::readAll(QString::fromStdString(path));
        QCOMPARE(got.size(), expected.size());
        QVERIFY(got == expected);
    }

private:
    int m_byteIdentical = 0;
};

QTEST_GUILESS_MAIN(TstBundleWriter)
#include "tst_bundle_writer.moc"
