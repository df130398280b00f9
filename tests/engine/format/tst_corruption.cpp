// Damaged checkpoints must give one clear error naming the file and the
// problem: bit flips in every index block, truncation at every block
// boundary, missing or truncated shards, flipped tensor bytes, and
// hand-made indexes with inconsistent entries. Nothing may crash or hang.

#include <QtTest>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/verify.h"
#include "format/index_table.h"
#include "tensor_bundle.pb.h"
#include "test_support.h"

using namespace ckpt;
using nlohmann::json;

namespace {

struct Copy {
    QTemporaryDir tmp;
    json manifest;
    std::string prefix;
    QString indexPath;
};

bool makeCopy(const QString& dir, Copy& c) {
    if (!ckpt::testing::copyDirectory(dir, c.tmp.path())) return false;
    c.manifest = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
    c.prefix = ckpt::testing::manifestPrefix(c.tmp.path(), c.manifest);
    c.indexPath = QString::fromStdString(c.prefix) + QStringLiteral(".index");
    return true;
}

// Problems from verifyBundle joined into one string.
std::string verifyProblems(const std::string& prefix) {
    auto report = verifyBundle(prefix);
    if (!report) return "verify failed: " + report.status().toString();
    std::string all;
    for (const auto& p : report->problems) all += p.message + "\n";
    return all;
}

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

std::string entryBytes(int dtype, std::vector<int64_t> dims, int64_t size, int shard = 0, uint32_t crc = 0xa282ead8u) {
    tensorflow::BundleEntryProto e;
    e.set_dtype(static_cast<tensorflow::DataType>(dtype));
    auto* shape = e.mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_size(d);
    e.set_shard_id(shard);
    e.set_size(size);
    e.set_crc32c(crc);
    return e.SerializeAsString();
}

std::string headerBytes(int shards = 1) {
    tensorflow::BundleHeaderProto h;
    h.set_num_shards(shards);
    h.mutable_version()->set_producer(1);
    return h.SerializeAsString();
}

void writeIndex(const QString& path, const std::vector<std::pair<std::string, std::string>>& entries) {
    auto w = format::IndexTableWriter::create(path.toStdString());
    QVERIFY(w.ok());
    for (const auto& [k, v] : entries) QVERIFY((*w)->add(k, v).isOk());
    QVERIFY((*w)->finish().isOk());
}

}  // namespace

class TstCorruption : public QObject {
    Q_OBJECT
private slots:
    void bundles_data() {
        QTest::addColumn<QString>("dir");
        const QStringList dirs = ckpt::testing::realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : dirs) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }

    void bitFlipInEveryIndexBlock_data() { bundles_data(); }
    void bitFlipInEveryIndexBlock() {
        QFETCH(QString, dir);
        Copy c;
        QVERIFY(makeCopy(dir, c));
        const QByteArray original = ckpt::testing::readAll(c.indexPath);
        const std::string indexName = QFileInfo(c.indexPath).fileName().toStdString();
        for (const json& block : c.manifest["index"]["blocks"]) {
            const int64_t offset = block["offset"], size = block["size"];
            // One flip inside the contents, one in the stored checksum.
            for (qsizetype pos : {qsizetype(offset + size / 2), qsizetype(offset + size + 2)}) {
                QByteArray damaged = original;
                damaged[pos] = static_cast<char>(damaged[pos] ^ 0x10);
                QVERIFY(ckpt::testing::writeAll(c.indexPath, damaged));
                const std::string problems = verifyProblems(c.prefix);
                const std::string what = block["kind"].get<std::string>() + " block at byte " + std::to_string(pos);
                QVERIFY2(contains(problems, "DataLoss"), (what + ": " + problems).c_str());
                QVERIFY2(contains(problems, indexName), (what + ": " + problems).c_str());
                if (block["kind"] != "metaindex") {
                    auto r = BundleReader::open(c.prefix);
                    QVERIFY2(!r.ok(), what.c_str());
                    QCOMPARE(r.status().code(), StatusCode::DataLoss);
                }
            }
        }
    }

    void truncatedAtEveryBlockBoundary_data() { bundles_data(); }
    void truncatedAtEveryBlockBoundary() {
        QFETCH(QString, dir);
        Copy c;
        QVERIFY(makeCopy(dir, c));
        const QByteArray original = ckpt::testing::readAll(c.indexPath);
        std::vector<int64_t> cuts{0};
        for (const json& block : c.manifest["index"]["blocks"]) {
            cuts.push_back(block["offset"].get<int64_t>());
            cuts.push_back(block["offset"].get<int64_t>() + block["size"].get<int64_t>() + 5);
        }
        cuts.push_back(original.size() - 1);
        for (int64_t cut : cuts) {
            QVERIFY(ckpt::testing::writeAll(c.indexPath, original.left(cut)));
            auto r = BundleReader::open(c.prefix);
            QVERIFY2(!r.ok(), qPrintable(QStringLiteral("truncated to %1 bytes").arg(cut)));
            QCOMPARE(r.status().code(), StatusCode::DataLoss);
            QVERIFY2(contains(r.status().message(), c.indexPath.toStdString()), r.status().toString().c_str());
        }
    }

    void deletedShard_data() { bundles_data(); }
    void deletedShard() {
        QFETCH(QString, dir);
        Copy c;
        QVERIFY(makeCopy(dir, c));
        const int shards = c.manifest["header"]["num_shards"];
        for (int s = 0; s < shards; ++s) {
            Copy fresh;
            QVERIFY(makeCopy(dir, fresh));
            auto reader = BundleReader::open(fresh.prefix);
            QVERIFY(reader.ok());
            const std::string path = (*reader)->dataPath(s);
            QVERIFY(QFile::remove(QString::fromStdString(path)));
            const std::string problems = verifyProblems(fresh.prefix);
            QVERIFY2(contains(problems, "missing data shard " + path), problems.c_str());
        }
    }

    void flippedTensorByte_data() { bundles_data(); }
    void flippedTensorByte() {
        QFETCH(QString, dir);
        Copy c;
        QVERIFY(makeCopy(dir, c));
        auto reader = BundleReader::open(c.prefix);
        QVERIFY(reader.ok());
        for (const TensorInfo& t : (*reader)->tensors()) {
            if (t.isPartitioned() || t.region.size == 0) continue;
            const QString data = QString::fromStdString((*reader)->dataPath(t.region.shardId));
            const QByteArray original = ckpt::testing::readAll(data);
            QByteArray damaged = original;
            const qsizetype pos = static_cast<qsizetype>(t.region.offset + t.region.size - 1);
            damaged[pos] = static_cast<char>(damaged[pos] ^ 0x01);
            QVERIFY(ckpt::testing::writeAll(data, damaged));
            auto fresh = BundleReader::open(c.prefix);
            QVERIFY(fresh.ok());
            auto value = (*fresh)->read(t);
            if (isDecodable(t.dtype)) {
                QVERIFY2(!value.ok(), t.key.c_str());
                QCOMPARE(value.status().code(), StatusCode::DataLoss);
                QVERIFY2(contains(value.status().message(), t.key), value.status().toString().c_str());
            }
            const std::string problems = verifyProblems(c.prefix);
            QVERIFY2(contains(problems, t.key) && contains(problems, QFileInfo(data).fileName().toStdString()), problems.c_str());
            QVERIFY(ckpt::testing::writeAll(data, original));
        }
    }

    void truncatedDataFile() {
        const QStringList dirs = ckpt::testing::realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        Copy c;
        QVERIFY(makeCopy(ckpt::testing::realTestDataDir() + QStringLiteral("/tfx_estimator_ckpt1000"), c));
        const QString data = QString::fromStdString(c.prefix) + QStringLiteral(".data-00000-of-00001");
        QVERIFY(ckpt::testing::writeAll(data, ckpt::testing::readAll(data).left(1000)));
        const std::string problems = verifyProblems(c.prefix);
        QVERIFY2(contains(problems, "truncated data file"), problems.c_str());
        QVERIFY2(contains(problems, "points past the end of the file"), problems.c_str());
    }

    // Hand-made indexes: every inconsistency an entry can carry.
    void badEntries_data() {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("fragment");
        auto row = [](const char* name, std::string key, std::string value, const char* fragment) {
            QTest::newRow(name) << QByteArray::fromStdString(key) << QByteArray::fromStdString(value)
                                << QString::fromLatin1(fragment);
        };
        row("unknown dtype", "w", entryBytes(77, {2}, 8), "unknown dtype 77");
        row("negative dimension", "w", entryBytes(1, {-3}, 0), "invalid tensor shape");
        row("overflowing shape", "w", entryBytes(1, {1LL << 40, 1LL << 40}, 0), "element count overflows");
        row("shard out of range", "w", entryBytes(1, {2}, 8, 5), "shard id 5");
        row("size does not match shape", "w", entryBytes(1, {2, 3}, 8), "stored size 8, expected 24");
        row("garbage proto", "w", std::string("\xff\xff\xff\xff\x0f\x01", 6), "not a valid BundleEntryProto");
        row("malformed slice key", std::string("\x00w", 2), entryBytes(1, {2}, 8), "malformed slice key");
    }
    void badEntries() {
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, value);
        QFETCH(QString, fragment);
        QTemporaryDir tmp;
        const QString index = tmp.filePath(QStringLiteral("bad.index"));
        writeIndex(index, {{"", headerBytes()}, {key.toStdString(), value.toStdString()}});
        auto r = BundleReader::open(tmp.filePath(QStringLiteral("bad")).toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(r.status().code(), StatusCode::DataLoss);
        QVERIFY2(contains(r.status().message(), fragment.toStdString()), r.status().toString().c_str());
        QVERIFY2(contains(r.status().message(), "bad.index"), r.status().toString().c_str());
    }

    void headerProblems_data() {
        QTest::addColumn<QByteArray>("firstKey");
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<QString>("fragment");
        tensorflow::BundleHeaderProto futureVersion;
        futureVersion.set_num_shards(1);
        futureVersion.mutable_version()->set_min_consumer(7);
        QTest::newRow("no header") << QByteArray("a") << QByteArray::fromStdString(entryBytes(1, {}, 4))
                                   << QStringLiteral("no bundle header");
        QTest::newRow("zero shards") << QByteArray() << QByteArray::fromStdString(headerBytes(0))
                                     << QStringLiteral("num_shards is 0");
        QTest::newRow("garbage header") << QByteArray() << QByteArray("\xff\xff\xff", 3)
                                        << QStringLiteral("not a valid BundleHeaderProto");
        QTest::newRow("future version") << QByteArray() << QByteArray::fromStdString(futureVersion.SerializeAsString())
                                        << QStringLiteral("cannot be read by consumer version 1");
    }
    void headerProblems() {
        QFETCH(QByteArray, firstKey);
        QFETCH(QByteArray, header);
        QFETCH(QString, fragment);
        QTemporaryDir tmp;
        writeIndex(tmp.filePath(QStringLiteral("h.index")), {{firstKey.toStdString(), header.toStdString()}});
        auto r = BundleReader::open(tmp.filePath(QStringLiteral("h")).toStdString());
        QVERIFY(!r.ok());
        QVERIFY2(contains(r.status().message(), fragment.toStdString()), r.status().toString().c_str());
    }

    void wrongMagicAndAbsurdRegion() {
        QTemporaryDir tmp;
        const QString index = tmp.filePath(QStringLiteral("m.index"));
        // A region claiming a terabyte must be refused by size, never allocated.
        tensorflow::BundleEntryProto huge;
        huge.set_dtype(tensorflow::DT_UINT8);
        huge.mutable_shape()->add_dim()->set_size(1LL << 40);
        huge.set_size(1LL << 40);
        writeIndex(index, {{"", headerBytes()}, {"big", huge.SerializeAsString()}});
        QVERIFY(ckpt::testing::writeAll(tmp.filePath(QStringLiteral("m.data-00000-of-00001")), QByteArray(16, 'x')));
        const std::string problems = verifyProblems(tmp.filePath(QStringLiteral("m")).toStdString());
        QVERIFY2(contains(problems, "points past the end of the file"), problems.c_str());
        auto r = BundleReader::open(tmp.filePath(QStringLiteral("m")).toStdString());
        QVERIFY(r.ok());
        QVERIFY(!(*r)->read("big").ok());

        QByteArray bytes = ckpt::testing::readAll(index);
        bytes[bytes.size() - 1] = 0;
        QVERIFY(ckpt::testing::writeAll(index, bytes));
        auto bad = BundleReader::open(tmp.filePath(QStringLiteral("m")).toStdString());
        QVERIFY(!bad.ok());
        QVERIFY2(contains(bad.status().message(), "no SSTable magic number"), bad.status().toString().c_str());
    }

    void notACheckpoint() {
        QTemporaryDir tmp;
        auto empty = Checkpoint::open(tmp.path().toStdString());
        QVERIFY(!empty.ok());
        QCOMPARE(empty.status().code(), StatusCode::NotFound);
        QVERIFY2(contains(empty.status().message(), "no checkpoint in " + tmp.path().toStdString()),
                 empty.status().toString().c_str());
        auto missing = Checkpoint::open(tmp.filePath(QStringLiteral("nope")).toStdString());
        QVERIFY(!missing.ok());
        QCOMPARE(missing.status().code(), StatusCode::NotFound);
        QVERIFY(ckpt::testing::writeAll(tmp.filePath(QStringLiteral("x.index")), QByteArray("not an sstable at all, just text")));
        auto text = Checkpoint::open(tmp.filePath(QStringLiteral("x")).toStdString());
        QVERIFY(!text.ok());
        QCOMPARE(text.status().code(), StatusCode::DataLoss);
        QVERIFY(ckpt::testing::writeAll(tmp.filePath(QStringLiteral("checkpoint")),
                                        QByteArray("model_checkpoint_path: \"x\" garbage {")));
        auto state = readCheckpointState(tmp.path().toStdString());
        QVERIFY(!state.ok());
        QVERIFY2(contains(state.status().message(), "invalid checkpoint state file"), state.status().toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TstCorruption)
#include "tst_corruption.moc"
